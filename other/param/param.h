/* other/param/param.h: the one parameter table and its loader.
 *
 * Every environment variable the library reads is a row of params.def
 * (X-macro; see the comment at its top).  The loader parses all of them
 * once, with the same parser for defaults, limits and user input; nothing
 * outside other/param calls getenv().
 *
 * Thread safety: gasneti_params_load() runs once before any thread exists;
 * the accessors only read and may be called from anywhere, including AM
 * handlers.
 */
#ifndef GASNETI_PARAM_H
#define GASNETI_PARAM_H

#include <stddef.h>
#include <stdint.h>

typedef enum {
#define GASNETI_PARAM(name, type, def, min, max, flags, doc) GASNETI_PARAM_##name,
#include "other/param/params.def"
#undef GASNETI_PARAM
    GASNETI_PARAM_COUNT
} gasneti_param_id_t;

/* Value types (the TYPE column of params.def). */
typedef enum {
    GASNETI_PT_INT,     /* signed integer; decimal or 0x hex */
    GASNETI_PT_SSIZE,   /* a SIZE, or a negative integer (-1 = special); read with _INT */
    GASNETI_PT_SIZE,    /* byte count; optional K/M/G/T suffix (powers of 1024) */
    GASNETI_PT_SIZE_K,  /* like SIZE, but a bare number means KiB */
    GASNETI_PT_SIZE_M,  /* like SIZE, but a bare number means MiB */
    GASNETI_PT_MEMFRAC, /* a fraction of memory ("0.5", "2/3") or a SIZE */
    GASNETI_PT_MEMSCOPE, /* a MEMFRAC, then /P (per process) or /H (per host) */
    GASNETI_PT_DOUBLE,  /* floating point */
    GASNETI_PT_BOOL,    /* 1/0, yes/no, y/n, true/false, on/off (any case) */
    GASNETI_PT_STRING   /* free text; MIN/MAX unused */
} gasneti_param_type_t;

/* FLAGS column (or-ed). */
#define GASNETI_PF_NONE 0
#define GASNETI_PF_FAMILY 1     /* NAME_<n> per-process variants exist (see _family) */
#define GASNETI_PF_INTERNAL 2   /* set by gasnetrun_ibv for its children; not for users */
#define GASNETI_PF_DEPRECATED 4 /* warn when set non-empty */
#define GASNETI_PF_NOEFFECT 8   /* GASNet's, read for compatibility: warn when not the default */
#define GASNETI_PF_FOREIGN 16   /* another GASNet conduit's: never acted on; warn when set */

/* Parses every row from the environment.  Errors are recorded, not printed,
 * so that the caller can report them once for the whole job; an invalid row
 * keeps its default.  Returns the number of invalid values (0 = all good).
 * May be called again (unit tests); strings returned earlier stay valid. */
int gasneti_params_load(void);

/* The first recorded error as one line, e.g.
 * "GASNET_AM_CREDITS_PP=abc: not an integer (allowed: 1..256)", or NULL. */
const char *gasneti_params_error(void);

/* GASNET_VERBOSEENV output (each parameter, value, "(default)" or "(set)")
 * and a "did you mean" warning for each GASNET_* variable that no row
 * declares but is a near-miss of a row's name (other unknown names are the
 * client's own: no warning).  Call once, on one rank, after load. */
void gasneti_params_report(void);

/* Typed accessors.  Calling the wrong accessor for a row's type is a bug and
 * aborts in debug builds. */
int64_t gasneti_param_int(gasneti_param_id_t id);
uint64_t gasneti_param_size(gasneti_param_id_t id);
double gasneti_param_double(gasneti_param_id_t id);
int gasneti_param_bool(gasneti_param_id_t id);
/* STRING rows: the value, or NULL when unset and the default is empty.
 * (On other rows: the text in effect, set or default, or NULL.) */
const char *gasneti_param_str(gasneti_param_id_t id);
/* MEMFRAC rows: stores either a fraction (<1.0) or an absolute size.
 * Returns 1 for a fraction (*fraction set, *bytes = 0), 0 for a size
 * (*bytes set, *fraction = 0).  Either pointer may be NULL. */
int gasneti_param_memfrac(gasneti_param_id_t id, double *fraction, uint64_t *bytes);
/* MEMSCOPE rows: as gasneti_param_memfrac, and *scope = 'P' (per process;
 * also when no suffix was given) or 'H' (per host: the caller divides it
 * among the processes of the host).  Any pointer may be NULL. */
int gasneti_param_memscope(gasneti_param_id_t id, double *fraction, uint64_t *bytes, int *scope);
/* Whether the variable was set in the environment (non-empty). */
int gasneti_param_isset(gasneti_param_id_t id);
/* The variable's name, e.g. "GASNET_AM_CREDITS_PP". */
const char *gasneti_param_name(gasneti_param_id_t id);

/* FAMILY rows: the raw text of NAME_<index> if set, else of NAME, else the
 * default (may be NULL for an empty default).  Parsed by the caller. */
const char *gasneti_param_family_str(gasneti_param_id_t id, unsigned index);

/* Parses TEXT as a value of row ID into *out_int or *out_double (whichever
 * the type uses), checking the row's range.  Returns 0, or -1 with a one-line
 * message in errbuf.  Used by the loader and by unit tests.
 * INT/BOOL/SIZE*: *out_int.  DOUBLE: *out_double.  MEMFRAC: a fraction sets
 * *out_double and *out_int = -1; a size sets *out_int and *out_double = -1.
 * STRING: always 0, nothing stored.  Thread-safe; handler-safe. */
int gasneti_param_parse(gasneti_param_id_t id, const char *text, int64_t *out_int,
                        double *out_double, char *errbuf, size_t errlen);

/* Raw environment lookup for names that are not parameters of this library
 * (the public gasnet_getenv / gasnett_getenv).  Returns NULL when unset. */
const char *gasneti_getenv_raw(const char *name);

/* Convenience: GASNETI_PARAM_INT(GASNET_AM_CREDITS_PP) etc. */
#define GASNETI_PARAM_INT(name) gasneti_param_int(GASNETI_PARAM_##name)
#define GASNETI_PARAM_SIZE(name) gasneti_param_size(GASNETI_PARAM_##name)
#define GASNETI_PARAM_BOOL(name) gasneti_param_bool(GASNETI_PARAM_##name)
#define GASNETI_PARAM_DOUBLE(name) gasneti_param_double(GASNETI_PARAM_##name)
#define GASNETI_PARAM_STR(name) gasneti_param_str(GASNETI_PARAM_##name)

#endif /* GASNETI_PARAM_H */
