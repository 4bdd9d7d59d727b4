/*
 * report_html.c -- gpuinst-report --html: one self-contained HTML file
 * (no external script, style sheet, font or image) with every table of the
 * report and bar charts drawn as inline SVG: time per rank (duration, MPI,
 * GPU), ranges (mean inclusive and exclusive time, min-max over ranks),
 * MPI time per call and kernels by total time.
 *
 * Sections: <section id="table-ID"> per table (IDs as --table), and
 * <section id="picture-NAME"> per chart.  The Python package
 * (gpuinst.html_report) adds its matplotlib pictures (timeline, lanes,
 * metrics, roofline) at the marker comment "gpuinst:pictures".
 */
#include "report.h"

#include <math.h>
#include <string.h>

static void esc(FILE *out, const char *s)
{
    for (; s && *s; s++) {
        switch (*s) {
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '&': fputs("&amp;", out); break;
        case '"': fputs("&quot;", out); break;
        default: fputc(*s, out);
        }
    }
}

static const RTab *findTab(RTab **tables, int n, const char *id)
{
    int i;
    for (i = 0; i < n; i++)
        if (tables[i] && strcmp(tables[i]->id, id) == 0) return tables[i];
    return NULL;
}

static int findCol(const RTab *t, const char *id)
{
    int c;
    for (c = 0; t && c < t->ncols; c++)
        if (strcmp(t->cols[c].id, id) == 0) return c;
    return -1;
}

static double val(const RTab *t, size_t r, int c)
{
    return c < 0 ? NAN : t->cells[r * RTAB_MAXCOLS + (size_t)c].v;
}

static const char *str(const RTab *t, size_t r, int c)
{
    const char *s = c < 0 ? NULL : t->cells[r * RTAB_MAXCOLS + (size_t)c].s;
    return s ? s : "";
}

/* One horizontal bar chart: per label up to 3 series (value, and a min-max
 * whisker when lo/hi are given), values in ns or plain units. */
typedef struct Bars {
    const char *title, *unit; /* unit: "ns" scales to us/ms/s */
    int nser;
    const char *ser[3];
    const char *color[3];
    size_t n;
    const char *label[40];
    double v[40][3], lo[40], hi[40]; /* lo/hi: NaN when none */
} Bars;

static void svgBars(FILE *out, const Bars *b, const char *id)
{
    double mx = 0, div = 1;
    const char *u = b->unit;
    size_t i;
    int s;
    const int lw = 230, pw = 560, rowh = 6 + 12 * b->nser, top = 34;
    int h = top + (int)b->n * rowh + 30;
    for (i = 0; i < b->n; i++) {
        for (s = 0; s < b->nser; s++)
            if (!isnan(b->v[i][s]) && b->v[i][s] > mx) mx = b->v[i][s];
        if (!isnan(b->hi[i]) && b->hi[i] > mx) mx = b->hi[i];
    }
    if (strcmp(u, "ns") == 0) {
        if (mx >= 1e9) { div = 1e9; u = "s"; }
        else if (mx >= 1e6) { div = 1e6; u = "ms"; }
        else if (mx >= 1e3) { div = 1e3; u = "us"; }
    }
    if (mx <= 0) mx = 1;
    fprintf(out, "<section id=\"picture-%s\"><h2>", id);
    esc(out, b->title);
    fprintf(out, "</h2>\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" role=\"img\">\n",
            lw + pw + 80, h);
    for (s = 0; s < b->nser; s++) {
        fprintf(out, "<rect x=\"%d\" y=\"6\" width=\"12\" height=\"12\" fill=\"%s\"/><text x=\"%d\" y=\"16\">",
                lw + 150 * s, b->color[s], lw + 150 * s + 16);
        esc(out, b->ser[s]);
        fputs("</text>\n", out);
    }
    for (i = 0; i < b->n; i++) {
        int y = top + (int)i * rowh;
        fprintf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">", lw - 6, y + rowh / 2 + 4);
        {
            char lab[40];
            snprintf(lab, sizeof lab, "%s", b->label[i]);
            if (strlen(b->label[i]) >= sizeof lab) strcpy(lab + sizeof lab - 4, "...");
            esc(out, lab);
        }
        fputs("</text>\n", out);
        for (s = 0; s < b->nser; s++) {
            double v = b->v[i][s];
            if (isnan(v) || v < 0) continue;
            fprintf(out, "<rect class=\"bar\" x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"11\" fill=\"%s\">"
                         "<title>%.4g %s</title></rect>\n",
                    lw, y + 3 + 12 * s, pw * v / mx, b->color[s], v / div, u);
        }
        if (!isnan(b->lo[i]) && !isnan(b->hi[i])) {
            double x0 = lw + pw * b->lo[i] / mx, x1 = lw + pw * b->hi[i] / mx;
            int yy = y + 3 + 5;
            fprintf(out, "<path d=\"M%.1f %dH%.1fM%.1f %dv6M%.1f %dv6\" stroke=\"#222\" fill=\"none\"/>\n", x0, yy,
                    x1, x0, yy - 3, x1, yy - 3);
        }
    }
    {
        int k;
        int y = top + (int)b->n * rowh + 4;
        fprintf(out, "<path d=\"M%d %dH%d\" stroke=\"#888\"/>\n", lw, y, lw + pw);
        for (k = 0; k <= 4; k++)
            fprintf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%.3g</text>\n", lw + pw * k / 4, y + 16,
                    mx * k / 4 / div);
        fprintf(out, "<text x=\"%d\" y=\"%d\">%s</text>\n", lw + pw + 10, y + 16, u);
    }
    fputs("</svg></section>\n", out);
}

static void charts(FILE *out, RTab **tables, int n)
{
    const RTab *t;
    Bars b;
    size_t i;
    /* time per rank */
    if ((t = findTab(tables, n, "ranks")) != NULL && t->nrows) {
        int cr = findCol(t, "rank"), cd = findCol(t, "duration_ns"), cm = findCol(t, "mpi_ns"),
            cg = findCol(t, "gpu_ns");
        memset(&b, 0, sizeof b);
        b.title = "Time per rank: run, MPI calls, GPU records";
        b.unit = "ns";
        b.nser = 3;
        b.ser[0] = "duration";
        b.ser[1] = "MPI time";
        b.ser[2] = "GPU time";
        b.color[0] = "#4c72b0";
        b.color[1] = "#d62728";
        b.color[2] = "#2ca02c";
        for (i = 0; i < t->nrows && b.n < 40; i++) {
            static char labs[40][24];
            snprintf(labs[b.n], sizeof labs[b.n], "rank %.0f", val(t, i, cr));
            b.label[b.n] = labs[b.n];
            b.v[b.n][0] = val(t, i, cd);
            b.v[b.n][1] = val(t, i, cm);
            b.v[b.n][2] = val(t, i, cg);
            b.lo[b.n] = b.hi[b.n] = NAN;
            b.n++;
        }
        svgBars(out, &b, "ranks");
    }
    /* ranges: mean inclusive and exclusive, min-max of inclusive over ranks */
    if ((t = findTab(tables, n, "ranges")) != NULL && t->nrows) {
        int cd = findCol(t, "domain"), cn = findCol(t, "name"), ci = findCol(t, "incl_mean_ns"),
            ce = findCol(t, "excl_mean_ns"), cl = findCol(t, "incl_min_ns"), ch = findCol(t, "incl_max_ns");
        static char labs[40][300];
        memset(&b, 0, sizeof b);
        b.title = "Ranges: mean time per rank (whisker: min-max inclusive over ranks)";
        b.unit = "ns";
        b.nser = 2;
        b.ser[0] = "inclusive";
        b.ser[1] = "exclusive";
        b.color[0] = "#8172b2";
        b.color[1] = "#ccb974";
        for (i = 0; i < t->nrows && b.n < 25; i++) {
            snprintf(labs[b.n], sizeof labs[b.n], "%s:%s", str(t, i, cd), str(t, i, cn));
            b.label[b.n] = labs[b.n];
            b.v[b.n][0] = val(t, i, ci);
            b.v[b.n][1] = val(t, i, ce);
            b.lo[b.n] = val(t, i, cl);
            b.hi[b.n] = val(t, i, ch);
            b.n++;
        }
        svgBars(out, &b, "ranges");
    }
    if ((t = findTab(tables, n, "mpi")) != NULL && t->nrows) {
        int cc = findCol(t, "call"), cm = findCol(t, "time_mean_ns"), cl = findCol(t, "time_min_ns"),
            ch = findCol(t, "time_max_ns");
        memset(&b, 0, sizeof b);
        b.title = "MPI: mean time per rank in each call (whisker: min-max over ranks)";
        b.unit = "ns";
        b.nser = 1;
        b.ser[0] = "mean per rank";
        b.color[0] = "#d62728";
        for (i = 0; i < t->nrows && b.n < 25; i++) {
            b.label[b.n] = str(t, i, cc);
            b.v[b.n][0] = val(t, i, cm);
            b.lo[b.n] = val(t, i, cl);
            b.hi[b.n] = val(t, i, ch);
            b.n++;
        }
        svgBars(out, &b, "mpi");
    }
    if ((t = findTab(tables, n, "kernels")) != NULL && t->nrows) {
        int cn = findCol(t, "name"), ct = findCol(t, "total_ns");
        memset(&b, 0, sizeof b);
        b.title = "Kernels: total time over all ranks";
        b.unit = "ns";
        b.nser = 1;
        b.ser[0] = "total";
        b.color[0] = "#2ca02c";
        for (i = 0; i < t->nrows && b.n < 25; i++) {
            b.label[b.n] = str(t, i, cn);
            b.v[b.n][0] = val(t, i, ct);
            b.lo[b.n] = b.hi[b.n] = NAN;
            b.n++;
        }
        svgBars(out, &b, "kernels");
    }
}

static const char *const STYLE =
    "body{font:14px/1.4 sans-serif;margin:0 2em 3em 2em;color:#222}h1{font-size:20px}"
    "h2{font-size:16px;margin-top:1.6em}table{border-collapse:collapse;font-size:12px}"
    "th,td{border:1px solid #ccc;padding:2px 6px}th{background:#eee;cursor:pointer}"
    "td.n{text-align:right;font-variant-numeric:tabular-nums}p.note{color:#555;max-width:70em}"
    "nav a{margin-right:1em}svg text{font:11px sans-serif}img{max-width:100%}";

/* Builds the table of contents and sorts a table by a clicked header. */
static const char *const SCRIPT =
    "(function(){var nav=document.getElementById('toc');"
    "document.querySelectorAll('section').forEach(function(s){var h=s.querySelector('h2');"
    "if(!h)return;var a=document.createElement('a');a.href='#'+s.id;a.textContent=h.textContent;"
    "nav.appendChild(a);});"
    "document.querySelectorAll('th').forEach(function(th){th.addEventListener('click',function(){"
    "var tb=th.closest('table').tBodies[0],i=th.cellIndex,rows=Array.from(tb.rows),"
    "d=th.dataset.dir=th.dataset.dir==='a'?'d':'a';rows.sort(function(x,y){"
    "var p=x.cells[i].dataset.v,q=y.cells[i].dataset.v,r=(p!==undefined&&q!==undefined)?p-q:"
    "x.cells[i].textContent.localeCompare(y.cells[i].textContent);return d==='a'?r:-r;});"
    "rows.forEach(function(r){tb.appendChild(r);});});});"
    "document.body.setAttribute('data-ready','1');})();";

void reportHtml(FILE *out, RTab **tables, int n, const char *file)
{
    int i;
    fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>gpuinst report: ", out);
    esc(out, file);
    fprintf(out, "</title><style>%s</style></head>\n<body>\n<h1>gpuinst report: ", STYLE);
    esc(out, file);
    fputs("</h1>\n<nav id=\"toc\"></nav>\n<main>\n", out);
    charts(out, tables, n);
    fputs("<!-- gpuinst:pictures -->\n", out);
    for (i = 0; i < n; i++) {
        const RTab *t = tables[i];
        size_t r;
        int c;
        if (t == NULL) continue;
        fprintf(out, "<section id=\"table-%s\"><h2>", t->id);
        esc(out, t->title);
        fputs("</h2>\n", out);
        if (t->note[0]) {
            fputs("<p class=\"note\">", out);
            esc(out, t->note);
            fputs("</p>\n", out);
        }
        if (t->nrows == 0) {
            fputs("</section>\n", out);
            continue;
        }
        fputs("<table><thead><tr>", out);
        for (c = 0; c < t->ncols; c++) {
            if (t->cols[c].data_hidden) continue;
            fputs("<th>", out);
            esc(out, t->cols[c].label);
            if (rtabColUnit(t, c)[0]) fprintf(out, " [%s]", rtabColUnit(t, c));
            fputs("</th>", out);
        }
        fputs("</tr></thead>\n<tbody>\n", out);
        for (r = 0; r < t->nrows; r++) {
            fputs("<tr>", out);
            for (c = 0; c < t->ncols; c++) {
                char buf[1024];
                double v = t->cells[r * RTAB_MAXCOLS + (size_t)c].v;
                if (t->cols[c].data_hidden) continue;
                rtabCellText(t, r, c, buf, sizeof buf);
                if (t->cols[c].kind == RK_STR) fputs("<td>", out);
                else if (isnan(v) || isinf(v)) fputs("<td class=\"n\">", out);
                else fprintf(out, "<td class=\"n\" data-v=\"%.17g\">", v);
                esc(out, buf);
                fputs("</td>", out);
            }
            fputs("</tr>\n", out);
        }
        fputs("</tbody></table></section>\n", out);
    }
    fprintf(out, "</main>\n<script>%s</script>\n</body></html>\n", SCRIPT);
}
