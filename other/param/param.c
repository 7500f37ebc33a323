/* other/param/param.c: loads every params.def row from the environment and
 * answers the typed accessors of param.h.
 *
 * This is the only file of the project that calls getenv() or reads
 * environ.  Values are parsed once (gasneti_params_load); an accessor used
 * before that loads the table itself, so early code (logging) may ask too.
 * An invalid value is recorded, not printed, and the row keeps its default,
 * so accessors never return garbage while the caller reports the error.
 */
#include "other/param/param-table.h"
#include "other/param/param-parse.h"
#include "other/log/log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

extern char **environ;

typedef struct {
    const char *text; /* value in effect (env or default); NULL if none */
    int set;          /* set non-empty in the environment */
    int64_t ival;     /* INT, BOOL, SIZE*, MEMFRAC bytes (-1 = it is a fraction) */
    double dval;      /* DOUBLE, MEMFRAC fraction (-1.0 = it is a size) */
} gasneti_param_val_t;

static gasneti_param_val_t gasneti_param_vals[GASNETI_PARAM_COUNT];
static char gasneti_param_first_error[512];
static int gasneti_param_nerrors;
/* 0 = never loaded, 1 = loading, 2 = loaded (see ensure_loaded). */
static int gasneti_param_state;

/* ---- parsing one value against its row ------------------------------------ */

static int is_size_type(gasneti_param_type_t t)
{
    return t == GASNETI_PT_SIZE || t == GASNETI_PT_SIZE_K || t == GASNETI_PT_SIZE_M;
}

static uint64_t bare_unit(gasneti_param_type_t t)
{
    return t == GASNETI_PT_SIZE_K ? 1024 : t == GASNETI_PT_SIZE_M ? 1024 * 1024 : 1;
}

/* " (allowed: RANGE)" or "" when the row is unbounded. */
static void allowed_suffix(const gasneti_param_row_t *row, char *buf, size_t len)
{
    char range[128];
    gasneti_param_range_str(row, range, sizeof range);
    if (range[0])
        snprintf(buf, len, " (allowed: %s)", range);
    else
        buf[0] = '\0';
}

/* Range check of a parsed number against the row's limits (parsed with the
 * same parser).  Returns 0 if inside. */
static int out_of_range(const gasneti_param_row_t *row, int64_t iv, double dv)
{
    const char *lim[2] = {row->min, row->max};
    int k;
    for (k = 0; k < 2; k++) {
        int64_t li;
        uint64_t lu;
        double ld;
        if (!lim[k] || !lim[k][0]) continue;
        if (row->type == GASNETI_PT_INT || row->type == GASNETI_PT_SSIZE) {
            if (gasneti_parse_int(lim[k], &li) == GASNETI_PARSE_OK && (k ? iv > li : iv < li))
                return 1;
        } else if (is_size_type(row->type) || row->type == GASNETI_PT_MEMFRAC ||
                   row->type == GASNETI_PT_MEMSCOPE) {
            if (iv >= 0 &&
                gasneti_parse_size(lim[k], bare_unit(row->type), &lu, NULL, 0) == GASNETI_PARSE_OK &&
                (k ? (uint64_t)iv > lu : (uint64_t)iv < lu))
                return 1;
        } else if (row->type == GASNETI_PT_DOUBLE) {
            if (gasneti_parse_double(lim[k], &ld) == GASNETI_PARSE_OK && (k ? dv > ld : dv < ld))
                return 1;
        }
    }
    return 0;
}

int gasneti_param_parse(gasneti_param_id_t id, const char *text, int64_t *out_int,
                        double *out_double, char *errbuf, size_t errlen)
{
    const gasneti_param_row_t *row = gasneti_param_row(id);
    char allowed[160], unit[16];
    int64_t iv = 0;
    double dv = 0.0;
    uint64_t uv = 0;
    int rc = GASNETI_PARSE_OK, b;
    const char *what = NULL;

    allowed_suffix(row, allowed, sizeof allowed);
    if (!text) text = "";
    switch (row->type) {
    case GASNETI_PT_INT:
        rc = gasneti_parse_int(text, &iv);
        what = "not an integer";
        break;
    case GASNETI_PT_SSIZE: { /* GASNet reads these as memory sizes that may be -1 */
        const char *t = text;
        while (*t == ' ' || *t == '\t') t++;
        if (*t == '-') {
            rc = gasneti_parse_int(text, &iv);
        } else {
            rc = gasneti_parse_size(text, 1, &uv, unit, sizeof unit);
            if (rc == GASNETI_PARSE_OK && uv > (uint64_t)INT64_MAX) rc = GASNETI_PARSE_RANGE;
            iv = (int64_t)uv;
        }
        what = "not a size (a number with an optional K, M, G or T suffix) or a negative integer";
        break;
    }
    case GASNETI_PT_SIZE:
    case GASNETI_PT_SIZE_K:
    case GASNETI_PT_SIZE_M:
        rc = gasneti_parse_size(text, bare_unit(row->type), &uv, unit, sizeof unit);
        if (rc == GASNETI_PARSE_OK && uv > (uint64_t)INT64_MAX) rc = GASNETI_PARSE_RANGE;
        iv = (int64_t)uv;
        what = "not a size (a number with an optional K, M, G or T suffix)";
        break;
    case GASNETI_PT_MEMFRAC:
    case GASNETI_PT_MEMSCOPE:
        if (row->type == GASNETI_PT_MEMSCOPE) {
            int scope;
            rc = gasneti_parse_memscope(text, &dv, &uv, &scope, unit, sizeof unit);
            what = "not a fraction of memory below 1 or a size, optionally followed by /P "
                   "(per process) or /H (per host) (e.g. 0.85/H, 128MB/P, 4G)";
        } else {
            rc = gasneti_parse_memfrac(text, &dv, &uv, unit, sizeof unit);
            what = "not a fraction below 1 or a size (e.g. 0.5, 2/3, 512M, 4G)";
        }
        if (row->type == GASNETI_PT_MEMSCOPE && ((rc == 1 && dv == 0.0) || (rc == 0 && uv == 0))) {
            if (errbuf && errlen)
                snprintf(errbuf, errlen, "%s=%s is zero (read as %s 0); use a fraction of "
                         "memory such as 0.5 or a size such as 512M", row->name, text,
                         rc == 1 ? "a fraction of memory" : "a byte count");
            return -1;
        }
        if (rc == 1) {
            iv = -1;
            rc = GASNETI_PARSE_OK;
        } else if (rc == 0) {
            if (uv > (uint64_t)INT64_MAX) rc = GASNETI_PARSE_RANGE;
            iv = (int64_t)uv;
            dv = -1.0;
        }
        break;
    case GASNETI_PT_DOUBLE:
        rc = gasneti_parse_double(text, &dv);
        what = "not a number";
        break;
    case GASNETI_PT_BOOL:
        rc = gasneti_parse_bool(text, &b);
        iv = b;
        snprintf(allowed, sizeof allowed, " (use 1/0, yes/no, y/n, true/false or on/off)");
        what = "not a boolean";
        break;
    case GASNETI_PT_STRING:
        return 0; /* free text: nothing to check or store */
    }
    if (rc == GASNETI_PARSE_OK && out_of_range(row, iv, dv)) rc = GASNETI_PARSE_RANGE;
    if (rc == GASNETI_PARSE_OK) {
        if (out_int) *out_int = iv;
        if (out_double) *out_double = dv;
        return 0;
    }
    if (errbuf && errlen) {
        if (rc == GASNETI_PARSE_UNIT)
            snprintf(errbuf, errlen, "%s=%s: bad size unit '%s' (use K, M, G or T)", row->name,
                     text, unit);
        else if (rc == GASNETI_PARSE_RANGE)
            snprintf(errbuf, errlen, "%s=%s is out of range%s", row->name, text,
                     allowed[0] ? allowed : " (too large)");
        else
            snprintf(errbuf, errlen, "%s=%s: %s%s", row->name, text, what, allowed);
    }
    return -1;
}

/* ---- loading -------------------------------------------------------------- */

static int is_blank(const char *s)
{
    for (; s && *s; s++)
        if (*s != ' ' && *s != '\t' && *s != '\n' && *s != '\r') return 0;
    return 1;
}

static void record_error(const char *msg)
{
    if (!gasneti_param_nerrors++)
        snprintf(gasneti_param_first_error, sizeof gasneti_param_first_error, "%s", msg);
}

/* Copies of environment values.  A copy is never freed (callers may hold
 * gasneti_param_str() pointers across a reload), so every copy stays on
 * this list: reachable to the end, not a leak, and a reload that finds the
 * same text reuses its copy instead of adding one. */
typedef struct gasneti_param_copy_s {
    struct gasneti_param_copy_s *next;
    char text[];
} gasneti_param_copy_t;
static gasneti_param_copy_t *gasneti_param_copies;

static const char *keep_copy(const char *env)
{
    gasneti_param_copy_t *c;
    size_t n = strlen(env);
    for (c = gasneti_param_copies; c; c = c->next)
        if (!strcmp(c->text, env)) return c->text;
    c = malloc(sizeof(*c) + n + 1);
    if (!c) return env;
    memcpy(c->text, env, n + 1);
    c->next = gasneti_param_copies;
    gasneti_param_copies = c;
    return c->text;
}

static void load_row(gasneti_param_id_t id)
{
    const gasneti_param_row_t *row = gasneti_param_row(id);
    gasneti_param_val_t *v = &gasneti_param_vals[id];
    const char *env = getenv(row->name);
    char err[400];

    memset(v, 0, sizeof *v);
    if (!is_blank(env)) {
        /* Keep a copy: the environment may change later (setenv). */
        v->text = keep_copy(env);
        v->set = 1;
        if (gasneti_param_parse(id, v->text, &v->ival, &v->dval, err, sizeof err) == 0) return;
        record_error(err);
        v->set = 0; /* fall back to the default below */
    }
    v->text = row->def[0] ? row->def : NULL;
    if (v->text && gasneti_param_parse(id, v->text, &v->ival, &v->dval, err, sizeof err)) {
        char msg[512];
        snprintf(msg, sizeof msg, "params.def: default of %.400s (internal error)", err);
        record_error(msg);
    }
}

int gasneti_params_load(void)
{
    int i;
    gasneti_param_nerrors = 0;
    gasneti_param_first_error[0] = '\0';
    for (i = 0; i < GASNETI_PARAM_COUNT; i++) load_row((gasneti_param_id_t)i);
    __atomic_store_n(&gasneti_param_state, 2, __ATOMIC_RELEASE);
    return gasneti_param_nerrors;
}

/* Loads the table on first use by any accessor.  Concurrent first users wait
 * for the one that loads. */
static void ensure_loaded(void)
{
    int expect = 0;
    if (__atomic_load_n(&gasneti_param_state, __ATOMIC_ACQUIRE) == 2) return;
    if (__atomic_compare_exchange_n(&gasneti_param_state, &expect, 1, 0, __ATOMIC_ACQ_REL,
                                    __ATOMIC_ACQUIRE)) {
        gasneti_params_load();
        return;
    }
    while (__atomic_load_n(&gasneti_param_state, __ATOMIC_ACQUIRE) != 2) {
    }
}

const char *gasneti_params_error(void)
{
    ensure_loaded();
    return gasneti_param_nerrors ? gasneti_param_first_error : NULL;
}

/* ---- accessors ------------------------------------------------------------ */

static const gasneti_param_val_t *value_of(gasneti_param_id_t id, int ok, const char *accessor)
{
    if ((unsigned)id >= GASNETI_PARAM_COUNT)
        gasneti_fatalerror("%s(%d): no such parameter (internal error)", accessor, (int)id);
    if (!ok)
        gasneti_fatalerror("%s(%s): the row's type is %s; use the matching accessor (internal error)",
                           accessor, gasneti_param_row(id)->name,
                           gasneti_param_type_name(gasneti_param_row(id)->type));
    ensure_loaded();
    return &gasneti_param_vals[id];
}

#define ROWTYPE(id) (((unsigned)(id) < GASNETI_PARAM_COUNT) ? gasneti_param_row(id)->type : GASNETI_PT_STRING)

int64_t gasneti_param_int(gasneti_param_id_t id)
{
    return value_of(id, ROWTYPE(id) == GASNETI_PT_INT || ROWTYPE(id) == GASNETI_PT_SSIZE,
                    "gasneti_param_int")->ival;
}

uint64_t gasneti_param_size(gasneti_param_id_t id)
{
    return (uint64_t)value_of(id, is_size_type(ROWTYPE(id)), "gasneti_param_size")->ival;
}

double gasneti_param_double(gasneti_param_id_t id)
{
    return value_of(id, ROWTYPE(id) == GASNETI_PT_DOUBLE, "gasneti_param_double")->dval;
}

int gasneti_param_bool(gasneti_param_id_t id)
{
    return (int)value_of(id, ROWTYPE(id) == GASNETI_PT_BOOL, "gasneti_param_bool")->ival;
}

const char *gasneti_param_str(gasneti_param_id_t id)
{
    return value_of(id, 1, "gasneti_param_str")->text;
}

int gasneti_param_memfrac(gasneti_param_id_t id, double *fraction, uint64_t *bytes)
{
    const gasneti_param_val_t *v =
        value_of(id, ROWTYPE(id) == GASNETI_PT_MEMFRAC, "gasneti_param_memfrac");
    int is_fraction = v->text && v->ival < 0;
    if (fraction) *fraction = is_fraction ? v->dval : 0.0;
    if (bytes) *bytes = is_fraction ? 0 : (uint64_t)(v->text ? v->ival : 0);
    return is_fraction;
}

int gasneti_param_memscope(gasneti_param_id_t id, double *fraction, uint64_t *bytes, int *scope)
{
    const gasneti_param_val_t *v =
        value_of(id, ROWTYPE(id) == GASNETI_PT_MEMSCOPE, "gasneti_param_memscope");
    double f = 0.0;
    uint64_t n = 0;
    int sc = 0;
    /* The text was parsed at load; parse again for the scope. */
    int rc = v->text ? gasneti_parse_memscope(v->text, &f, &n, &sc, NULL, 0) : 0;
    if (rc < 0) rc = 0, n = 0, sc = 0;
    if (fraction) *fraction = rc == 1 ? f : 0.0;
    if (bytes) *bytes = rc == 1 ? 0 : n;
    if (scope) *scope = sc ? sc : 'P';
    return rc == 1;
}

int gasneti_param_isset(gasneti_param_id_t id)
{
    return value_of(id, 1, "gasneti_param_isset")->set;
}

const char *gasneti_param_name(gasneti_param_id_t id)
{
    return ((unsigned)id < GASNETI_PARAM_COUNT) ? gasneti_param_row(id)->name : "(invalid)";
}

const char *gasneti_param_family_str(gasneti_param_id_t id, unsigned index)
{
    const gasneti_param_val_t *v = value_of(id, 1, "gasneti_param_family_str");
    char name[128];
    const char *env;
    snprintf(name, sizeof name, "%s_%u", gasneti_param_row(id)->name, index);
    env = getenv(name);
    if (!is_blank(env)) return env;
    return v->text;
}

const char *gasneti_getenv_raw(const char *name)
{
    return name ? getenv(name) : NULL;
}

/* ---- GASNET_VERBOSEENV and warnings --------------------------------------- */

/* Whether NAME (length len) is NAME_<digits> of a FAMILY row. */
static int is_family_member(const char *name, size_t len)
{
    int i;
    for (i = 0; i < GASNETI_PARAM_COUNT; i++) {
        const gasneti_param_row_t *row = gasneti_param_row((gasneti_param_id_t)i);
        size_t n = strlen(row->name), k;
        if (!(row->flags & GASNETI_PF_FAMILY) || len < n + 2) continue;
        if (strncmp(name, row->name, n) || name[n] != '_') continue;
        for (k = n + 1; k < len && name[k] >= '0' && name[k] <= '9'; k++) {
        }
        if (k == len) return 1;
    }
    return 0;
}

static void warn_unknown(const char *entry)
{
    const char *eq = strchr(entry, '=');
    size_t len = eq ? (size_t)(eq - entry) : strlen(entry);
    char name[128];
    unsigned best = ~0u, limit;
    const char *best_name = NULL;
    int i;

    if (len >= sizeof name || (eq && is_blank(eq + 1))) return;
    memcpy(name, entry, len);
    name[len] = '\0';
    for (i = 0; i < GASNETI_PARAM_COUNT; i++)
        if (!strcmp(name, gasneti_param_row((gasneti_param_id_t)i)->name)) return;
    if (is_family_member(name, len)) return;
    /* Another spelling of one of our names: getenv is case-sensitive, so
     * the value would be ignored without a word. */
    for (i = 0; i < GASNETI_PARAM_COUNT; i++) {
        const gasneti_param_row_t *row = gasneti_param_row((gasneti_param_id_t)i);
        if (!(row->flags & GASNETI_PF_INTERNAL) && !strcasecmp(name, row->name)) {
            gasneti_warning("%s is ignored: variable names are case-sensitive (use %s)", name,
                            row->name);
            return;
        }
    }
    if (strncmp(name, "GASNET_", 7)) return; /* gasnet_*: a client's own */
    for (i = 0; i < GASNETI_PARAM_COUNT; i++) {
        const gasneti_param_row_t *row = gasneti_param_row((gasneti_param_id_t)i);
        unsigned d;
        if (row->flags & (GASNETI_PF_INTERNAL | GASNETI_PF_FOREIGN)) continue;
        d = gasneti_edit_distance(name, row->name);
        if (d < best) {
            best = d;
            best_name = row->name;
        }
    }
    /* Only plausible typos of our names: a few edits, relative to the
     * length.  Other GASNET_* names are left alone: clients define their
     * own (GASNet's tests read GASNET_DUMMY, GASNET_TEST_POLITE_SYNC with
     * gasnet_getenv), and GASNet's other conduits have theirs. */
    limit = len > 7 ? (unsigned)(len - 7) / 3 : 0;
    if (limit < 2) limit = 2;
    if (best_name && best > 0 && best <= limit)
        gasneti_warning("%s is not a known variable (did you mean %s?)", name, best_name);
}

static void print_row(gasneti_param_id_t id)
{
    const gasneti_param_row_t *row = gasneti_param_row(id);
    const gasneti_param_val_t *v = &gasneti_param_vals[id];
    const char *shown = v->text ? v->text
                                : (row->type == GASNETI_PT_STRING ? "(unset)" : "(computed)");
    gasneti_info("%s = %s   (%s)", row->name, shown, v->set ? "set" : "default");
    if (row->flags & GASNETI_PF_FAMILY) {
        size_t n = strlen(row->name);
        char **e;
        for (e = environ; e && *e; e++) {
            const char *eq = strchr(*e, '=');
            if (eq && !strncmp(*e, row->name, n) && is_family_member(*e, (size_t)(eq - *e)) &&
                !is_blank(eq + 1))
                gasneti_info("%.*s = %s   (set)", (int)(eq - *e), *e, eq + 1);
        }
    }
}

/* Whether a set value means the row's default (NOEFFECT rows: "0" for a
 * default of "no", any case of a string default). */
static int same_as_default(gasneti_param_id_t id)
{
    const gasneti_param_row_t *row = gasneti_param_row(id);
    const gasneti_param_val_t *v = &gasneti_param_vals[id];
    int64_t iv = 0;
    double dv = 0.0;
    if (!row->def[0]) return 0;
    if (row->type == GASNETI_PT_STRING) return !strcasecmp(v->text, row->def);
    if (gasneti_param_parse(id, row->def, &iv, &dv, NULL, 0)) return 0;
    return iv == v->ival && dv == v->dval;
}

void gasneti_params_report(void)
{
    int i;
    char **e;
    ensure_loaded();
    if (gasneti_param_vals[GASNETI_PARAM_GASNET_VERBOSEENV].ival) {
        for (i = 0; i < GASNETI_PARAM_COUNT; i++)
            if (!(gasneti_param_row((gasneti_param_id_t)i)->flags &
                  (GASNETI_PF_INTERNAL | GASNETI_PF_FOREIGN)))
                print_row((gasneti_param_id_t)i);
    }
    for (i = 0; i < GASNETI_PARAM_COUNT; i++) {
        const gasneti_param_row_t *row = gasneti_param_row((gasneti_param_id_t)i);
        if ((row->flags & GASNETI_PF_DEPRECATED) && gasneti_param_vals[i].set)
            gasneti_warning("%s=%s: %s", row->name, gasneti_param_vals[i].text,
                            row->doc);
        if ((row->flags & GASNETI_PF_NOEFFECT) && gasneti_param_vals[i].set &&
            !same_as_default((gasneti_param_id_t)i))
            gasneti_warning("%s=%s has no effect in this library (%s)", row->name,
                            gasneti_param_vals[i].text, row->doc);
        if ((row->flags & GASNETI_PF_FOREIGN) && gasneti_param_vals[i].set)
            gasneti_warning("%s=%s is ignored (another GASNet conduit's setting): %s",
                            row->name, gasneti_param_vals[i].text, row->doc);
    }
    for (e = environ; e && *e; e++)
        if (!strncasecmp(*e, "GASNET_", 7)) warn_unknown(*e);
}
