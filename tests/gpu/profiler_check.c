/*
 * profiler_check.c -- prints the /profiler tables of a gpuinst file as text
 * lines for tests/gpu/profiler.sh to assert on (awk), strings resolved:
 *   R <rank> <region> <occurrence> <status> <passes> <ranges> <dropped>
 *     <checkpoint_bytes> <checkpoint_ns> <setup_ns> <replay_ns> <lock_wait_ns> <uuid> | <reason>
 *   V <rank> <path> <metric> <value>
 *   U <rank> <feature> | <reason>
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
        printf("R %u %s %llu %d %u %u %u %llu %llu %llu %llu %llu %s | %s\n", r->rank, ph_s(&g, r->rank, r->region),
               (unsigned long long)r->occurrence, r->status, r->passes, r->ranges, r->ranges_dropped,
               (unsigned long long)r->checkpoint_bytes, (unsigned long long)r->checkpoint_ns,
               (unsigned long long)r->setup_ns, (unsigned long long)r->replay_ns,
               (unsigned long long)r->lock_wait_ns, r->device_uuid ? ph_s(&g, r->rank, r->device_uuid) : "-",
               ph_s(&g, r->rank, r->reason));
    }
    for (i = 0; i < g.nvalues; i++) {
        const phValue *v = &g.values[i];
        printf("V %u %s %s %.17g\n", v->rank, ph_s(&g, v->rank, v->path), ph_s(&g, v->rank, v->metric), v->value);
    }
    for (i = 0; i < g.nunavail; i++) printf("U %u %s | %s\n", g.unavail[i].rank, g.unavail[i].feature, g.unavail[i].reason);
    ph_close(&g);
    return 0;
}
