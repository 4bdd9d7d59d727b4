/*
 * gpuinst_report.c -- gpuinst-report: the answers a gpuinst file holds,
 * per rank and across ranks, without writing code.
 *
 *   gpuinst-report [--json | --csv | --html OUT] [--table ID] [--top N] [--per-rank]
 *                  [--sort incl|excl|count|name] [--width W] FILE
 *
 * Sections (docs/REPORT.md says what every number means): the run, ranks,
 * ranges by inclusive and exclusive time, GPU time per range, top kernels,
 * copies, MPI calls, metrics per profiled range, counter groups, what was
 * unavailable, and what was lost or dropped.  Every dataset is optional and
 * every member is read by name (h5tab.c), so the report works on files
 * from older or newer gpuinst versions and says what is absent.
 *
 * Exit status: 0 report printed; 1 the file cannot be read as a gpuinst
 * file; 2 bad command line.
 *
 * Files: this one parses the command line and runs the sections in order;
 * report_status.c (run, ranks, unavailable, losses), report_ranges.c,
 * report_gpu.c, report_mpi.c, report_metrics.c (metrics, counters) build
 * the tables; report_util.c holds what they share (report_int.h);
 * report_out.c renders text/JSON/CSV; h5tab.c reads members by name.
 */
#include "report_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define REPORT_VERSION "0.1.0"

/* ---- main --------------------------------------------------------------------------- */

static void tabProblem(const char *dataset, const char *msg)
{
    reportProblem(dataset, "%s", msg);
}

static void usage(FILE *o)
{
    fprintf(o,
            "usage: gpuinst-report [options] FILE\n"
            "Summarises a gpuinst HDF5 file: ranges (inclusive/exclusive time over ranks),\n"
            "GPU time per range, kernels, copies, MPI calls, metrics, counters, what was\n"
            "unavailable and what was lost.  docs/REPORT.md explains every number.\n"
            "  --json            all tables as one JSON object (values in ns, bytes, counts)\n"
            "  --csv             all tables as CSV blocks ('# id: title' line, header, rows)\n"
            "  --html OUT        one self-contained HTML page (tables and charts) to OUT ('-': stdout)\n"
            "  --table ID        only table ID (with --csv: plain CSV); IDs: run ranks ranges\n"
            "                    ranges_by_rank gpu_ranges kernels copies mpi metrics counters\n"
            "                    unavailable losses\n"
            "  --top N           rows in ranked tables (default 20; 0 = all)\n"
            "  --sort KEY        ranges order: incl (mean inclusive, default), excl, count, name\n"
            "  --per-rank        text: also print ranges_by_rank\n"
            "  --width W         text line width (default 100)\n"
            "  --version, -h/--help\n");
}

int main(int argc, char **argv)
{
    Ctx c;
    int fmt = OUT_TEXT, width = 100, perrank = 0, i, nt = 0, rc = 0;
    const char *only = NULL, *path = NULL, *html = NULL;
    RTab *tabs[16];
    RTab *ranges = NULL, *byrank = NULL, *granges = NULL, *kern = NULL, *copy = NULL, *mpi = NULL;
    memset(&c, 0, sizeof c);
    c.top = 20;
    for (i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--json") == 0) fmt = OUT_JSON;
        else if (strcmp(a, "--csv") == 0) fmt = OUT_CSV;
        else if (strcmp(a, "--per-rank") == 0) perrank = 1;
        else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(a, "--version") == 0) {
            printf("gpuinst-report %s (HDF5 %d.%d.%d)\n", REPORT_VERSION, H5_VERS_MAJOR, H5_VERS_MINOR,
                   H5_VERS_RELEASE);
            return 0;
        } else if (strcmp(a, "--html") == 0 && v) {
            html = v;
            i++;
        } else if (strcmp(a, "--table") == 0 && v) {
            only = v;
            i++;
        } else if (strcmp(a, "--top") == 0 && v) {
            c.top = atoi(v);
            i++;
        } else if (strcmp(a, "--width") == 0 && v) {
            width = atoi(v);
            if (width < 40) width = 40;
            i++;
        } else if (strcmp(a, "--sort") == 0 && v) {
            if (strcmp(v, "incl") == 0) c.sort = 0;
            else if (strcmp(v, "excl") == 0) c.sort = 1;
            else if (strcmp(v, "count") == 0) c.sort = 2;
            else if (strcmp(v, "name") == 0) c.sort = 3;
            else {
                fprintf(stderr, "gpuinst-report: --sort takes incl, excl, count or name\n");
                return 2;
            }
            i++;
        } else if (a[0] == '-' && a[1] != '\0') {
            fprintf(stderr, "gpuinst-report: unknown option or missing value: %s\n", a);
            usage(stderr);
            return 2;
        } else if (path == NULL) {
            path = a;
        } else {
            fprintf(stderr, "gpuinst-report: one file at a time (%s, %s)\n", path, a);
            return 2;
        }
    }
    if (path == NULL) {
        usage(stderr);
        return 2;
    }
    if (only) {
        static const char *const ids[] = {"run", "ranks", "ranges", "ranges_by_rank", "gpu_ranges", "kernels",
                                          "copies", "mpi", "metrics", "counters", "unavailable", "losses", NULL};
        int k, found = 0;
        for (k = 0; ids[k]; k++)
            if (strcmp(ids[k], only) == 0) found = 1;
        if (!found) {
            fprintf(stderr, "gpuinst-report: no table %s (see --help)\n", only);
            return 2;
        }
    }
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    reportFile = path;
    h5tabProblem = tabProblem;
    c.path = path;
    c.file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (c.file < 0) {
        fprintf(stderr, "gpuinst-report: cannot open %s as an HDF5 file\n", path);
        return 1;
    }
    if (H5Aexists(c.file, "format_version") <= 0 && H5Lexists(c.file, "/ranks", H5P_DEFAULT) <= 0) {
        fprintf(stderr, "gpuinst-report: %s is not a gpuinst file (no format_version attribute, no /ranks)\n",
                path);
        H5Fclose(c.file);
        return 1;
    }
    {
        char *fv = h5AttrStr(c.file, "format_version");
        if (fv != NULL && fv[0] != '1' && fv[0] != '2') {
            fprintf(stderr, "gpuinst-report: %s: format_version %s: this gpuinst-report reads versions 1.x and 2.x\n",
                    path, fv);
            free(fv);
            H5Fclose(c.file);
            return 1;
        }
        free(fv);
    }
    loadStrings(&c);
    countRanks(&c);
    c.rankMpiNs = (double *)xcalloc(c.nranks, sizeof(double), "per-rank totals");
    c.rankGpuNs = (double *)xcalloc(c.nranks, sizeof(double), "per-rank totals");
    sectionRanges(&c, &ranges, &byrank);
    mpi = sectionMpi(&c);
    sectionGpu(&c, &granges, &kern, &copy);
    fillRangeGpu(&c, byrank);
    if (perrank) byrank->text_hidden = 0;
    tabs[nt++] = sectionRun(&c);
    tabs[nt++] = sectionRanks(&c);
    tabs[nt++] = ranges;
    tabs[nt++] = byrank;
    tabs[nt++] = granges;
    tabs[nt++] = kern;
    tabs[nt++] = copy;
    tabs[nt++] = mpi;
    tabs[nt++] = sectionMetrics(&c);
    tabs[nt++] = sectionCounters(&c);
    tabs[nt++] = sectionUnavailable(&c);
    tabs[nt++] = sectionLosses(&c);
    if (html) {
        FILE *ho = strcmp(html, "-") == 0 ? stdout : fopen(html, "w");
        if (ho == NULL) {
            fprintf(stderr, "gpuinst-report: cannot write %s\n", html);
            rc = 1;
        } else {
            reportHtml(ho, tabs, nt, path);
            if (ho != stdout && fclose(ho) != 0) {
                fprintf(stderr, "gpuinst-report: cannot write %s\n", html);
                rc = 1;
            }
        }
    } else if (rc == 0) {
        reportPrint(stdout, fmt, tabs, nt, only, width, path);
    }
    for (i = 0; i < nt; i++) rtabFree(tabs[i]);
    free(c.rankMpiNs);
    free(c.rankGpuNs);
    free(c.rgpu);
    free(c.rgpuN);
    freeStrings(&c);
    u64Free(&c.rangeId);
    strFree(&c.rkeys);
    H5Fclose(c.file);
    return rc;
}

