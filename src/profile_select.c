/*
 * profile_select.c -- the GPUINST_PROFILE grammar: which occurrences of a
 * region the range profiler profiles (gpuinstSelectParse, Decide), and
 * what the finalize report says about rules that profiled nothing
 * (gpuinstSelectReport).  Pure: no CUPTI, no state (tests/profiler and
 * fuzz/fuzz_profile.c call it).  docs/PROFILING.md documents the syntax.
 */
#include "profilerInt.h"

#include <ctype.h>
#include <fnmatch.h>

/* ---- selection (GPUINST_PROFILE) -------------------------------------------
 *   spec := rule { ';' rule }
 *   rule := glob [ '@' item { ',' item } ]      no '@': "@1"
 *   item := N | N-M | every N | %N | all | none  (N >= 1)
 * The first rule whose glob (fnmatch) matches the region name decides; no
 * matching rule: not profiled. */

static const char *selSkipSpace(const char *p)
{
    while (*p != '\0' && isspace((unsigned char)*p)) p++;
    return p;
}

static int selParseU64(const char **pp, uint64_t *out)
{
    const char *p = *pp;
    uint64_t v = 0;
    if (!isdigit((unsigned char)*p)) return 0;
    while (isdigit((unsigned char)*p)) {
        if (v > (UINT64_MAX - 9) / 10) return 0;
        v = v * 10 + (uint64_t)(*p - '0');
        p++;
    }
    *pp = p;
    *out = v;
    return 1;
}

static int selErr(char *err, size_t cap, const char *spec, const char *at, const char *what)
{
    if (err != NULL)
        snprintf(err, cap, "GPUINST_PROFILE=\"%.120s\": %s at offset %d; syntax: "
                 "glob[@item,item...] rules separated by ';', item = N | N-M | N:M | every N | %%N | all | none",
                 spec, what, (int)(at - spec));
    return GPUINST_ERROR_INVALID_ARGUMENT;
}

GPUINST_PRIVATE int gpuinstSelectParse(const char *spec, gpuinstSelect *sel, char *err, size_t errcap)
{
    const char *p;
    memset(sel, 0, sizeof *sel);
    if (err != NULL && errcap > 0) err[0] = '\0';
    if (spec == NULL || spec[0] == '\0') spec = "*@1";
    p = spec;
    for (;;) {
        gpuinstSelectRule *r;
        const char *b, *e;
        p = selSkipSpace(p);
        if (*p == '\0') break;
        if (*p == ';') {
            p++;
            continue;
        }
        if (sel->nrules >= GPUINST_SELECT_MAX_RULES) return selErr(err, errcap, spec, p, "more than 32 rules");
        r = &sel->rules[sel->nrules];
        b = p;
        while (*p != '\0' && *p != ';' && *p != '@') p++;
        e = p;
        while (e > b && isspace((unsigned char)e[-1])) e--;
        if (e == b) return selErr(err, errcap, spec, b, "empty region pattern");
        if ((size_t)(e - b) >= sizeof r->pattern) return selErr(err, errcap, spec, b, "pattern longer than 127 bytes");
        memcpy(r->pattern, b, (size_t)(e - b));
        r->pattern[e - b] = '\0';
        if (*p != '@') {
            r->items[0].kind = 0;
            r->items[0].lo = r->items[0].hi = 1;
            r->nitems = 1;
        } else {
            p++;
            for (;;) {
                gpuinstSelectItem *it;
                p = selSkipSpace(p);
                if (r->nitems >= GPUINST_SELECT_MAX_ITEMS)
                    return selErr(err, errcap, spec, p, "more than 16 items in one rule");
                it = &r->items[r->nitems];
                if (strncmp(p, "all", 3) == 0 && !isalnum((unsigned char)p[3])) {
                    it->kind = 2;
                    p += 3;
                } else if (strncmp(p, "none", 4) == 0 && !isalnum((unsigned char)p[4])) {
                    it->kind = 3;
                    p += 4;
                } else if (*p == '%' || (strncmp(p, "every", 5) == 0 && !isalnum((unsigned char)p[5]))) {
                    p += *p == '%' ? 1 : 5;
                    p = selSkipSpace(p);
                    if (!selParseU64(&p, &it->lo) || it->lo == 0)
                        return selErr(err, errcap, spec, p, "expected a whole number >= 1 after \"every\"/\"%\"");
                    it->kind = 1;
                } else if (selParseU64(&p, &it->lo)) {
                    if (it->lo == 0) return selErr(err, errcap, spec, p, "occurrences count from 1");
                    it->kind = 0;
                    it->hi = it->lo;
                    p = selSkipSpace(p);
                    if (*p == '-' || *p == ':') { /* N:M as GPUINST_CAPTURE writes it (step@100:110) */
                        p = selSkipSpace(p + 1);
                        if (!selParseU64(&p, &it->hi) || it->hi < it->lo)
                            return selErr(err, errcap, spec, p, "expected N-M (or N:M) with M >= N");
                    }
                } else {
                    return selErr(err, errcap, spec, p, "expected N, N-M, N:M, every N, %N, all or none");
                }
                r->nitems++;
                p = selSkipSpace(p);
                if (*p == ',') {
                    p++;
                    continue;
                }
                if (*p == ';' || *p == '\0') break;
                return selErr(err, errcap, spec, p, "unexpected character");
            }
        }
        sel->nrules++;
    }
    if (sel->nrules == 0) return selErr(err, errcap, spec, p, "no rule");
    return GPUINST_SUCCESS;
}

#if GPUINST_WITH_TEST_API
GPUINST_PRIVATE int gpuinstSelectMatch(const gpuinstSelect *sel, const char *region, uint64_t occ)
{
    int rule;
    return gpuinstSelectDecide(sel, region, occ, &rule);
}
#endif

GPUINST_PRIVATE int gpuinstSelectRuleHas(const gpuinstSelectRule *r, uint64_t occ)
{
    uint32_t j;
    for (j = 0; j < r->nitems; j++) {
        const gpuinstSelectItem *it = &r->items[j];
        switch (it->kind) {
        case 0:
            if (occ >= it->lo && occ <= it->hi) return 1;
            break;
        case 1:
            if (occ % it->lo == 0) return 1;
            break;
        case 2:
            return 1;
        default:
            break;
        }
    }
    return 0;
}

GPUINST_PRIVATE int gpuinstSelectFirst(const gpuinstSelect *sel, const char *name)
{
    uint32_t i;
    for (i = 0; i < sel->nrules; i++)
        if (fnmatch(sel->rules[i].pattern, name, 0) == 0) return (int)i;
    return -1;
}

GPUINST_PRIVATE int gpuinstSelectDecide(const gpuinstSelect *sel, const char *region, uint64_t occ, int *rule)
{
    *rule = gpuinstSelectFirst(sel, region);
    return *rule >= 0 && gpuinstSelectRuleHas(&sel->rules[*rule], occ); /* first matching rule decides */
}

/* 1 if the rule can select an occurrence (an item other than "none"). */
static int ruleSelects(const gpuinstSelectRule *r)
{
    uint32_t j;
    for (j = 0; j < r->nitems; j++)
        if (r->items[j].kind != 3) return 1;
    return 0;
}

GPUINST_PRIVATE int gpuinstSelectReport(const char *spec, const gpuinstSelect *sel, const uint64_t *decided,
                                        const uint64_t *selected, const char *const *regions, const uint64_t *nocc,
                                        uint32_t nregions, char *msg, size_t cap)
{
    size_t n = 0;
    uint32_t i, said = 0;
#define SAY(...)                                                                  \
    do {                                                                          \
        if (n < cap) n += (size_t)snprintf(msg + n, cap - n, __VA_ARGS__);       \
    } while (0)
    if (cap == 0) return 0;
    msg[0] = '\0';
    SAY("GPUINST_PROFILE=\"%.100s\" profiled nothing for", spec);
    for (i = 0; i < sel->nrules; i++) {
        const gpuinstSelectRule *r = &sel->rules[i];
        if (!ruleSelects(r) || selected[i] > 0) continue;
        if (decided[i] == 0)
            SAY("%s rule %u \"%.60s\" (no region of that name called gpuinst_profile_begin; no range of that "
                "name outside the regions rules name)", said ? ";" : ":", i + 1, r->pattern);
        else
            SAY("%s rule %u \"%.60s\" (selects none of the %llu occurrences it matched)", said ? ";" : ":", i + 1,
                r->pattern, (unsigned long long)decided[i]);
        said++;
    }
    if (said == 0) {
        msg[0] = '\0';
        return 0;
    }
    SAY("; regions that ran:");
    for (i = 0; i < nregions && i < 8; i++) SAY(" %.40s (%llu)%s", regions[i], (unsigned long long)nocc[i],
                                                 i + 1 < nregions ? "," : "");
    if (nregions > 8) SAY(" and %u more", nregions - 8);
    if (nregions == 0) SAY(" none");
    SAY("; check the names and occurrence numbers (docs/PROFILING.md)");
#undef SAY
    return 1;
}
