/*
 * test_parse.c -- the range profiler's parsers, no CUPTI needed:
 * GPUINST_PROFILE selection (syntax, errors, matching, what finalize says
 * about rules that never selected anything), metric lists and named sets,
 * edit distance and nearest-name suggestions.
 */
#include "gpuinstInt.h"
#include "profilerInt.h"

static int failures;
#define CHECK(c, ...)                                                                  \
    do {                                                                               \
        if (!(c)) {                                                                    \
            fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #c);      \
            fprintf(stderr, __VA_ARGS__);                                              \
            fprintf(stderr, "\n");                                                     \
            failures++;                                                                \
        }                                                                              \
    } while (0)

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

    /* ---- the passes of levels the body lacks are skipped ----
     * CUPTI's user replay simulated: P passes per nesting level, levels in
     * increasing order; cuptiRangeProfilerStop reports the next pass's
     * level (next = 1) or the one just done (next = 0).  A body of depth d
     * (d < L) needs the P x d passes of its levels: never fewer (values
     * incomplete), with "next" exactly those, with "done" one more at most;
     * d >= L runs every pass (P x L). */
    {
        uint32_t P, L, d, next;
        for (next = 0; next <= 1; next++)
            for (P = 1; P <= 9; P++)
                for (L = 1; L <= 4; L++)
                    for (d = 1; d <= 5; d++) {
                        uint32_t k, ran = 0, need = P * (d < L ? d : L);
                        for (k = 1; k <= P * L; k++) { /* pass k just ended */
                            uint32_t done_level = (k - 1) / P + 1, reported = next ? k / P + 1 : done_level;
                            ran = k;
                            if (k == P * L) break; /* CUPTI's last pass */
                            if (gpuinstProfLevelsDone(P, L, d, k, reported)) break;
                        }
                        CHECK(ran >= need && ran <= need + (next ? 0 : 1),
                              "P=%u L=%u depth %u (%s): %u passes, need %u", P, L, d,
                              next ? "next level reported" : "level done reported", ran, need);
                    }
        CHECK(!gpuinstProfLevelsDone(2, 2, 1, 1, 1), "stopped inside level 1");
        CHECK(!gpuinstProfLevelsDone(2, 2, 1, 2, 0), "reported level 0 (unknown) must not stop");
        CHECK(!gpuinstProfLevelsDone(0, 2, 1, 2, 2), "no pass count: no stop");
    }

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
