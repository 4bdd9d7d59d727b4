/*
 * test_parse.c -- the range profiler's parsers, no CUPTI needed:
 * GPUINST_PROFILE selection (syntax, errors, matching, what finalize says
 * about rules that never selected anything), metric lists and named sets,
 * edit distance and nearest-name suggestions.
 */
#include "gpuinstInt.h"
#include "profilerInt.h"

#include "../gi_check.h"

static gpuinstSelect sel;

/* Parses spec, then checks which of occurrences 1..20 of region are selected
 * against the expected set (a string of '1'/'0' for occurrences 1..20). */
static void sel_case(const char *spec, const char *region, const char *want)
{
    char err[512], got[21];
    uint64_t k;
    int rc = gpuinstSelectParse(spec, &sel, err, sizeof err);
    CHECK(rc == GPUINST_SUCCESS, "spec \"%s\" rejected: %s", spec ? spec : "(null)", err);
    for (k = 1; k <= 20; k++) got[k - 1] = gpuinstSelectMatch(&sel, region, k) ? '1' : '0';
    got[20] = '\0';
    CHECK(strcmp(got, want) == 0, "spec \"%s\" region %s: got %s want %s", spec ? spec : "(null)", region, got, want);
}

static void sel_bad(const char *spec, const char *needle)
{
    char err[512];
    int rc = gpuinstSelectParse(spec, &sel, err, sizeof err);
    CHECK(rc == GPUINST_ERROR_INVALID_ARGUMENT, "spec \"%s\" accepted", spec);
    CHECK(strstr(err, needle) != NULL, "spec \"%s\": message \"%s\" lacks \"%s\"", spec, err, needle);
    CHECK(strstr(err, "GPUINST_PROFILE") != NULL, "message names the variable: %s", err);
}

static void metrics_case(const char *spec, uint32_t n, const char *first, const char *last)
{
    gpuinstMetricList l;
    char err[512];
    int rc = gpuinstMetricsParse(spec, &l, err, sizeof err);
    CHECK(rc == GPUINST_SUCCESS, "metrics \"%s\" rejected: %s", spec ? spec : "(null)", err);
    if (rc != GPUINST_SUCCESS) return;
    CHECK(l.n == n, "metrics \"%s\": %u names, want %u", spec ? spec : "(null)", l.n, n);
    if (l.n > 0) {
        CHECK(strcmp(l.names[0], first) == 0, "metrics \"%s\": first %s want %s", spec, l.names[0], first);
        CHECK(strcmp(l.names[l.n - 1], last) == 0, "metrics \"%s\": last %s want %s", spec, l.names[l.n - 1], last);
    }
    gpuinstMetricListFree(&l);
}

/* ---- the pass plan (gpuinstPassPlan*) against a simulated CUPTI ----------------------
 * CUPTI's user replay as seen on the GPU: P passes per nesting level, the
 * level fastest, cuptiRangeProfilerStop reporting the pass it wants next.
 * GPU run 9 (H100, CUDA 13.0), bench_profiler's bare loop, P = 9, L = 2:
 *   (0,2) (1,1) (1,2) (2,1) (2,2) (3,1) (3,2) (4,1) (4,2) (5,1) (5,2) (6,1)
 *   (6,2) (7,1) (7,2) (8,1) (8,2) (0,1,all)
 * The simulator builds its sequence with its own loops (not with
 * gpuinstPassPlanModel) and is first checked against that line.  A second
 * simulator runs the order the first version of this code assumed (all
 * passes of a level, then the next level), and a third ignores a second
 * cuptiRangeProfilerSetConfig on the same session (goes on with the old
 * configuration): the plan must never decode values that are incomplete,
 * whatever the order. */
typedef struct SimCupti {
    uint32_t P, L;           /* passes per level, levels of the current configuration */
    int levelMajor;          /* 1: the wrong order (level outer, pass inner) */
    int ignoreSameSession;   /* 1: a second SetConfig on the same session changes nothing */
    uint32_t seq[2][512];    /* the passes in CUPTI's order: (pass, level) */
    uint32_t n, k;           /* passes in the configuration, bodies run in it */
    uint8_t done[64][8];     /* [pass][level]: collected in this configuration */
} SimCupti;

static void simConfig(SimCupti *c, uint32_t P, uint32_t L)
{
    uint32_t i, l;
    c->P = P;
    c->L = L;
    c->n = c->k = 0;
    memset(c->done, 0, sizeof c->done);
    if (c->levelMajor) {
        for (l = 1; l <= L; l++)
            for (i = 0; i < P; i++) c->seq[0][c->n] = i, c->seq[1][c->n++] = l;
    } else {
        for (i = 0; i < P; i++)
            for (l = 1; l <= L; l++) c->seq[0][c->n] = i, c->seq[1][c->n++] = l;
    }
}

/* A body ran: what cuptiRangeProfilerStop reports. */
static void simStop(SimCupti *c, uint64_t *pass, uint64_t *level, int *all)
{
    c->done[c->seq[0][c->k]][c->seq[1][c->k]] = 1;
    c->k++;
    *all = c->k >= c->n;
    *pass = *all ? 0 : c->seq[0][c->k];
    *level = *all ? 1 : c->seq[1][c->k];
}

/* The values of levels 1..d are complete. */
static int simComplete(const SimCupti *c, uint32_t d)
{
    uint32_t i, l;
    for (i = 0; i < c->P; i++)
        for (l = 1; l <= d && l <= c->L; l++)
            if (!c->done[i][l]) return 0;
    return 1;
}

/* One profiled occurrence: P passes per level, L levels configured, D =
 * GPUINST_PROFILE_DEPTH, a body of depth d.  Returns the bodies run (0: the
 * plan decoded incomplete values or gave up); *resetups, *early: how. */
static uint32_t simRun(SimCupti *c, uint32_t P, uint32_t L, uint32_t D, uint32_t d, int *resetups, int *early,
                       uint32_t *predicted)
{
    gpuinstPassPlan s;
    uint32_t want = d < D ? d : D;
    *resetups = *early = 0;
    *predicted = 0;
    gpuinstPassPlanInit(&s, P, L, D, 1);
    simConfig(c, P, L);
    for (;;) {
        uint64_t rp, rl;
        int all, step;
        simStop(c, &rp, &rl, &all);
        step = gpuinstPassPlanStep(&s, d, rp, rl, all, 512);
        if (s.total == 1 || (s.total == 2 && *resetups)) *predicted = s.expect;
        if (step == GPUINST_PASS_DECODE || step == GPUINST_PASS_DECODE_EARLY) {
            uint32_t levels = s.levels < want ? s.levels : want;
            if (!simComplete(c, levels)) {
                if (step == GPUINST_PASS_DECODE_EARLY) { /* NaN: decoded again at the end */
                    gpuinstPassPlanEarlyFailed(&s);
                    continue;
                }
                return 0;
            }
            *early = step == GPUINST_PASS_DECODE_EARLY;
            return s.total;
        }
        if (step == GPUINST_PASS_ABANDON) return 0;
        if (step == GPUINST_PASS_RESETUP) {
            int same = !s.fresh;
            (*resetups)++;
            if (same && c->ignoreSameSession) {
                memset(c->done, 0, sizeof c->done); /* the image was initialised again; CUPTI goes on */
            } else {
                simConfig(c, P, s.want);
            }
            gpuinstPassPlanResetup(&s, same);
        }
    }
}

static void passPlanTests(void)
{
    static const char *seen = "(0,2) (1,1) (1,2) (2,1) (2,2) (3,1) (3,2) (4,1) (4,2) (5,1) (5,2) (6,1) (6,2) (7,1) "
                              "(7,2) (8,1) (8,2) (0,1,all)";
    SimCupti c;
    char got[512];
    size_t n = 0;
    uint32_t P, L, D, d, k;
    memset(&c, 0, sizeof c);
    /* the simulator says what the GPU said */
    simConfig(&c, 9, 2);
    for (k = 0; k < 18; k++) {
        uint64_t rp, rl;
        int all;
        simStop(&c, &rp, &rl, &all);
        n += (size_t)snprintf(got + n, sizeof got - n, "%s(%llu,%llu%s)", k ? " " : "", (unsigned long long)rp,
                              (unsigned long long)rl, all ? ",all" : "");
    }
    CHECK(strcmp(got, seen) == 0, "the simulated Stop reports differ from GPU run 9's:\n  %s\n  %s", got, seen);
    /* and so does the plan's model */
    for (k = 1; k < 18; k++) {
        uint32_t mp, ml;
        gpuinstPassPlanModel(2, k, &mp, &ml);
        CHECK(mp == c.seq[0][k] && ml == c.seq[1][k], "model after %u bodies: (%u,%u)", k, mp, ml);
    }

    /* every case: right values, and the bodies the design gives
     *   want = min(d, D); want = L: P x L; want > L (a hint too low): 1 + P x want;
     *   want < L: min((P - 1) x L + want (stop when the levels the body has are
     *   complete), 1 + P x want (set up again)) */
    for (P = 1; P <= 12; P++)
        for (D = 1; D <= 4; D++)
            for (L = 1; L <= D; L++)
                for (d = 1; d <= 5; d++) {
                    uint32_t want = d < D ? d : D, bodies, predicted, expect;
                    int resetups, early;
                    expect = want == L ? P * L : want > L ? 1 + P * want
                           : ((P - 1) * L + want <= 1 + P * want ? (P - 1) * L + want : 1 + P * want);
                    c.levelMajor = 0;
                    c.ignoreSameSession = 0;
                    bodies = simRun(&c, P, L, D, d, &resetups, &early, &predicted);
                    CHECK(bodies == expect, "P=%u L=%u D=%u depth %u: %u bodies, want %u", P, L, D, d, bodies, expect);
                    CHECK(predicted == expect, "P=%u L=%u D=%u depth %u: predicted %u bodies after the first, ran %u",
                          P, L, D, d, predicted, bodies);
                    CHECK(resetups == (want != L && expect == 1 + P * want && expect != (P - 1) * L + want),
                          "P=%u L=%u D=%u depth %u: %d re-setups", P, L, D, d, resetups);
                    /* CUPTI ignores a second SetConfig on the same session: its next report (the old
                     * configuration's) differs from the model at once or one body later; then a new
                     * session: one or two more bodies, right values */
                    c.ignoreSameSession = 1;
                    bodies = simRun(&c, P, L, D, d, &resetups, &early, &predicted);
                    CHECK(bodies != 0 && (resetups == 0 ? bodies == expect
                                                        : resetups == 2 && bodies > expect && bodies <= expect + 2),
                          "P=%u L=%u D=%u depth %u, same-session SetConfig ignored: %u bodies (%d re-setups)", P, L,
                          D, d, bodies, resetups);
                    /* another order (the one assumed first): never incomplete values */
                    c.ignoreSameSession = 0;
                    c.levelMajor = 1;
                    bodies = simRun(&c, P, L, D, d, &resetups, &early, &predicted);
                    CHECK(bodies != 0 && bodies <= P * L + 1 + P * want,
                          "P=%u L=%u D=%u depth %u, level-major order: %u bodies", P, L, D, d, bodies);
                }
    /* the bench region of issue 13: 9 passes, no child range, depth 2 configured: 10 bodies, not 18 */
    {
        uint32_t predicted;
        int resetups, early;
        c.levelMajor = 0;
        c.ignoreSameSession = 0;
        CHECK(simRun(&c, 9, 2, 2, 1, &resetups, &early, &predicted) == 10 && resetups == 1 && !early,
              "9 passes, flat region: not 10 bodies");
        CHECK(simRun(&c, 2, 2, 2, 1, &resetups, &early, &predicted) == 3 && resetups == 0 && early,
              "roofline (2 passes), flat region: not 3 bodies stopping early");
        CHECK(simRun(&c, 1, 2, 2, 1, &resetups, &early, &predicted) == 1 && early, "1 pass, flat: not 1 body");
        CHECK(simRun(&c, 9, 1, 2, 1, &resetups, &early, &predicted) == 9 && resetups == 0,
              "9 passes, flat, level hint 1: not 9 bodies");
        CHECK(simRun(&c, 9, 1, 2, 2, &resetups, &early, &predicted) == 19 && resetups == 1,
              "9 passes, hint 1 but 2 levels now: not 1 + 18 bodies");
    }
    /* a runaway configuration is abandoned */
    {
        gpuinstPassPlan s;
        int step = GPUINST_PASS_NEXT;
        uint32_t i;
        gpuinstPassPlanInit(&s, 1000, 1, 1, 1);
        for (i = 0; i < 600 && step == GPUINST_PASS_NEXT; i++) step = gpuinstPassPlanStep(&s, 1, i + 1, 1, 0, 512);
        CHECK(step == GPUINST_PASS_ABANDON && s.total == 512, "runaway: step %d after %u bodies", step, s.total);
    }
}

int main(void)
{
    /* ---- selection ---- */
    /*                                  occurrences 1..20 */
    sel_case(NULL, "step",              "10000000000000000000");
    sel_case("", "anything",            "10000000000000000000");
    sel_case("step", "step",            "10000000000000000000");
    sel_case("step@3", "step",          "00100000000000000000");
    sel_case("step@3", "other",         "00000000000000000000"); /* no rule matches: never */
    sel_case("step@1,5,10-12", "step",  "10001000011100000000");
    sel_case("step@1,5,10:12", "step",  "10001000011100000000"); /* N:M = N-M, as GPUINST_CAPTURE */
    sel_case("step@every 5", "step",    "00001000010000100001");
    sel_case("step@%4", "step",         "00010001000100010001");
    sel_case("step@ 2 , every 10 ", "step", "01000000010000000001");
    sel_case("step@all", "step",        "11111111111111111111");
    sel_case("step@none;*@1", "step",   "00000000000000000000"); /* first matching rule decides */
    sel_case("step@none;*@1", "halo",   "10000000000000000000");
    sel_case("jacobi_*@2;*@none", "jacobi_step", "01000000000000000000");
    sel_case("jacobi_*@2;*@none", "halo", "00000000000000000000");
    sel_case("a?c@1-3 ; ; b*@all", "abc", "11100000000000000000");
    sel_case("a?c@1-3;b*@all", "bxyz",  "11111111111111111111");
    sel_case("[xy]z@7", "yz",           "00000010000000000000");
    CHECK(gpuinstSelectMatch(&sel, "yz", 7) == 1, "match");
    gpuinstSelectParse("s@every 1000000", &sel, NULL, 0);
    CHECK(gpuinstSelectMatch(&sel, "s", 3000000) == 1 && gpuinstSelectMatch(&sel, "s", 3000001) == 0, "big N");
    sel_bad("step@", "expected N");
    sel_bad("step@0", "count from 1");
    sel_bad("step@5-2", "M >= N");
    sel_bad("step@5:2", "M >= N");
    sel_bad("step@every", "after \"every\"");
    sel_bad("step@%0", "after \"every\"/\"%\"");
    sel_bad("step@1 2", "unexpected character");
    sel_bad("step@first", "expected N");
    sel_bad("@1", "empty region pattern");
    sel_bad(";;;", "no rule");
    sel_bad("step@99999999999999999999999", "expected N");
    {
        char big[1200];
        int i;
        big[0] = '\0';
        for (i = 0; i < 40; i++) strcat(big, "r@1;");
        sel_bad(big, "more than 32 rules");
        strcpy(big, "r@1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17");
        sel_bad(big, "more than 16 items");
    }

    /* ---- finalize: rules that selected nothing ---- */
    {
        /* "stepp" is a typo; "halo@10" outlives the 3 halos; "solve" never
         * ran; "*@none" is an exclusion (never reported); "step" selected */
        const char *spec = "stepp@1;halo@10;solve;step@2;*@none";
        const char *names[] = {"step", "halo"};
        uint64_t nocc[] = {5, 3}, dec[GPUINST_SELECT_MAX_RULES], selc[GPUINST_SELECT_MAX_RULES];
        char msg[480];
        int rule, k, r;
        memset(dec, 0, sizeof dec);
        memset(selc, 0, sizeof selc);
        CHECK(gpuinstSelectParse(spec, &sel, NULL, 0) == GPUINST_SUCCESS, "parse %s", spec);
        for (k = 0; k < 2; k++) {
            uint64_t o;
            for (o = 1; o <= nocc[k]; o++) {
                r = gpuinstSelectDecide(&sel, names[k], o, &rule);
                CHECK(rule >= 0, "%s decided by no rule", names[k]);
                if (rule >= 0) {
                    dec[rule]++;
                    selc[rule] += (uint64_t)r;
                }
            }
        }
        CHECK(dec[1] == 3 && selc[1] == 0 && dec[3] == 5 && selc[3] == 1 && dec[0] == 0 && dec[2] == 0,
              "decided %llu %llu %llu %llu", (unsigned long long)dec[0], (unsigned long long)dec[1],
              (unsigned long long)dec[2], (unsigned long long)dec[3]);
        CHECK(gpuinstSelectDecide(&sel, "other", 1, &rule) == 0 && rule == 4, "exclusion rule decides: %d", rule);
        r = gpuinstSelectReport(spec, &sel, dec, selc, names, nocc, 2, msg, sizeof msg);
        CHECK(r == 1, "nothing reported");
        CHECK(strstr(msg, "rule 1 \"stepp\" (no region of that name") != NULL, "typo not named: %s", msg);
        CHECK(strstr(msg, "rule 2 \"halo\" (selects none of the 3 occurrences") != NULL, "halo@10: %s", msg);
        CHECK(strstr(msg, "rule 3 \"solve\"") != NULL, "solve: %s", msg);
        CHECK(strstr(msg, "rule 4") == NULL && strstr(msg, "rule 5") == NULL, "a rule that selected, or an "
              "exclusion, reported: %s", msg);
        CHECK(strstr(msg, "step (5), halo (3)") != NULL, "regions that ran: %s", msg);
        /* everything selected something: nothing to say */
        CHECK(gpuinstSelectParse("step@2;*@none", &sel, NULL, 0) == GPUINST_SUCCESS, "parse");
        memset(dec, 0, sizeof dec);
        memset(selc, 0, sizeof selc);
        dec[0] = 5;
        selc[0] = 1;
        CHECK(gpuinstSelectReport("step@2;*@none", &sel, dec, selc, names, nocc, 1, msg, sizeof msg) == 0 &&
                  msg[0] == '\0',
              "false report: %s", msg);
        /* no region ran at all */
        memset(dec, 0, sizeof dec);
        memset(selc, 0, sizeof selc);
        CHECK(gpuinstSelectReport("step@2;*@none", &sel, dec, selc, names, nocc, 0, msg, sizeof msg) == 1 &&
                  strstr(msg, "regions that ran: none") != NULL,
              "no region: %s", msg);
        /* a tiny buffer is cut, never overrun */
        CHECK(gpuinstSelectReport("step@2;*@none", &sel, dec, selc, names, nocc, 0, msg, 8) == 1 &&
                  strlen(msg) == 7,
              "cut: %s", msg);
    }

    passPlanTests();

    /* ---- metric lists ---- */
    metrics_case(NULL, 10, "gpu__time_duration.sum", "sm__warps_launched.sum"); /* time,memory,instructions */
    metrics_case("dram__bytes_read.sum", 1, "dram__bytes_read.sum", "dram__bytes_read.sum");
    metrics_case(" a.sum , b.max;c ", 3, "a.sum", "c");
    metrics_case("memory,dram__bytes_read.sum,memory", 4, "dram__bytes_read.sum", "l1tex__t_bytes.sum"); /* dedup */
    metrics_case("roofline", 11, "gpu__time_duration.sum", "sm__sass_thread_inst_executed_op_hfma_pred_on.sum");
    metrics_case("time,roofline", 13, "gpu__time_duration.sum", "sm__sass_thread_inst_executed_op_hfma_pred_on.sum");
    {
        gpuinstMetricList l;
        char err[512];
        CHECK(gpuinstMetricsParse("dram bytes!", &l, err, sizeof err) == GPUINST_ERROR_INVALID_ARGUMENT, "bad char");
        CHECK(strstr(err, "\"bytes!\" is not a metric name") != NULL, "message: %s", err);
        CHECK(gpuinstMetricsParse(" , ;", &l, err, sizeof err) == GPUINST_ERROR_INVALID_ARGUMENT, "empty");
        CHECK(strstr(err, "names no metric") != NULL, "message: %s", err);
    }

    /* ---- edit distance and suggestions ---- */
    CHECK(gpuinstEditDistance("kitten", "sitting", 10) == 3, "kitten");
    CHECK(gpuinstEditDistance("", "abc", 10) == 3, "empty");
    CHECK(gpuinstEditDistance("same", "same", 0) == 0, "same");
    CHECK(gpuinstEditDistance("abcdef", "uvwxyz", 2) == 3, "bounded: max + 1");
    {
        const char *cands[] = {"dram__bytes_read", "dram__bytes_write", "dram__bytes", "lts__t_bytes",
                               "sm__inst_executed", "dram__cycles_elapsed"};
        const char *out[GPUINST_NEAREST_MAX];
        uint32_t n = gpuinstNearestNames("dram__bytes_raed", cands, 6, out, 3);
        CHECK(n == 3, "3 suggestions, got %u", n);
        CHECK(n > 0 && strcmp(out[0], "dram__bytes_read") == 0, "nearest is dram__bytes_read, got %s", n ? out[0] : "-");
        n = gpuinstNearestNames("sm__inst_exec", cands, 6, out, 1);
        CHECK(n == 1 && strcmp(out[0], "sm__inst_executed") == 0, "sm__inst_executed");
        n = gpuinstNearestNames("qqqqqqqqqqqqqqqqqqqqqq", cands, 6, out, 3);
        CHECK(n == 0, "nothing close: %u", n);
    }
    if (failures == 0) printf("test_parse: all checks passed\n");
    return failures != 0;
}
