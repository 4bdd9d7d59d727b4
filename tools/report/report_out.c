/*
 * report_out.c -- renders gpuinst-report's tables as aligned text, JSON
 * or CSV (see report.h).
 */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include "report.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

RTab *rtabNew(const char *id, const char *title)
{
    RTab *t = (RTab *)calloc(1, sizeof *t);
    if (t == NULL) return NULL;
    t->id = id;
    snprintf(t->title, sizeof t->title, "%s", title);
    return t;
}

void rtabCol(RTab *t, const char *id, const char *label, int kind)
{
    if (t->ncols >= RTAB_MAXCOLS) return;
    t->cols[t->ncols].id = id;
    t->cols[t->ncols].label = label;
    t->cols[t->ncols].kind = kind;
    t->cols[t->ncols].text_hidden = 0;
    t->cols[t->ncols].data_hidden = 0;
    t->ncols++;
}

size_t rtabRow(RTab *t)
{
    size_t i;
    if (t->nrows == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 16;
        RCell *c = (RCell *)realloc(t->cells, cap * RTAB_MAXCOLS * sizeof *c);
        if (c == NULL) return t->nrows ? t->nrows - 1 : 0; /* overwrite: out of memory */
        t->cells = c;
        t->cap = cap;
    }
    for (i = 0; i < RTAB_MAXCOLS; i++) {
        t->cells[t->nrows * RTAB_MAXCOLS + i].s = NULL;
        t->cells[t->nrows * RTAB_MAXCOLS + i].v = NAN;
    }
    return t->nrows++;
}

static RCell *cell(const RTab *t, size_t r, int c)
{
    return &t->cells[r * RTAB_MAXCOLS + (size_t)c];
}

void rtabS(RTab *t, size_t row, int col, const char *s)
{
    RCell *c = cell(t, row, col);
    size_t n = strlen(s ? s : "");
    free(c->s);
    c->s = (char *)malloc(n + 1);
    if (c->s) memcpy(c->s, s ? s : "", n + 1);
}

void rtabV(RTab *t, size_t row, int col, double v)
{
    cell(t, row, col)->v = v;
}

void rtabNote(RTab *t, const char *fmt, ...)
{
    va_list ap;
    size_t n = strlen(t->note);
    if (n && n + 2 < sizeof t->note) {
        t->note[n++] = ' ';
        t->note[n] = '\0';
    }
    va_start(ap, fmt);
    vsnprintf(t->note + n, sizeof t->note - n, fmt, ap);
    va_end(ap);
}

void rtabFree(RTab *t)
{
    size_t i;
    if (t == NULL) return;
    for (i = 0; i < t->nrows * RTAB_MAXCOLS; i++) free(t->cells[i].s);
    free(t->cells);
    free(t);
}

/* ---- text ------------------------------------------------------------------ */

/* Per column scale for the text rendering: divisor and unit name. */
typedef struct Scale {
    double div;
    const char *unit;
} Scale;

static Scale colScale(const RTab *t, int c)
{
    Scale s = {1.0, ""};
    double mx = 0;
    size_t r;
    int kind = t->cols[c].kind;
    for (r = 0; r < t->nrows; r++) {
        double v = fabs(cell(t, r, c)->v);
        if (!isnan(v) && v > mx) mx = v;
    }
    if (kind == RK_NS) {
        if (mx >= 1e10) { s.div = 1e9; s.unit = "s"; }
        else if (mx >= 1e7) { s.div = 1e6; s.unit = "ms"; }
        else if (mx >= 1e4) { s.div = 1e3; s.unit = "us"; }
        else s.unit = "ns";
    } else if (kind == RK_BYTES) {
        if (mx >= 10.0 * 1073741824.0) { s.div = 1073741824.0; s.unit = "GiB"; }
        else if (mx >= 10.0 * 1048576.0) { s.div = 1048576.0; s.unit = "MiB"; }
        else if (mx >= 10.0 * 1024.0) { s.div = 1024.0; s.unit = "KiB"; }
        else s.unit = "B";
    } else if (kind == RK_PCT) {
        s.unit = "%";
    }
    return s;
}

static void fmtCell(const RTab *t, size_t r, int c, Scale sc, char *buf, size_t n)
{
    const RCell *x = cell(t, r, c);
    int kind = t->cols[c].kind;
    double v;
    if (kind == RK_STR) {
        snprintf(buf, n, "%s", x->s ? x->s : "");
        return;
    }
    if (isnan(x->v)) {
        snprintf(buf, n, "-");
        return;
    }
    v = x->v / sc.div;
    if (kind == RK_INT) snprintf(buf, n, "%.0f", v);
    else if (kind == RK_RATIO) snprintf(buf, n, "%.2f", v);
    else if (kind == RK_PCT) snprintf(buf, n, "%.1f", v);
    else if (v == 0) snprintf(buf, n, "0");
    else if (kind == RK_F64 && (fabs(v) >= 1e6 || fabs(v) < 1e-3)) snprintf(buf, n, "%.3e", v);
    else if (fabs(v) >= 1000 || (kind != RK_F64 && sc.div == 1.0)) snprintf(buf, n, "%.0f", v);
    else if (fabs(v) >= 100) snprintf(buf, n, "%.1f", v);
    else if (fabs(v) >= 10) snprintf(buf, n, "%.2f", v);
    else snprintf(buf, n, "%.3f", v);
}

void rtabCellText(const RTab *t, size_t row, int col, char *buf, size_t n)
{
    fmtCell(t, row, col, colScale(t, col), buf, n);
}

const char *rtabColUnit(const RTab *t, int col)
{
    return colScale(t, col).unit;
}

/* Width in characters of UTF-8 text (counts code points). */
static size_t u8len(const char *s)
{
    size_t n = 0;
    for (; *s; s++)
        if (((unsigned char)*s & 0xC0) != 0x80) n++;
    return n;
}

/* Prints s cut to w characters (".." marks a cut), padded to w. */
static void putCut(FILE *out, const char *s, size_t w, int right)
{
    size_t len = u8len(s), i = 0, chars = 0;
    if (len <= w) {
        if (right) fprintf(out, "%*s%s", (int)(w - len), "", s);
        else fprintf(out, "%s%*s", s, (int)(w - len), "");
        return;
    }
    if (w < 3) {
        fprintf(out, "%.*s", (int)w, s);
        return;
    }
    while (s[i] && chars < w - 2) {
        i++;
        while (((unsigned char)s[i] & 0xC0) == 0x80) i++;
        chars++;
    }
    fprintf(out, "%.*s..", (int)i, s);
}

/* Text lines are built in memory so trailing blanks can be cut. */
static void printText(FILE *out, const RTab *t, int width);
static void printTextTrim(FILE *out, const RTab *t, int width)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&buf, &len);
    if (mem == NULL) {
        printText(out, t, width);
        return;
    }
    printText(mem, t, width);
    fclose(mem);
    {
        char *line = buf, *nl;
        while (line && *line) {
            size_t n;
            nl = strchr(line, '\n');
            n = nl ? (size_t)(nl - line) : strlen(line);
            while (n > 0 && line[n - 1] == ' ') n--;
            fprintf(out, "%.*s\n", (int)n, line);
            line = nl ? nl + 1 : NULL;
        }
    }
    free(buf);
}

static void printText(FILE *out, const RTab *t, int width)
{
    size_t w[RTAB_MAXCOLS];
    Scale sc[RTAB_MAXCOLS];
    size_t r, total = 0;
    int c, nstr = 0;
    char buf[512];

    fprintf(out, "\n== %s ==\n", t->title);
    if (t->note[0]) {
        /* wrap the note at the line width */
        const char *p = t->note;
        while (*p) {
            size_t n = strlen(p), cut = n;
            if (n > (size_t)width) {
                cut = (size_t)width;
                while (cut > 0 && p[cut] != ' ') cut--;
                if (cut == 0) cut = (size_t)width;
            }
            fprintf(out, "%.*s\n", (int)cut, p);
            p += cut;
            while (*p == ' ') p++;
        }
    }
    if (t->nrows == 0) return;
    for (c = 0; c < t->ncols; c++) {
        size_t uw;
        sc[c] = colScale(t, c);
        if (t->cols[c].text_hidden) {
            w[c] = 0;
            continue;
        }
        w[c] = u8len(t->cols[c].label);
        uw = strlen(sc[c].unit);
        if (uw > w[c]) w[c] = uw;
        for (r = 0; r < t->nrows; r++) {
            fmtCell(t, r, c, sc[c], buf, sizeof buf);
            if (u8len(buf) > w[c]) w[c] = u8len(buf);
        }
        if (t->cols[c].kind == RK_STR) nstr++;
        total += w[c] + (total ? 2 : 0);
    }
    /* A wrapping last column takes what is left of the line. */
    if (t->wrap_last && t->cols[t->ncols - 1].kind == RK_STR && total > (size_t)width) {
        size_t rest = total - w[t->ncols - 1];
        size_t lw = rest + 20 < (size_t)width ? (size_t)width - rest : 20;
        total = rest + lw;
        w[t->ncols - 1] = lw;
        nstr--;
    }
    /* Too wide: shrink the string columns, widest first, to at least 8. */
    while (total > (size_t)width && nstr > 0) {
        int widest = -1;
        for (c = 0; c < t->ncols; c++)
            if (t->cols[c].kind == RK_STR && w[c] > 8 && (widest < 0 || w[c] > w[widest]) &&
                !(t->wrap_last && c == t->ncols - 1))
                widest = c;
        if (widest < 0) break;
        w[widest]--;
        total--;
    }
    {
        int sep = 0;
        for (c = 0; c < t->ncols; c++) {
            if (t->cols[c].text_hidden) continue;
            if (sep++) fputs("  ", out);
            putCut(out, t->cols[c].label, w[c], t->cols[c].kind != RK_STR);
        }
        fputc('\n', out);
        sep = 0;
        for (c = 0; c < t->ncols; c++)
            if (!t->cols[c].text_hidden && sc[c].unit[0]) sep = 1;
        if (sep) {
            sep = 0;
            for (c = 0; c < t->ncols; c++) {
                if (t->cols[c].text_hidden) continue;
                if (sep++) fputs("  ", out);
                putCut(out, sc[c].unit, w[c], t->cols[c].kind != RK_STR);
            }
            fputc('\n', out);
        }
    }
    for (r = 0; r < t->nrows; r++) {
        int sep = 0;
        size_t indent = 0;
        for (c = 0; c < t->ncols; c++) {
            if (t->cols[c].text_hidden) continue;
            if (sep++) {
                fputs("  ", out);
                indent += 2;
            }
            fmtCell(t, r, c, sc[c], buf, sizeof buf);
            if (t->wrap_last && c == t->ncols - 1 && t->cols[c].kind == RK_STR) {
                /* word-wrap at w[c], continuation lines under the column */
                const char *p = buf;
                int firstl = 1;
                while (*p) {
                    size_t n = strlen(p), cut = n;
                    if (n > w[c]) {
                        cut = w[c];
                        while (cut > 0 && p[cut] != ' ') cut--;
                        if (cut == 0) cut = w[c];
                    }
                    if (!firstl) fprintf(out, "\n%*s", (int)indent, "");
                    fprintf(out, "%.*s", (int)cut, p);
                    firstl = 0;
                    p += cut;
                    while (*p == ' ') p++;
                }
                continue;
            }
            indent += w[c];
            putCut(out, buf, w[c], t->cols[c].kind != RK_STR);
        }
        fputc('\n', out);
    }
}

/* ---- JSON ------------------------------------------------------------------ */

static void jsonStr(FILE *out, const char *s)
{
    fputc('"', out);
    for (; s && *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\') fprintf(out, "\\%c", ch);
        else if (ch == '\n') fputs("\\n", out);
        else if (ch == '\t') fputs("\\t", out);
        else if (ch < 0x20) fprintf(out, "\\u%04x", ch);
        else fputc(ch, out);
    }
    fputc('"', out);
}

static void jsonNum(FILE *out, double v, int kind)
{
    if (isnan(v) || isinf(v)) fputs("null", out);
    else if ((kind == RK_INT || kind == RK_NS || kind == RK_BYTES) && v == floor(v) && fabs(v) < 9e15)
        fprintf(out, "%.0f", v);
    else fprintf(out, "%.17g", v);
}

static void printJson(FILE *out, const RTab *t, int first)
{
    size_t r;
    int c;
    fprintf(out, "%s\n  ", first ? "" : ",");
    jsonStr(out, t->id);
    fputs(": {\"title\": ", out);
    jsonStr(out, t->title);
    fputs(", \"note\": ", out);
    jsonStr(out, t->note);
    fputs(", \"columns\": [", out);
    for (c = 0, r = 0; c < t->ncols; c++) {
        static const char *const kinds[] = {"string", "count", "ns", "number", "ratio", "bytes", "percent"};
        if (t->cols[c].data_hidden) continue;
        fprintf(out, "%s{\"id\": ", r++ ? ", " : "");
        jsonStr(out, t->cols[c].id);
        fprintf(out, ", \"unit\": \"%s\"}", kinds[t->cols[c].kind]);
    }
    fputs("],\n   \"rows\": [", out);
    for (r = 0; r < t->nrows; r++) {
        fprintf(out, "%s\n    {", r ? "," : "");
        int sep = 0;
        for (c = 0; c < t->ncols; c++) {
            const RCell *x = cell(t, r, c);
            if (t->cols[c].data_hidden) continue;
            if (sep++) fputs(", ", out);
            jsonStr(out, t->cols[c].id);
            fputs(": ", out);
            if (t->cols[c].kind == RK_STR) jsonStr(out, x->s ? x->s : "");
            else jsonNum(out, x->v, t->cols[c].kind);
        }
        fputc('}', out);
    }
    fputs("]}", out);
}

/* ---- CSV ------------------------------------------------------------------- */

static void csvStr(FILE *out, const char *s)
{
    if (s && strpbrk(s, ",\"\n\r") != NULL) {
        fputc('"', out);
        for (; *s; s++) {
            if (*s == '"') fputc('"', out);
            fputc(*s, out);
        }
        fputc('"', out);
    } else {
        fputs(s ? s : "", out);
    }
}

static void printCsv(FILE *out, const RTab *t, int header_line)
{
    size_t r;
    int c;
    int sep = 0;
    if (header_line) fprintf(out, "# %s: %s\n", t->id, t->title);
    for (c = 0; c < t->ncols; c++) {
        if (t->cols[c].data_hidden) continue;
        if (sep++) fputc(',', out);
        fputs(t->cols[c].id, out);
    }
    fputc('\n', out);
    for (r = 0; r < t->nrows; r++) {
        sep = 0;
        for (c = 0; c < t->ncols; c++) {
            const RCell *x = cell(t, r, c);
            if (t->cols[c].data_hidden) continue;
            if (sep++) fputc(',', out);
            if (t->cols[c].kind == RK_STR) csvStr(out, x->s);
            else if (!isnan(x->v)) {
                if (x->v == floor(x->v) && fabs(x->v) < 9e15) fprintf(out, "%.0f", x->v);
                else fprintf(out, "%.17g", x->v);
            }
        }
        fputc('\n', out);
    }
    if (header_line) fputc('\n', out);
}

void reportPrint(FILE *out, int format, RTab **tables, int n, const char *only, int width,
                 const char *file)
{
    int i, first = 1;
    if (format == OUT_JSON) {
        fputs("{\"file\": ", out);
        jsonStr(out, file);
        fputs(", \"tables\": {", out);
    }
    for (i = 0; i < n; i++) {
        const RTab *t = tables[i];
        if (t == NULL) continue;
        if (only && strcmp(only, t->id) != 0) continue;
        if (format == OUT_TEXT) {
            if (t->text_hidden && !only) continue;
            printTextTrim(out, t, width);
        } else if (format == OUT_JSON) {
            printJson(out, t, first);
        } else {
            printCsv(out, t, only == NULL);
        }
        first = 0;
    }
    if (format == OUT_JSON) fputs("\n}}\n", out);
}
