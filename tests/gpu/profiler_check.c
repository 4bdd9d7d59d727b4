/*
 * profiler_check.c -- prints the /profiler tables of a gpuinst file as text
 * lines for tests/gpu/profiler.sh to assert on (awk), strings resolved:
 *   R <rank> <region> <occurrence> <status> <passes> <ranges> <dropped>
 *     <checkpoint_bytes> <checkpoint_ns> <setup_ns> <replay_ns> <lock_wait_ns> <uuid>
 *     <total_ns> <load_ns> <host_ns> <first_start_ns> <decode_ns> <teardown_ns> <preload_ns>
 *     <levels> <passes_per_level> <passes_discarded> <resetup> <resetup_ns> | <reason>
 *   (total_ns = end_ns - start_ns; fields 15-21, 0 in files older than the
 *   breakdown; fields 22-26, 0 in files older than the pass plan)
 *   V <rank> <path> <metric> <value>
 *   U <rank> <feature> | <reason>
 *   G <rank> <range name> <depth> <duration_ns>     (the gpuinst ranges, /ranges)
 *   W <rank> <occurrence> <path> <metric> <value>   (/profiler/values with the occurrence)
 *   K <rank> <tool> <count> <kernel>                (/gpu/kernels per rank, tool flag and name,
 *                                                    the demangled name up to its '(')
 *   P <rank> <region> <occurrence> <launches> <tool_kernels> <resumed> <end_ns - start_ns> <copies> <kinds>
 *                                                   (/gpu/paused: tracing paused; copies -2 and
 *                                                    kinds "-" in files older than them)
 *   C <rank> <in_pause> <count>                     (/gpu/copies per rank: records that started
 *                                                    inside a /gpu/paused interval of the rank, or not)
 *   M <rank> <metric> <chip> <scope> <type> <unit> <hw_unit> | <description>  (/profiler/metrics)
 * Exit status 2 if the file cannot be opened, else 0.
 */
#include "prof_h5.h"

int main(int argc, char **argv)
{
    phFile g;
    size_t i;
    if (argc < 2 || ph_open(&g, argv[1]) != 0) {
        fprintf(stderr, "profiler_check: cannot open %s\n", argc > 1 ? argv[1] : "(no file)");
        return 2;
    }
    for (i = 0; i < g.nregions; i++) {
        const phRegion *r = &g.regions[i];
        printf("R %u %s %llu %d %u %u %u %llu %llu %llu %llu %llu %s %llu %llu %llu %llu %llu %llu %llu %u %u %u %u "
               "%llu | %s\n",
               r->rank, ph_s(&g, r->rank, r->region), (unsigned long long)r->occurrence, r->status, r->passes,
               r->ranges, r->ranges_dropped, (unsigned long long)r->checkpoint_bytes,
               (unsigned long long)r->checkpoint_ns, (unsigned long long)r->setup_ns,
               (unsigned long long)r->replay_ns, (unsigned long long)r->lock_wait_ns,
               r->device_uuid ? ph_s(&g, r->rank, r->device_uuid) : "-",
               (unsigned long long)(r->end_ns > r->start_ns ? r->end_ns - r->start_ns : 0),
               (unsigned long long)r->load_ns, (unsigned long long)r->host_ns,
               (unsigned long long)r->first_start_ns, (unsigned long long)r->decode_ns,
               (unsigned long long)r->teardown_ns, (unsigned long long)r->preload_ns, r->levels,
               r->passes_per_level, r->passes_discarded, r->resetup, (unsigned long long)r->resetup_ns,
               ph_s(&g, r->rank, r->reason));
    }
    for (i = 0; i < g.nvalues; i++) {
        const phValue *v = &g.values[i];
        printf("V %u %s %s %.17g\n", v->rank, ph_s(&g, v->rank, v->path), ph_s(&g, v->rank, v->metric), v->value);
    }
    /* collective replay (issue 16): X rank region occurrence status collector sharers group passes */
    for (i = 0; i < g.nregions; i++) {
        const phRegion *r = &g.regions[i];
        printf("X %u %s %llu %d %d %u %u %u\n", r->rank, ph_s(&g, r->rank, r->region),
               (unsigned long long)r->occurrence, r->status, r->collector, r->sharers, r->group, r->passes);
    }
    /* T rank occurrence path metric time_sliced value */
    for (i = 0; i < g.nvalues; i++) {
        const phValue *v = &g.values[i];
        printf("T %u %u %s %s %u %.17g\n", v->rank, v->occurrence, ph_s(&g, v->rank, v->path),
               ph_s(&g, v->rank, v->metric), v->time_sliced, v->value);
    }
    for (i = 0; i < g.nunavail; i++) printf("U %u %s | %s\n", g.unavail[i].rank, g.unavail[i].feature, g.unavail[i].reason);
    for (i = 0; i < g.nmetrics; i++) {
        const phMetric *m = &g.metrics[i];
        printf("M %u %s %s %u %u %s %s | %s\n", m->rank, ph_s(&g, m->rank, m->name), ph_s(&g, m->rank, m->chip),
               m->scope, m->type, m->unit ? ph_s(&g, m->rank, m->unit) : "-", ph_s(&g, m->rank, m->hw_unit),
               ph_s(&g, m->rank, m->description));
    }
    for (i = 0; i < g.nranges; i++) {
        const phRange *r = &g.ranges[i];
        printf("G %u %s %u %llu\n", r->rank, ph_s(&g, r->rank, r->name), (unsigned)r->depth,
               (unsigned long long)(r->end_ns > r->start_ns ? r->end_ns - r->start_ns : 0));
    }
    for (i = 0; i < g.nvalues; i++) {
        const phValue *v = &g.values[i];
        printf("W %u %u %s %s %.17g\n", v->rank, v->occurrence, ph_s(&g, v->rank, v->path),
               ph_s(&g, v->rank, v->metric), v->value);
    }
    {   /* kernels counted per (rank, tool, name id) */
        typedef struct KC {
            uint32_t rank, tool, name;
            uint64_t n;
        } KC;
        KC *kc = (KC *)calloc(g.nkernels ? g.nkernels : 1, sizeof *kc);
        size_t nk = 0, j;
        for (i = 0; kc != NULL && i < g.nkernels; i++) {
            const phKernel *k = &g.kernels[i];
            uint32_t id = k->demangled ? k->demangled : k->name;
            for (j = 0; j < nk; j++)
                if (kc[j].rank == k->rank && kc[j].tool == k->tool && kc[j].name == id) break;
            if (j == nk) {
                kc[nk].rank = k->rank;
                kc[nk].tool = k->tool;
                kc[nk].name = id;
                nk++;
            }
            kc[j].n++;
        }
        for (j = 0; j < nk; j++) {
            const char *nm = ph_s(&g, kc[j].rank, kc[j].name);
            int len = (int)strcspn(nm, "( ");
            printf("K %u %u %llu %.*s\n", kc[j].rank, kc[j].tool, (unsigned long long)kc[j].n, len > 0 ? len : 1,
                   len > 0 ? nm : "?");
        }
        free(kc);
    }
    for (i = 0; i < g.npaused; i++) {
        const phPaused *q = &g.paused[i];
        printf("P %u %s %llu %lld %llu %u %llu %lld %s\n", q->rank, ph_s(&g, q->rank, q->region),
               (unsigned long long)q->occurrence, (long long)q->launches, (unsigned long long)q->tool_kernels,
               q->resumed, (unsigned long long)(q->end_ns > q->start_ns ? q->end_ns - q->start_ns : 0),
               (long long)q->copies, q->kinds ? ph_s(&g, q->rank, q->kinds) : "-");
    }
    {   /* copy and set records per rank, inside a pause of that rank or not */
        uint32_t maxr = 0;
        uint64_t *cnt;
        size_t j;
        for (i = 0; i < g.ncopies; i++)
            if (g.copies[i].rank > maxr) maxr = g.copies[i].rank;
        cnt = (uint64_t *)calloc(2 * ((size_t)maxr + 1), sizeof *cnt);
        for (i = 0; cnt != NULL && i < g.ncopies; i++) {
            int in = 0;
            for (j = 0; j < g.npaused && !in; j++)
                in = g.paused[j].rank == g.copies[i].rank && g.copies[i].start_ns >= g.paused[j].start_ns &&
                     (g.paused[j].end_ns == 0 || g.copies[i].start_ns <= g.paused[j].end_ns);
            cnt[2 * (size_t)g.copies[i].rank + (size_t)in]++;
        }
        for (i = 0; cnt != NULL && g.ncopies > 0 && i <= maxr; i++)
            printf("C %u 0 %llu\nC %u 1 %llu\n", (unsigned)i, (unsigned long long)cnt[2 * i], (unsigned)i,
                   (unsigned long long)cnt[2 * i + 1]);
        free(cnt);
    }
    ph_close(&g);
    return 0;
}
