/*
 * report.h -- gpuinst-report's result tables and their three renderings.
 *
 * Every section of the report builds RTab tables (typed columns, rows of
 * cells); report_out.c prints them as aligned text (100 columns), JSON or
 * CSV.  Values are kept in base units (ns, bytes, counts); only the text
 * rendering scales them (us/ms/s, KiB/MiB/GiB) per column.
 */
#ifndef GPUINST_REPORT_H
#define GPUINST_REPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum { RK_STR = 0, RK_INT, RK_NS, RK_F64, RK_RATIO, RK_BYTES, RK_PCT };

typedef struct RCol {
    const char *id;    /* JSON key / CSV header (snake_case, unit suffix) */
    const char *label; /* text header */
    int kind;
    int text_hidden; /* left out of the text rendering only */
    int data_hidden; /* left out of JSON and CSV (a text-only label) */
} RCol;

typedef struct RCell {
    char *s;   /* RK_STR (malloc'ed) */
    double v;  /* other kinds; NaN = no value */
} RCell;

#define RTAB_MAXCOLS 16
typedef struct RTab {
    const char *id;
    char title[160];
    char note[600];   /* why it is empty, or what the numbers mean */
    int text_hidden;  /* text mode leaves it out unless asked (--table, --per-rank) */
    int wrap_last;    /* text: the last column wraps onto further lines instead of being cut */
    int ncols;
    RCol cols[RTAB_MAXCOLS];
    size_t nrows, cap;
    RCell *cells;
} RTab;

RTab *rtabNew(const char *id, const char *title);
void rtabCol(RTab *t, const char *id, const char *label, int kind);
/* Starts a new row; then set its cells with rtabS/rtabV by column index. */
size_t rtabRow(RTab *t);
void rtabS(RTab *t, size_t row, int col, const char *s);
void rtabV(RTab *t, size_t row, int col, double v);
void rtabNote(RTab *t, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
void rtabFree(RTab *t);

/* A cell as the text rendering shows it (values scaled per column), and
 * the column's unit in that rendering ("" none): report_out.c. */
void rtabCellText(const RTab *t, size_t row, int col, char *buf, size_t n);
const char *rtabColUnit(const RTab *t, int col);

/* One self-contained HTML page: every table and inline SVG charts
 * (report_html.c). */
void reportHtml(FILE *out, RTab **tables, int n, const char *file);

enum { OUT_TEXT = 0, OUT_JSON, OUT_CSV };
/* Prints tables[0..n) in the chosen format; `only` (or NULL) keeps one
 * table id; `width` is the text line width. */
void reportPrint(FILE *out, int format, RTab **tables, int n, const char *only, int width,
                 const char *file);

#endif
