/*
 * gpuinst-metrics -- what the CUPTI profiler host API knows about a chip's
 * metrics, from the command line, with or without a GPU (issue 21).  A thin
 * front end of gpuinst's metric discovery API (src/gpuinst.h, "Metric
 * discovery"): everything it prints comes from those calls.
 *
 *   gpuinst-metrics                      the chip of each visible GPU
 *   gpuinst-metrics --chips              the chips this CUPTI supports
 *   gpuinst-metrics --chip GH100 --list [--type T] [--profiler range|pm] [--long]
 *   gpuinst-metrics --chip GH100 --describe dram__bytes.sum
 *   gpuinst-metrics --chip GH100 --passes roofline,dram__bytes_read.sum
 *   gpuinst-metrics --chip GH100 --validate LIST
 *   gpuinst-metrics --chip GA100,GH100,GB100 --sets [--markdown]
 *   gpuinst-metrics --chip GB100 --single-pass-sets [SET]
 * --json prints one JSON document instead of text.  Without --chip, the
 * commands that need one use the chips of the visible GPUs.
 * Exit status: 0 done, 1 a query failed (the reason on stderr), 2 usage.
 */
#include "gpuinst.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_CHIPS 64

static const char *prog = "gpuinst-metrics";

static const char *usageText =
    "usage: gpuinst-metrics [--chip NAME[,NAME...]] [--profiler range|pm] [--json] [COMMAND]\n"
    "commands (one):\n"
    "  (none)                    the chip of each visible GPU (needs the driver)\n"
    "  --chips                   the chips this CUPTI's profiler host API supports\n"
    "  --list [--type T] [--long] base metrics; T = counter|ratio|throughput|all (default all);\n"
    "                            --long adds type, unit, hardware unit, scope, description\n"
    "  --describe METRIC         properties and sub-metrics of METRIC (base or full name)\n"
    "  --submetrics METRIC       the sub-metric suffixes of METRIC\n"
    "  --passes LIST             passes LIST takes, per metric: alone, extra, one-pass group\n"
    "  --validate LIST           unknown names of LIST, each with its nearest valid names\n"
    "  --sets [--markdown]       gpuinst's named metric sets (GPUINST_METRICS) and their passes\n"
    "  --single-pass-sets [SET]  CUPTI's single-pass sets of the chip (CUPTI 13.2+), or SET's metrics\n"
    "  --help, --version\n"
    "LIST: metric names and gpuinst set names separated by commas (as GPUINST_METRICS).\n"
    "Without --chip, the chips of the visible GPUs; a chip name works on any machine.\n";

static int usage(const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "%s: ", prog);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n%s", usageText);
    return 2;
}

static int fail(int rc, const char *what)
{
    fprintf(stderr, "%s: %s: %s (%s)\n", prog, what, gpuinst_metrics_last_error(), gpuinst_status_string(rc));
    return 1;
}

/* ---- JSON output ----------------------------------------------------------------- */

static void jstr(const char *s)
{
    putchar('"');
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') printf("\\%c", c);
        else if (c == '\n') fputs("\\n", stdout);
        else if (c == '\t') fputs("\\t", stdout);
        else if (c == '\r') fputs("\\r", stdout);
        else if (c < 0x20) printf("\\u%04x", c);
        else putchar(c);
    }
    putchar('"');
}

/* Item i of a list: a JSON array element, or `text` (a printf format of one %s). */
static void item(int json, int32_t i, const char *s, const char *text)
{
    if (json) {
        if (i) fputs(", ", stdout);
        jstr(s);
    } else {
        printf(text, s);
    }
}

static const char *typeName(int32_t t)
{
    return t == GPUINST_METRIC_COUNTER ? "counter" : t == GPUINST_METRIC_RATIO ? "ratio"
           : t == GPUINST_METRIC_THROUGHPUT ? "throughput" : "all";
}

static const char *scopeName(int32_t s)
{
    return s == GPUINST_METRIC_SCOPE_CONTEXT ? "context" : s == GPUINST_METRIC_SCOPE_DEVICE ? "device" : "unknown";
}

static const char *profName(int32_t p)
{
    return p == GPUINST_PROFILER_PM_SAMPLING ? "pm" : "range";
}

/* ---- the chips to query ---------------------------------------------------------------- */

static const char *chips[MAX_CHIPS];
static int nchips;

/* --chip a,b,c (kept in order, duplicates dropped) */
static int addChips(char *arg)
{
    char *tok, *save = NULL;
    for (tok = strtok_r(arg, ",", &save); tok != NULL; tok = strtok_r(NULL, ",", &save)) {
        int i, dup = 0;
        if (tok[0] == '\0') continue;
        for (i = 0; i < nchips; i++)
            if (strcmp(chips[i], tok) == 0) dup = 1;
        if (dup) continue;
        if (nchips >= MAX_CHIPS) return usage("more than %d chips", MAX_CHIPS);
        chips[nchips++] = tok;
    }
    return 0;
}

/* No --chip: the chips of the visible GPUs. */
static int deviceChips(void)
{
    int32_t n = 0, d;
    int rc = gpuinst_metrics_device_count(&n);
    if (rc != GPUINST_SUCCESS) {
        fprintf(stderr, "%s: no --chip given and no GPU to take one from: %s\n"
                "  name a chip (--chip GH100; --chips lists them): every query works without a GPU\n",
                prog, gpuinst_metrics_last_error());
        return 1;
    }
    if (n == 0) {
        fprintf(stderr, "%s: no --chip given and no CUDA device visible; name a chip (--chip GH100; --chips lists "
                "them)\n", prog);
        return 1;
    }
    for (d = 0; d < n && nchips < MAX_CHIPS; d++) {
        const char *c;
        int i, dup = 0;
        if ((rc = gpuinst_metrics_device_chip(d, &c)) != GPUINST_SUCCESS) return fail(rc, "chip of a device");
        for (i = 0; i < nchips; i++)
            if (strcmp(chips[i], c) == 0) dup = 1;
        if (!dup) chips[nchips++] = c;
    }
    return 0;
}

/* ---- commands --------------------------------------------------------------------------- */

static int cmdDevices(int json)
{
    int32_t n = 0, d;
    int rc = gpuinst_metrics_device_count(&n);
    if (rc != GPUINST_SUCCESS) {
        fprintf(stderr, "%s: %s\n  (no GPU here: name a chip, e.g. %s --chip GH100 --list; --chips lists them)\n",
                prog, gpuinst_metrics_last_error(), prog);
        return 1;
    }
    if (json) printf("{\"devices\": [");
    for (d = 0; d < n; d++) {
        const char *c;
        if ((rc = gpuinst_metrics_device_chip(d, &c)) != GPUINST_SUCCESS) return fail(rc, "chip of a device");
        if (json) {
            printf("%s{\"device\": %d, \"chip\": ", d ? ", " : "", (int)d);
            jstr(c);
            putchar('}');
        } else {
            printf("device %d: %s\n", (int)d, c);
        }
    }
    if (json) printf("]}\n");
    else if (n == 0) printf("no CUDA device visible\n");
    return 0;
}

static int cmdChips(int json)
{
    int32_t n = 0, i;
    int rc = gpuinst_metrics_chip_count(&n);
    if (rc != GPUINST_SUCCESS) return fail(rc, "supported chips");
    if (json) printf("{\"chips\": [");
    for (i = 0; i < n; i++) {
        const char *c;
        gpuinst_metrics_chip(i, &c);
        item(json, i, c, "%s\n");
    }
    if (json) printf("]}\n");
    return 0;
}

static int cmdList(int json, int32_t prof, int32_t type, int lng)
{
    int k;
    if (json) printf("{\"profiler\": \"%s\", \"type\": \"%s\", \"chips\": [", profName(prof), typeName(type));
    for (k = 0; k < nchips; k++) {
        int32_t n = 0, i;
        int rc = gpuinst_metrics_count(chips[k], prof, type, &n);
        if (rc != GPUINST_SUCCESS) return fail(rc, chips[k]);
        if (json) {
            printf("%s{\"chip\": ", k ? ", " : "");
            jstr(chips[k]);
            printf(", \"metrics\": [");
        } else if (nchips > 1) {
            printf("# %s\n", chips[k]);
        }
        for (i = 0; i < n; i++) {
            const char *name, *desc = "", *unit = "", *hw = "";
            int32_t t = 0, s = GPUINST_METRIC_SCOPE_UNKNOWN;
            gpuinst_metrics_name(chips[k], prof, type, i, &name);
            if (lng && (rc = gpuinst_metrics_properties(chips[k], prof, name, &desc, &unit, &hw, &t, &s)) !=
                           GPUINST_SUCCESS)
                return fail(rc, name);
            if (!lng) {
                item(json, i, name, "%s\n");
            } else if (json) {
                printf("%s{\"name\": ", i ? ", " : "");
                jstr(name);
                printf(", \"type\": \"%s\", \"unit\": ", typeName(t));
                jstr(unit);
                printf(", \"hw_unit\": ");
                jstr(hw);
                printf(", \"scope\": \"%s\", \"description\": ", scopeName(s));
                jstr(desc);
                putchar('}');
            } else {
                printf("%-60s %-10s %-14s %-6s %-7s %s\n", name, typeName(t), unit[0] ? unit : "-", hw[0] ? hw : "-",
                       scopeName(s), desc);
            }
        }
        if (json) printf("]}");
    }
    if (json) printf("]}\n");
    return 0;
}

static int cmdDescribe(int json, int32_t prof, const char *metric, int subsOnly)
{
    int k;
    if (json) {
        printf("{\"profiler\": \"%s\", \"metric\": ", profName(prof));
        jstr(metric);
        printf(", \"chips\": [");
    }
    for (k = 0; k < nchips; k++) {
        const char *desc, *unit, *hw, *s;
        int32_t t, sc, n = 0, i;
        int rc = gpuinst_metrics_properties(chips[k], prof, metric, &desc, &unit, &hw, &t, &sc);
        if (rc != GPUINST_SUCCESS) return fail(rc, chips[k]);
        if ((rc = gpuinst_metrics_submetric_count(chips[k], prof, metric, &n)) != GPUINST_SUCCESS)
            return fail(rc, metric);
        if (json) {
            printf("%s{\"chip\": ", k ? ", " : "");
            jstr(chips[k]);
            printf(", \"description\": ");
            jstr(desc);
            printf(", \"type\": \"%s\", \"unit\": ", typeName(t));
            jstr(unit);
            printf(", \"hw_unit\": ");
            jstr(hw);
            printf(", \"scope\": \"%s\", \"submetrics\": [", scopeName(sc));
        } else if (subsOnly) {
            if (nchips > 1) printf("# %s\n", chips[k]);
        } else {
            printf("%s (%s, %s)\n", metric, chips[k], prof == GPUINST_PROFILER_PM_SAMPLING ? "PM sampling"
                                                                                          : "range profiler");
            printf("  description: %s\n  type:        %s\n  unit:        %s\n  hw unit:     %s\n", desc, typeName(t),
                   unit[0] ? unit : "(none)", hw[0] ? hw : "(none)");
            printf("  scope:       %s%s\n", scopeName(sc),
                   sc == GPUINST_METRIC_SCOPE_UNKNOWN ? " (this CUPTI does not report it: CUDA 13.1's and newer do)"
                                                      : "");
            printf("  sub-metrics: %d:", (int)n);
        }
        for (i = 0; i < n; i++) {
            gpuinst_metrics_submetric(chips[k], prof, metric, i, &s);
            item(json, i, s, subsOnly ? "%s\n" : " %s");
        }
        if (json) printf("]}");
        else if (!subsOnly) putchar('\n');
    }
    if (json) printf("]}\n");
    return 0;
}

static int cmdPasses(int json, int32_t prof, const char *list)
{
    int32_t n = 0, i;
    int k, rc = gpuinst_metrics_list_count(list, &n);
    if (rc != GPUINST_SUCCESS) return fail(rc, "metric list");
    if (json) {
        printf("{\"profiler\": \"%s\", \"list\": ", profName(prof));
        jstr(list);
        printf(", \"chips\": [");
    }
    for (k = 0; k < nchips; k++) {
        int32_t passes = 0, ngroups = 0, g;
        if ((rc = gpuinst_metrics_passes(chips[k], prof, list, &passes)) != GPUINST_SUCCESS) return fail(rc, chips[k]);
        for (i = 0; i < n; i++) {
            int32_t grp = 0;
            if ((rc = gpuinst_metrics_pass_plan(chips[k], prof, list, i, &grp, NULL, NULL)) != GPUINST_SUCCESS)
                return fail(rc, chips[k]);
            if (grp + 1 > ngroups) ngroups = grp + 1;
        }
        if (json) {
            printf("%s{\"chip\": ", k ? ", " : "");
            jstr(chips[k]);
            printf(", \"passes\": %d, \"metrics\": [", (int)passes);
        } else {
            printf("%s, %s: %d pass%s for %d metric%s\n", chips[k],
                   prof == GPUINST_PROFILER_PM_SAMPLING ? "PM sampling" : "range profiler", (int)passes,
                   passes == 1 ? "" : "es", (int)n, n == 1 ? "" : "s");
            printf("  %-64s %5s %5s %5s\n", "metric", "alone", "extra", "group");
        }
        for (i = 0; i < n; i++) {
            const char *name;
            int32_t grp, alone, extra;
            gpuinst_metrics_list_name(list, i, &name);
            gpuinst_metrics_pass_plan(chips[k], prof, list, i, &grp, &alone, &extra);
            if (json) {
                printf("%s{\"name\": ", i ? ", " : "");
                jstr(name);
                printf(", \"alone\": %d, \"extra\": %s, \"group\": %d}", (int)alone, extra ? "true" : "false", (int)grp);
            } else {
                printf("  %-64s %5d %5s %5d\n", name, (int)alone, extra ? "yes" : "-", (int)grp);
            }
        }
        if (json) printf("], \"groups\": [");
        else if (ngroups > 1) printf("  one-pass groups (profiled one by one: the passes shown each):\n");
        for (g = 0; g < ngroups; g++) {
            int32_t gp = 1, m = 0;
            for (i = 0; i < n; i++) {
                int32_t grp, alone;
                gpuinst_metrics_pass_plan(chips[k], prof, list, i, &grp, &alone, NULL);
                if (grp == g && alone > gp) gp = alone;
            }
            if (json) printf("%s{\"group\": %d, \"passes\": %d, \"metrics\": [", g ? ", " : "", (int)g, (int)gp);
            else if (ngroups > 1) printf("    group %d (%d pass%s):", (int)g, (int)gp, gp == 1 ? "" : "es");
            for (i = 0; i < n; i++) {
                const char *name;
                int32_t grp;
                gpuinst_metrics_pass_plan(chips[k], prof, list, i, &grp, NULL, NULL);
                if (grp != g) continue;
                gpuinst_metrics_list_name(list, i, &name);
                if (json || ngroups > 1) item(json, m++, name, " %s");
            }
            if (json) printf("]}");
            else if (ngroups > 1) putchar('\n');
        }
        if (json) printf("]}");
        else if (prof == GPUINST_PROFILER_RANGE && passes > 0)
            printf("  (a region with nested ranges, GPUINST_PROFILE_DEPTH=D, runs up to D x %d passes)\n", (int)passes);
        else if (passes > 1)
            printf("  (PM sampling takes lists of one pass only: sample one group at a time)\n");
    }
    if (json) printf("]}\n");
    return 0;
}

static int cmdValidate(int json, int32_t prof, const char *list)
{
    int32_t n = 0, i;
    int k, rc = gpuinst_metrics_list_count(list, &n), bad = 0;
    if (rc != GPUINST_SUCCESS) return fail(rc, "metric list");
    if (json) {
        printf("{\"profiler\": \"%s\", \"list\": ", profName(prof));
        jstr(list);
        printf(", \"chips\": [");
    }
    for (k = 0; k < nchips; k++) {
        int32_t unknown = 0, m = 0;
        rc = gpuinst_metrics_validate(chips[k], prof, list, &unknown);
        if (rc != GPUINST_SUCCESS && unknown == 0) return fail(rc, chips[k]);
        if (json) {
            printf("%s{\"chip\": ", k ? ", " : "");
            jstr(chips[k]);
            printf(", \"metrics\": %d, \"unknown\": [", (int)n);
        } else if (unknown == 0) {
            printf("%s: all %d metric%s known to the %s\n", chips[k], (int)n, n == 1 ? "" : "s",
                   prof == GPUINST_PROFILER_PM_SAMPLING ? "PM sampler" : "range profiler");
        }
        for (i = 0; i < n && unknown > 0; i++) {
            const char *name, *near;
            int32_t nn = 0, j;
            gpuinst_metrics_list_name(list, i, &name);
            if (gpuinst_metrics_properties(chips[k], prof, name, NULL, NULL, NULL, NULL, NULL) == GPUINST_SUCCESS)
                continue;
            gpuinst_metrics_nearest_count(chips[k], prof, name, &nn);
            if (json) {
                printf("%s{\"name\": ", m++ ? ", " : "");
                jstr(name);
                printf(", \"nearest\": [");
            } else {
                printf("%s: unknown metric %s; nearest valid names:", chips[k], name);
            }
            for (j = 0; j < nn; j++) {
                gpuinst_metrics_nearest(chips[k], prof, name, j, &near);
                item(json, j, near, j ? ", %s" : " %s");
            }
            if (json) printf("]}");
            else printf("%s\n", nn ? "" : " none close");
        }
        if (json) printf("]}");
        if (unknown > 0) bad = 1;
    }
    if (json) printf("]}\n");
    return bad;
}

static int cmdSets(int json, int32_t prof, int markdown)
{
    int32_t n = 0, i;
    int k, rc = gpuinst_metrics_set_count(&n);
    if (rc != GPUINST_SUCCESS) return fail(rc, "metric sets");
    if (markdown) {
        printf("| set | metrics |");
        for (k = 0; k < nchips; k++) printf(" passes (%s) |", chips[k]);
        printf("\n|---|---|");
        for (k = 0; k < nchips; k++) printf("---|");
        putchar('\n');
    } else if (json) {
        printf("{\"profiler\": \"%s\", \"sets\": [", profName(prof));
    }
    for (i = 0; i < n; i++) {
        const char *name, *metrics;
        gpuinst_metrics_set(i, &name, &metrics);
        if (markdown) {
            const char *p;
            printf("| `%s` | ", name);
            for (p = metrics; *p; p++) {
                if (*p == ',') fputs(", ", stdout);
                else putchar(*p);
            }
            printf(" |");
        } else if (json) {
            printf("%s{\"name\": ", i ? ", " : "");
            jstr(name);
            printf(", \"metrics\": [\"");
            for (const char *p = metrics; *p; p++) {
                if (*p == ',') fputs("\", \"", stdout);
                else putchar(*p);
            }
            printf("\"], \"passes\": {");
        } else {
            printf("%-13s %s\n", name, metrics);
        }
        for (k = 0; k < nchips; k++) {
            int32_t passes = 0;
            rc = gpuinst_metrics_passes(chips[k], prof, name, &passes);
            if (rc != GPUINST_SUCCESS && rc != GPUINST_ERROR_INVALID_ARGUMENT) return fail(rc, chips[k]);
            /* a set whose metrics a chip lacks: shown as such, not as an error */
            if (markdown) {
                if (rc == GPUINST_SUCCESS) printf(" %d |", (int)passes);
                else printf(" n/a |");
            } else if (json) {
                printf("%s", k ? ", " : "");
                jstr(chips[k]);
                if (rc == GPUINST_SUCCESS) printf(": %d", (int)passes);
                else printf(": null");
            } else {
                if (rc == GPUINST_SUCCESS) printf("    %-8s %d pass%s\n", chips[k], (int)passes, passes == 1 ? "" : "es");
                else printf("    %-8s n/a: %s\n", chips[k], gpuinst_metrics_last_error());
            }
        }
        if (markdown) putchar('\n');
        else if (json) printf("}}");
    }
    if (json) printf("]}\n");
    return 0;
}

static int cmdSinglePassSets(int json, const char *set)
{
    int k;
    if (json) printf("{\"chips\": [");
    for (k = 0; k < nchips; k++) {
        int32_t n = 0, i;
        int rc = set != NULL ? gpuinst_metrics_single_pass_set_metric_count(chips[k], set, &n)
                             : gpuinst_metrics_single_pass_set_count(chips[k], &n);
        if (rc != GPUINST_SUCCESS) return fail(rc, chips[k]);
        if (json) {
            printf("%s{\"chip\": ", k ? ", " : "");
            jstr(chips[k]);
            if (set != NULL) {
                fputs(", \"set\": ", stdout);
                jstr(set);
            }
            fputs(set != NULL ? ", \"metrics\": [" : ", \"sets\": [", stdout);
        } else if (nchips > 1) {
            printf("# %s\n", chips[k]);
        }
        for (i = 0; i < n; i++) {
            const char *s;
            if (set != NULL) gpuinst_metrics_single_pass_set_metric(chips[k], set, i, &s);
            else gpuinst_metrics_single_pass_set(chips[k], i, &s);
            item(json, i, s, "%s\n");
        }
        if (json) printf("]}");
    }
    if (json) printf("]}\n");
    return 0;
}

/* ---- main ---------------------------------------------------------------------------------- */

int main(int argc, char **argv)
{
    enum { NONE, CHIPS, LIST, DESCRIBE, SUBS, PASSES, VALIDATE, SETS, SPSETS } cmd = NONE;
    const char *arg = NULL;
    int32_t prof = GPUINST_PROFILER_RANGE, type = GPUINST_METRIC_ANY;
    int json = 0, lng = 0, markdown = 0, i, rc;
#define SETCMD(c)                                                                     \
    do {                                                                              \
        if (cmd != NONE) return usage("%s: one command at a time", argv[i]);          \
        cmd = (c);                                                                    \
    } while (0)
#define NEEDARG()                                                                     \
    do {                                                                              \
        if (i + 1 >= argc) return usage("%s needs an argument", argv[i]);             \
        arg = argv[++i];                                                              \
    } while (0)
    for (i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            fputs(usageText, stdout);
            return 0;
        } else if (strcmp(a, "--version") == 0) {
            printf("gpuinst-metrics %s\n", gpuinst_version());
            return 0;
        } else if (strcmp(a, "--json") == 0) {
            json = 1;
        } else if (strcmp(a, "--long") == 0) {
            lng = 1;
        } else if (strcmp(a, "--markdown") == 0) {
            markdown = 1;
        } else if (strcmp(a, "--chip") == 0) {
            if (i + 1 >= argc) return usage("--chip needs a name");
            if ((rc = addChips(argv[++i])) != 0) return rc;
        } else if (strcmp(a, "--profiler") == 0) {
            if (i + 1 >= argc) return usage("--profiler needs range or pm");
            a = argv[++i];
            if (strcmp(a, "range") == 0) prof = GPUINST_PROFILER_RANGE;
            else if (strcmp(a, "pm") == 0 || strcmp(a, "pmsampling") == 0) prof = GPUINST_PROFILER_PM_SAMPLING;
            else return usage("--profiler %s: say range or pm", a);
        } else if (strcmp(a, "--type") == 0) {
            if (i + 1 >= argc) return usage("--type needs counter, ratio, throughput or all");
            a = argv[++i];
            if (strcmp(a, "counter") == 0) type = GPUINST_METRIC_COUNTER;
            else if (strcmp(a, "ratio") == 0) type = GPUINST_METRIC_RATIO;
            else if (strcmp(a, "throughput") == 0) type = GPUINST_METRIC_THROUGHPUT;
            else if (strcmp(a, "all") == 0) type = GPUINST_METRIC_ANY;
            else return usage("--type %s: say counter, ratio, throughput or all", a);
        } else if (strcmp(a, "--chips") == 0) {
            SETCMD(CHIPS);
        } else if (strcmp(a, "--list") == 0) {
            SETCMD(LIST);
        } else if (strcmp(a, "--describe") == 0) {
            SETCMD(DESCRIBE);
            NEEDARG();
        } else if (strcmp(a, "--submetrics") == 0) {
            SETCMD(SUBS);
            NEEDARG();
        } else if (strcmp(a, "--passes") == 0) {
            SETCMD(PASSES);
            NEEDARG();
        } else if (strcmp(a, "--validate") == 0) {
            SETCMD(VALIDATE);
            NEEDARG();
        } else if (strcmp(a, "--sets") == 0) {
            SETCMD(SETS);
        } else if (strcmp(a, "--single-pass-sets") == 0) {
            SETCMD(SPSETS);
            if (i + 1 < argc && argv[i + 1][0] != '-') arg = argv[++i];
        } else {
            return usage("unknown argument \"%s\"", a);
        }
    }
    if (markdown && cmd != SETS) return usage("--markdown goes with --sets");
    if (markdown && json) return usage("--markdown or --json, not both");
    if (cmd == NONE) return nchips > 0 ? usage("--chip given but no command") : cmdDevices(json);
    if (cmd == CHIPS) return cmdChips(json);
    if (nchips == 0 && (rc = deviceChips()) != 0) return rc;
    switch (cmd) {
    case LIST: return cmdList(json, prof, type, lng);
    case DESCRIBE: return cmdDescribe(json, prof, arg, 0);
    case SUBS: return cmdDescribe(json, prof, arg, 1);
    case PASSES: return cmdPasses(json, prof, arg);
    case VALIDATE: return cmdValidate(json, prof, arg);
    case SETS: return cmdSets(json, prof, markdown);
    case SPSETS: return cmdSinglePassSets(json, arg);
    default: return usage("no command");
    }
}
