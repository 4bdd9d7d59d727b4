/*
 * capture.c -- capture windows (GPUINST_CAPTURE): record only inside chosen
 * ranges, so a long run pays for tracing only where asked (as Nsight
 * Systems' `-c nvtx -p RANGE@DOMAIN`).
 *
 *   GPUINST_CAPTURE := rule { ';' rule }
 *   rule            := RANGE [ '@' DOMAIN ] [ '@' ITEMS ]
 *   ITEMS           := item { ',' item }      (GPUINST_PROFILE's occurrence grammar)
 *   item            := N | N-M | N:M | every N | %N | all | none
 *
 * RANGE and DOMAIN are globs (fnmatch); no DOMAIN means NVTX's default
 * domain (gpuinst_range_push, nvtxRangePush), also named "default", `*`
 * any domain.  The part after the last '@' is ITEMS when it reads as such,
 * else a DOMAIN unless it looks like ITEMS with a typo (capLooksLikeItems:
 * refused); no ITEMS means every occurrence.  Occurrences are counted per rule and
 * process: every range (push/pop or start/end, gpuinst's or any NVTX
 * range) whose name and domain match is one; a selected occurrence opens
 * a window at its start that closes at its end.
 *
 * Inside a window everything is recorded as usual.  Outside: ranges that
 * start there, marks, counter samples (by their timestamp) and MPI calls
 * are not recorded, and CUPTI activity is disabled (gpuinstActivityCapture).
 * Windows may nest or overlap (several threads): recording is on while at
 * least one is open.  Each window is a row of /captures.
 *
 * CUPTI's runtime and driver API kinds cost tens of microseconds to switch
 * (the GPU-work kinds a few): at the close of the last open window
 * gpuinstCaptureKeepApi leaves them on when the gap before this span was
 * under GPUINST_CAPTURE_API_KEEP times their switch cost as last measured
 * (gpuinstActivityApiSwitchNs), and src/activity.c turns them off when no
 * window opened that long after.  Their records are kept only if their CPU
 * start is inside a span (gpuinstCaptureOverlaps, at decode), so nothing
 * outside a window is written either way; /captures.api_on says which way
 * the rule went for the window that ended each span.
 *
 * States: OFF (GPUINST_CAPTURE unset: gpuinstCaptureOn = 0, one branch per
 * event) -> ARMED (set, no window open: events dropped) <-> OPEN (capDepth
 * > 0).  ARMED -> OPEN in gpuinstCapturePushSlow (a selected occurrence
 * starts); OPEN -> ARMED in gpuinstCaptureClose (the last open window
 * ends).  Transitions take capLock; the check of an event reads capDepth.
 */
#include "gpuinstInt.h"
#include "activityInt.h"
#include "profilerInt.h"

#include <ctype.h>
#include <strings.h>
#include <fnmatch.h>

#if !defined(GPUINST_AMALGAMATION)
__attribute__((visibility("hidden"))) int gpuinstCaptureOn;
#endif

#define CAP_MAX_RULES 16

typedef struct CapRule {
    char range[128];
    char domain[128];             /* "" = NVTX's default domain */
    gpuinstSelectRule sel;        /* items only (its pattern is unused) */
    uint64_t occ;                 /* occurrences seen (atomic) */
} CapRule;

/* One window: a row of /captures (48 bytes). */
typedef struct CapWindowRec {
    uint64_t start_ns;
    uint64_t end_ns;
    uint64_t occurrence;
    uint32_t rank;
    uint32_t name;                /* /strings id of the range */
    uint16_t domain;
    uint16_t rule;                /* 0-based index of the rule in GPUINST_CAPTURE */
    uint8_t open;                 /* 1: still open at finalize (end_ns = finalize time) */
    uint8_t api_on;               /* 1: the CUPTI runtime/driver kinds stayed on after it (gpuinstCaptureKeepApi) */
    uint8_t pad_[2];
    uint64_t thread_;             /* internal, not written: the opening thread (capThreadKey) */
} CapWindowRec;

/* A span of time with at least one window open. */
typedef struct CapSpan {
    uint64_t start, end;
} CapSpan;

static CapRule capRules[CAP_MAX_RULES];
static uint32_t capNrules;
static pthread_mutex_t capLock = PTHREAD_MUTEX_INITIALIZER;
static uint32_t capDepth;         /* windows open now (relaxed reads) */
static uint64_t capSpanStart;     /* start of the current span (capDepth > 0) */
static uint64_t capGap;           /* the gap before the current span (UINT64_MAX: it is the first) */
static CapSpan *capSpans;         /* closed spans, in time order */
static uint32_t capNspans, capCapSpans;
static CapWindowRec *capWin;
static uint32_t capNwin, capCapWin;

/* Per-thread cache of the rule a (name, domain) matches: rule + 1, or 0 for
 * none.  Direct-mapped; a miss does the globbing under the lock. */
#define CAP_CACHE 64
typedef struct CapCacheSlot {
    uint32_t name;
    uint16_t domain;
    int16_t rule;                 /* -1: slot empty */
} CapCacheSlot;
static GPUINST_TLS CapCacheSlot *capCache;
/* A key of the calling thread: where its cache pointer lives. */
static uint64_t capThreadKey(void)
{
    return (uint64_t)(uintptr_t)&capCache;
}
static int capInited;             /* gpuinstCaptureInit ran */
static int capLooked;             /* a range was looked at: the rules may no longer change */
static char capSpec[GPUINST_CFG_TEXT]; /* the text the rules came from (/captures' spec) */

/* ---- parsing --------------------------------------------------------------- */

/* ITEMS text -> sel; 0 if it does not read as items.  "N:M" is taken as
 * "N-M" (the form Nsight users write). */
static int capItems(const char *text, gpuinstSelectRule *out)
{
    char buf[300];
    size_t i, n = strlen(text);
    gpuinstSelect s;
    if (n == 0 || n + 3 >= sizeof buf) return 0;
    buf[0] = 'x';
    buf[1] = '@';
    for (i = 0; i < n; i++) {
        char c = text[i];
        if (c == ':' && i > 0 && isdigit((unsigned char)text[i - 1]) && isdigit((unsigned char)text[i + 1])) c = '-';
        if (c == ';' || c == '@') return 0;
        buf[2 + i] = c;
    }
    buf[2 + n] = '\0';
    if (gpuinstSelectParse(buf, &s, NULL, 0) != GPUINST_SUCCESS || s.nrules != 1) return 0;
    *out = s.rules[0];
    return 1;
}

/* Whether a part after '@' that is not valid ITEMS was meant as ITEMS
 * (a number, a range of numbers, `every`, `all`, `none`, `%N`, a comma
 * list), so that a typo there is refused instead of taken for a domain
 * name that matches nothing. */
static int capLooksLikeItems(const char *text)
{
    static const char *const words[] = {"every", "all", "none"};
    const unsigned char c = (unsigned char)text[0];
    if (isdigit(c) || c == '-' || c == '+' || c == '%' || strchr(text, ',') != NULL || strchr(text, ':') != NULL) return 1;
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        if (strncasecmp(text, words[i], strlen(words[i])) == 0) return 1;
    return 0;
}

static int capErr(char *err, size_t cap, const char *what, const char *rule)
{
    snprintf(err, cap, "GPUINST_CAPTURE: %s in \"%.200s\"", what, rule);
    return GPUINST_ERROR_INVALID_ARGUMENT;
}

static void capTrim(char *s)
{
    size_t n = strlen(s), b = 0;
    while (n > 0 && isspace((unsigned char)s[n - 1])) s[--n] = '\0';
    while (isspace((unsigned char)s[b])) b++;
    if (b) memmove(s, s + b, n - b + 1);
}

/* Parses GPUINST_CAPTURE into capRules.  0 or INVALID_ARGUMENT with a
 * sentence in err. */
static int capParse(const char *spec, char *err, size_t errcap)
{
    const char *p = spec;
    capNrules = 0;
    while (*p) {
        char rule[400], whole[400], *parts[3];
        int nparts = 0;
        size_t len;
        CapRule *r;
        char *q;
        const char *e = strchr(p, ';');
        len = e ? (size_t)(e - p) : strlen(p);
        if (len >= sizeof rule) return capErr(err, errcap, "a rule over 399 bytes", p);
        memcpy(rule, p, len);
        rule[len] = '\0';
        p = e ? e + 1 : p + len;
        capTrim(rule);
        if (rule[0] == '\0') continue;
        snprintf(whole, sizeof whole, "%s", rule); /* the rule as given, for the messages (rule is cut at each '@') */
        if (capNrules >= CAP_MAX_RULES) return capErr(err, errcap, "more than 16 rules", whole);
        r = &capRules[capNrules];
        memset(r, 0, sizeof *r);
        parts[nparts++] = rule;
        for (q = rule; *q; q++)
            if (*q == '@') {
                if (nparts == 3) return capErr(err, errcap, "more than two '@'", whole);
                *q = '\0';
                parts[nparts++] = q + 1;
            }
        for (int i = 0; i < nparts; i++) capTrim(parts[i]);
        if (parts[0][0] == '\0') return capErr(err, errcap, "an empty range name", whole);
        if (strlen(parts[0]) >= sizeof r->range) return capErr(err, errcap, "a range name over 127 bytes", whole);
        snprintf(r->range, sizeof r->range, "%s", parts[0]);
        r->sel.nitems = 1;
        r->sel.items[0].kind = 2; /* all */
        if (nparts == 3) {
            if (!capItems(parts[2], &r->sel))
                return capErr(err, errcap, "occurrences must be N, N-M, N:M, every N, %N, all or none", parts[2]);
            if (parts[1][0] == '\0' || strlen(parts[1]) >= sizeof r->domain)
                return capErr(err, errcap, "an empty domain or one over 127 bytes", whole);
            snprintf(r->domain, sizeof r->domain, "%s", parts[1]);
        } else if (nparts == 2) {
            if (!capItems(parts[1], &r->sel)) {
                if (capLooksLikeItems(parts[1])) /* a typo in the items, not a domain: refused, never a silent empty capture */
                    return capErr(err, errcap,
                                  "occurrences must be N, N-M, N:M, every N, %N, all or none (a DOMAIN that starts with "
                                  "a digit, '%' or '-' takes the form RANGE@DOMAIN@ITEMS)",
                                  whole);
                if (parts[1][0] == '\0' || strlen(parts[1]) >= sizeof r->domain)
                    return capErr(err, errcap, "an empty domain or one over 127 bytes", whole);
                snprintf(r->domain, sizeof r->domain, "%s", parts[1]);
            }
        }
        capNrules++;
    }
    if (capNrules == 0) return capErr(err, errcap, "no rule", spec);
    return GPUINST_SUCCESS;
}

/* ---- matching ----------------------------------------------------------------- */

static int capSelected(const gpuinstSelectRule *r, uint64_t occ)
{
    uint32_t j;
    for (j = 0; j < r->nitems; j++) {
        const gpuinstSelectItem *it = &r->items[j];
        if (it->kind == 0 && occ >= it->lo && occ <= it->hi) return 1;
        if (it->kind == 1 && occ % it->lo == 0) return 1;
        if (it->kind == 2) return 1;
        if (it->kind == 3) return 0;
    }
    return 0;
}

/* The first rule matching (name, domain), or -1. */
static int capRuleFor(uint32_t name, uint32_t domain)
{
    const char *nm = gpuinstStringGet(name, NULL), *dn;
    uint32_t i;
    if (nm == NULL) return -1;
    dn = domain == 0 ? "default" : gpuinstStringGet(domain < GPUINST_LOAD_ACQ(&gpuinstG.ndomains) ? gpuinstG.domain_names[domain] : 0, NULL);
    if (dn == NULL) dn = "";
    for (i = 0; i < capNrules; i++) {
        const CapRule *r = &capRules[i];
        if (fnmatch(r->range, nm, 0) != 0) continue;
        if (r->domain[0] == '\0' ? domain != 0 : (strcmp(r->domain, "*") != 0 && fnmatch(r->domain, dn, 0) != 0))
            continue;
        return (int)i;
    }
    return -1;
}

static int capCachedRule(uint32_t name, uint32_t domain)
{
    CapCacheSlot *c = capCache, *s;
    if (GPUINST_UNLIKELY(c == NULL)) {
        uint32_t i;
        c = (CapCacheSlot *)malloc(CAP_CACHE * sizeof *c);
        if (c == NULL) return capRuleFor(name, domain);
        for (i = 0; i < CAP_CACHE; i++) c[i].rule = -1;
        capCache = c; /* one per thread, kept for the thread's life */
    }
    s = &c[(name * 0x9E3779B1u ^ domain) & (CAP_CACHE - 1)];
    if (s->rule >= 0 && s->name == name && s->domain == domain) return s->rule - 1;
    s->name = name;
    s->domain = (uint16_t)domain;
    s->rule = (int16_t)(capRuleFor(name, domain) + 1);
    return s->rule - 1;
}

/* ---- windows --------------------------------------------------------------------- */

static void capOpenWindow(uint32_t name, uint32_t domain, uint32_t rule, uint64_t occ)
{
    uint64_t now = gpuinstClockNs();
    int first;
    CapWindowRec *nw;
    pthread_mutex_lock(&capLock);
    nw = (CapWindowRec *)gpuinstArrayRoom(capWin, capNwin, &capCapWin, sizeof *nw, 64);
    if (nw != NULL) {
        CapWindowRec *w;
        capWin = nw;
        w = &capWin[capNwin++];
        memset(w, 0, sizeof *w);
        w->start_ns = now;
        w->occurrence = occ;
        w->name = name;
        w->domain = (uint16_t)domain;
        w->rule = (uint16_t)rule;
        w->open = 1;
        w->thread_ = capThreadKey();
    } else {
        GPUINST_ADD_RLX(&gpuinstG.counts.lost, 1);
    }
    first = capDepth == 0;
    if (first) {
        capSpanStart = now;
        capGap = capNspans > 0 && now > capSpans[capNspans - 1].end ? now - capSpans[capNspans - 1].end
                 : capNspans > 0 ? 0 : UINT64_MAX;
    }
    GPUINST_STORE_REL(&capDepth, capDepth + 1);
    if (first) (void)gpuinstActivityCapture(1, 0); /* under the lock: transitions in order */
    pthread_mutex_unlock(&capLock);
}

GPUINST_PRIVATE uint8_t gpuinstCapturePushSlow(uint32_t name, uint32_t domain)
{
    int r;
    if (GPUINST_UNLIKELY(!GPUINST_LOAD_RLX(&capLooked))) { /* the rules are fixed from now on */
        pthread_mutex_lock(&capLock);
        GPUINST_STORE_RLX(&capLooked, 1);
        pthread_mutex_unlock(&capLock);
    }
    r = capCachedRule(name, domain);
    if (r >= 0) {
        uint64_t occ = GPUINST_ADD_RLX(&capRules[r].occ, 1) + 1;
        if (capSelected(&capRules[r].sel, occ)) {
            capOpenWindow(name, domain, (uint32_t)r, occ);
            return GPUINST_RANGE_FLAG_CAPTURE_WINDOW;
        }
    }
    return GPUINST_LOAD_RLX(&capDepth) > 0 ? 0 : GPUINST_RANGE_FLAG_SKIP_;
}

/* The runtime/driver API kinds at the close of the last open window (see
 * gpuinstInt.h): left on when the gap before this span was shorter than
 * GPUINST_CAPTURE_API_KEEP times what switching them off and on costs. */
GPUINST_PRIVATE int gpuinstCaptureKeepApi(uint64_t gap_ns, uint64_t switch_ns)
{
    if (gap_ns == UINT64_MAX || switch_ns == 0) return 0; /* no gap seen yet, or no cost measured */
    return switch_ns >= UINT64_MAX / GPUINST_CAPTURE_API_KEEP || gap_ns < switch_ns * GPUINST_CAPTURE_API_KEEP;
}

GPUINST_PRIVATE void gpuinstCaptureClose(uint32_t name, uint32_t domain, uint64_t now)
{
    uint32_t i;
    int last = 0;
    CapWindowRec *closed = NULL;
    uint64_t self = capThreadKey();
    pthread_mutex_lock(&capLock);
    /* the latest open window of this range opened by this thread; else (a
     * start/end range ended on another thread) the latest of any thread */
    for (i = capNwin; i > 0; i--) {
        CapWindowRec *w = &capWin[i - 1];
        if (w->open && w->name == name && w->domain == domain) {
            if (closed == NULL) closed = w;
            if (w->thread_ == self) {
                closed = w;
                break;
            }
        }
    }
    if (closed != NULL) {
        closed->end_ns = now;
        closed->open = 0;
    }
    if (capDepth > 0) {
        GPUINST_STORE_REL(&capDepth, capDepth - 1);
        if (capDepth == 0) {
            CapSpan *ns = (CapSpan *)gpuinstArrayRoom(capSpans, capNspans, &capCapSpans, sizeof *ns, 64);
            last = 1;
            if (ns != NULL) {
                capSpans = ns;
                capSpans[capNspans].start = capSpanStart;
                capSpans[capNspans].end = now;
                capNspans++;
            }
        }
    }
    if (last) {
        int keep = gpuinstCaptureKeepApi(capGap, gpuinstActivityApiSwitchNs());
        if (gpuinstActivityCapture(0, keep) && closed != NULL) closed->api_on = 1;
    }
    pthread_mutex_unlock(&capLock);
}

GPUINST_PRIVATE int gpuinstCaptureOpen(void)
{
    return GPUINST_LOAD_RLX(&capDepth) > 0;
}

GPUINST_PRIVATE int gpuinstCaptureOverlaps(uint64_t lo_ns, uint64_t hi_ns)
{
    uint32_t lo = 0, hi;
    int in = 0;
    if (!GPUINST_LOAD_RLX(&gpuinstCaptureOn)) return 1;
    pthread_mutex_lock(&capLock);
    if (capDepth > 0 && hi_ns >= capSpanStart) in = 1;
    hi = capNspans;
    while (!in && lo < hi) { /* the last span starting at or before hi_ns */
        uint32_t mid = lo + (hi - lo) / 2;
        if (capSpans[mid].start <= hi_ns) lo = mid + 1;
        else hi = mid;
    }
    if (!in && lo > 0 && lo_ns <= capSpans[lo - 1].end) in = 1;
    pthread_mutex_unlock(&capLock);
    return in;
}

GPUINST_PRIVATE int gpuinstCaptureContains(uint64_t t)
{
    return gpuinstCaptureOverlaps(t, t);
}

/* ---- /captures -------------------------------------------------------------------- */

#define F(rec, member, type, flags, unit, doc) \
    { #member, type, (uint32_t)offsetof(rec, member), 0, flags, unit, doc }
static const gpuinstField capFields[] = {
    F(CapWindowRec, start_ns, GPUINST_FT_U64, GPUINST_FIELD_TIME, "ns", "window start: start of the selected range"),
    F(CapWindowRec, end_ns, GPUINST_FT_U64, GPUINST_FIELD_TIME, "ns", "window end: end of the range (finalize time if open = 1)"),
    F(CapWindowRec, occurrence, GPUINST_FT_U64, 0, "", "1-based occurrence of the rule's range on this rank"),
    F(CapWindowRec, rank, GPUINST_FT_U32, GPUINST_FIELD_RANK, "", "rank"),
    F(CapWindowRec, name, GPUINST_FT_U32, 0, "", "range name: id in /strings (same rank)"),
    F(CapWindowRec, domain, GPUINST_FT_U16, 0, "", "domain: id in /domains (same rank)"),
    F(CapWindowRec, rule, GPUINST_FT_U16, 0, "", "0-based index of the rule in GPUINST_CAPTURE (the dataset's attribute spec)"),
    F(CapWindowRec, open, GPUINST_FT_U8, 0, "", "1: the range was still open at finalize"),
    F(CapWindowRec, api_on, GPUINST_FT_U8, 0, "", "1: CUPTI's runtime/driver API kinds stayed enabled after this window closed (windows come often: the API records made before the next window are dropped at decode), 0: switched off"),
};
#undef F

static int capCollect(const gpuinstTable *tb, void **out, uint64_t *count)
{
    CapWindowRec *rows;
    uint32_t i;
    (void)tb;
    pthread_mutex_lock(&capLock);
    rows = (CapWindowRec *)calloc(capNwin ? capNwin : 1, sizeof *rows);
    if (rows == NULL) {
        pthread_mutex_unlock(&capLock);
        return GPUINST_ERROR_OUT_OF_MEMORY;
    }
    if (capNwin) memcpy(rows, capWin, capNwin * sizeof *rows);
    *count = capNwin;
    pthread_mutex_unlock(&capLock);
    for (i = 0; i < *count; i++)
        if (rows[i].open) rows[i].end_ns = gpuinstG.end_ns;
    *out = rows;
    return GPUINST_SUCCESS;
}

static const gpuinstTable capTable = {
    "/captures", "capture windows (GPUINST_CAPTURE): outside them nothing was recorded",
    sizeof(CapWindowRec), (uint32_t)(sizeof capFields / sizeof capFields[0]), capFields, capCollect, NULL, NULL};

static gpuinstTableAttr capAttrs[1];

/* Rules from `spec` ("" = none); under capLock, before any range was looked
 * at.  1 if capture windows are on. */
static int capApply(const char *spec)
{
    char err[512];
    snprintf(capSpec, sizeof capSpec, "%s", spec);
    capNrules = 0;
    if (spec[0] == '\0') return 0;
    if (!(gpuinstG.cfg.mode & GPUINST_MODE_TRACE)) {
        gpuinstUnavailableAdd("capture", "GPUINST_CAPTURE limits a trace to its windows, and GPUINST_MODE=profile "
                                         "keeps no trace: everything is profiled (use GPUINST_MODE=profile,trace "
                                         "for windows in the trace)");
        return 0;
    }
    if (capParse(spec, err, sizeof err) != GPUINST_SUCCESS) {
        char why[480];
        capNrules = 0;
        snprintf(why, sizeof why, "%.300s; everything is recorded (no capture window). Syntax: RANGE[@DOMAIN][@ITEMS], "
                 "ITEMS a comma list of N|N-M|N:M|every N|%%N|all|none (no ITEMS: every occurrence), rules separated by ';'", err);
        gpuinstUnavailableAdd("capture", why);
        return 0;
    }
    return 1;
}

GPUINST_PRIVATE void gpuinstCaptureInit(void)
{
    int on;
    gpuinstTableRegister(&capTable);
    pthread_mutex_lock(&capLock);
    on = capApply(gpuinstG.cfg.capture);
    capInited = 1;
    pthread_mutex_unlock(&capLock);
    capAttrs[0].name = "spec";
    capAttrs[0].kind = GPUINST_TATTR_STR;
    capAttrs[0].s = capSpec; /* "" when unset */
    gpuinstTableSetAttrs(&capTable, capAttrs, 1);
    if (on) GPUINST_STORE_REL(&gpuinstCaptureOn, 1);
    gpuinstRangeWatchSet(1, on); /* the push's slow path (src/gpuinstInt.h) */
}

GPUINST_PRIVATE void gpuinstCaptureAgreed(const char *spec)
{
    int was, on;
    pthread_mutex_lock(&capLock);
    if (!capInited || strcmp(spec, capSpec) == 0) { /* not started yet: gpuinstCaptureInit takes rank 0's */
        pthread_mutex_unlock(&capLock);
        return;
    }
    if (capLooked) {
        pthread_mutex_unlock(&capLock);
        gpuinstWarn("GPUINST_CAPTURE=\"%.200s\" here, rank 0 has \"%.200s\": this rank had started using its own "
                    "before MPI_Init and keeps it (set the same GPUINST_CAPTURE on every rank)", capSpec, spec);
        return;
    }
    was = GPUINST_LOAD_RLX(&gpuinstCaptureOn);
    on = capApply(spec);
    GPUINST_STORE_REL(&gpuinstCaptureOn, on);
    gpuinstRangeWatchSet(1, on);
    /* no range was looked at, so no window is open: activity follows */
    if (was != on) (void)gpuinstActivityCapture(!on, 0);
    pthread_mutex_unlock(&capLock);
}
