/*
 * report_int.h -- what the parts of gpuinst-report share: small maps, the
 * open file and its strings (Ctx), reading naming members, statistics over
 * ranks, and one function per report section (report_*.c).
 */
#ifndef GPUINST_REPORT_INT_H
#define GPUINST_REPORT_INT_H

#include "h5tab.h"
#include "report.h"

#include <stddef.h>
#include <stdint.h>

/* ---- maps (report_util.c) ----------------------------------------------------
 * U64Map: uint64 key -> size_t value.  StrMap: string -> index (keys owned,
 * kept in insertion order). */
typedef struct U64Map {
    uint64_t *keys;
    size_t *vals;
    unsigned char *used;
    size_t cap, n;
} U64Map;

typedef struct StrMap {
    char **keys; /* by index */
    size_t n, kcap;
    U64Map idx;  /* hash -> first index; collisions resolved by probing hash+1 */
} StrMap;

void u64Put(U64Map *m, uint64_t k, size_t v);
int u64Get(const U64Map *m, uint64_t k, size_t *v);
void u64Free(U64Map *m);
size_t strIndex(StrMap *m, const char *s);
void strFree(StrMap *m);

/* ---- the file ------------------------------------------------------------------- */
typedef struct Ctx {
    hid_t file;
    const char *path;
    uint32_t nranks;
    U64Map strs;       /* (rank << 32 | id) -> index in strv */
    const char **strv; /* the texts of /strings, by row (NULL: unusable row) */
    char *strbuf;      /* their storage */
    int top;           /* rows in "top" tables (0: all) */
    int sort;          /* ranges: 0 incl, 1 excl, 2 count, 3 name */
    /* ranges, filled by sectionRanges and used by the GPU section */
    StrMap rkeys;      /* "domain\x1fname" */
    U64Map rangeId;    /* (rank << 48 | thread << 32 | seq) -> key index */
    double *rgpu;      /* [key * nranks + rank] GPU ns attributed */
    double *rgpuN;     /* kernel + copy count attributed */
    int have_gpu_attr;
    /* per rank totals for the ranks table */
    double *rankMpiNs, *rankGpuNs;
    size_t badRank;   /* rows of the current table whose rank is not the file's (rankOk) */
    uint64_t badRankValue;
} Ctx;

/* The text of string id `id` of `rank` (/strings), "" for 0, NULL if unknown. */
const char *strLookup(const Ctx *c, uint32_t rank, uint64_t id);
/* Reads /strings in either layout: format 1 {rank, id, name str[W]}, format 2
 * {rank, id, length, offset} + /strings_text (u8), every offset and length
 * checked against /strings_text. */
void loadStrings(Ctx *c);
void countRanks(Ctx *c);
void freeStrings(Ctx *c);

/* ---- problems with the file ------------------------------------------------------
 * One line on stderr per problem ("gpuinst-report: FILE: /dataset: what"),
 * each said once. */
extern const char *reportFile;
void reportProblem(const char *dataset, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* 1 if rank r is a rank of the file (r < c->nranks); else counts the row,
 * said once per dataset (call rankSummary after the loop). */
int rankOk(Ctx *c, uint64_t r);
void rankSummary(Ctx *c, const char *dataset);
/* calloc that ends the program with one line when memory runs out. */
void *xcalloc(size_t n, size_t size, const char *what);

/* A naming member read for every row: a fixed string, a /strings id (when the
 * member's description says so), an enum name, else "member#value". */
typedef struct Names {
    const char **v;
    char *hold;
    char *fmt; /* "#id" texts for unresolved ids */
} Names;
int readNames(const Ctx *c, const h5tab *t, const char *member, const uint64_t *ranks, Names *out);
void namesFree(Names *n);
/* The first existing candidate member, read as uint64 (zeros when none: the
 * return is then NULL) or double (*out NULL when none). */
const char *readU64Any(const h5tab *t, const char *const *cands, uint64_t **out);
const char *readF64Any(const h5tab *t, const char *const *cands, double **out);
extern const char *const C_RANK[], *const C_START[], *const C_END[], *const C_NAME[], *const C_BYTES[];

/* ---- statistics over ranks --------------------------------------------------------- */
typedef struct Stat {
    double min, mean, max, imb; /* over all nranks ranks; imb = max/mean */
    int ranks;                  /* ranks with at least one row */
} Stat;
/* v[r] per rank, present[r] != 0 where the rank has rows (NULL: all). */
Stat statRanks(const double *v, const double *present, uint32_t n);

/* ---- keys "domain\x1fname", sorting, dataset lists --------------------------------- */
size_t *sortedKeys(const StrMap *keys, const double *val);
const char *keyName(const char *k);
void keyDomain(const char *k, char *buf, size_t n);
int oneDomain(const StrMap *keys, char *dom, size_t n);
void keyLabel(const char *k, int onedom, char *buf, size_t n);
typedef struct PathList {
    char **p;
    size_t n, cap;
} PathList;
PathList listDatasets(hid_t file, const char *grp);
void pathsFree(PathList *l);
void rankList(const unsigned char *f, uint32_t n, char *buf, size_t len);

/* ---- sections ------------------------------------------------------------------------ */
RTab *sectionRun(Ctx *c);                                 /* report_status.c */
RTab *sectionRanks(Ctx *c);
RTab *sectionUnavailable(Ctx *c);
RTab *sectionLosses(Ctx *c);
void sectionRanges(Ctx *c, RTab **across, RTab **byrank); /* report_ranges.c */
void fillRangeGpu(Ctx *c, RTab *p);
void sectionGpu(Ctx *c, RTab **granges, RTab **kern, RTab **copy); /* report_gpu.c */
RTab *sectionMpi(Ctx *c);                                 /* report_mpi.c */
RTab *sectionMetrics(Ctx *c);                             /* report_metrics.c */
RTab *sectionCounters(Ctx *c);

#endif
