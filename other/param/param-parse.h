/* other/param/param-parse.h: the text parsers behind every parameter.
 *
 * Pure functions (no environment, no state, no logging): the loader in
 * param.c, gasnett_getenv_*_withdefault and the unit tests all use them, so a
 * value means the same thing wherever it is read.  Leading and trailing
 * whitespace is ignored; anything else that does not fit is an error.
 * All are thread-safe and may be called from AM handlers.
 */
#ifndef GASNETI_PARAM_PARSE_H
#define GASNETI_PARAM_PARSE_H

#include <stddef.h>
#include <stdint.h>

/* Result codes of the parsers. */
#define GASNETI_PARSE_OK 0
#define GASNETI_PARSE_SYNTAX (-1) /* not a value of this kind */
#define GASNETI_PARSE_RANGE (-2)  /* a value, but it does not fit the C type */
#define GASNETI_PARSE_UNIT (-3)   /* a size with an unknown unit suffix */

/* Signed integer: optional sign, then decimal digits or 0x/0X and hex
 * digits.  Returns a GASNETI_PARSE_* code; *out is set only on success. */
int gasneti_parse_int(const char *text, int64_t *out);

/* Floating point (as strtod, finite values only) or a fraction "a/b" of two
 * such numbers with b != 0.  Returns a GASNETI_PARSE_* code. */
int gasneti_parse_double(const char *text, double *out);

/* Boolean: 1/0, yes/no, y/n, true/false, on/off, any case.  *out = 1 or 0.
 * Returns GASNETI_PARSE_OK or GASNETI_PARSE_SYNTAX. */
int gasneti_parse_bool(const char *text, int *out);

/* Byte count: a non-negative number (decimal, may have a fraction, or 0x hex)
 * with an optional unit K, M, G or T (powers of 1024, any case, optionally
 * followed by "iB" or "B"), or B for bytes.  A bare number is multiplied by
 * bare_unit (1 for SIZE, 1024 for SIZE_K, 1048576 for SIZE_M).  The result is
 * rounded to a whole byte.  On GASNETI_PARSE_UNIT the offending suffix is
 * copied (trimmed, NUL-terminated, truncated) to badunit when non-NULL. */
int gasneti_parse_size(const char *text, uint64_t bare_unit, uint64_t *out,
                       char *badunit, size_t badunit_len);

/* Memory amount: a fraction of memory when the text is a number or "a/b"
 * below 1.0 (result 1, *fraction set, *bytes = 0), otherwise a size as above
 * with bare_unit 1 (result 0, *bytes set, *fraction = 0).  Negative
 * fractions are GASNETI_PARSE_SYNTAX.  Returns 1, 0 or a negative code. */
int gasneti_parse_memfrac(const char *text, double *fraction, uint64_t *bytes,
                          char *badunit, size_t badunit_len);

/* Memory amount with GASNet's optional scope suffix, as GASNET_MAX_SEGSIZE
 * takes it: "<fraction or size>[/P|/H]" ("0.85/H", "128.0MB/P", "4GB/P",
 * "2/3/h"; the '/' may be left out: "0.85H").  The part before the suffix is
 * read as gasneti_parse_memfrac reads it.  *scope = 'P' (per process), 'H'
 * (per host, to be divided among the host's processes) or 0 (no suffix:
 * per process).  Returns as gasneti_parse_memfrac. */
int gasneti_parse_memscope(const char *text, double *fraction, uint64_t *bytes, int *scope,
                           char *badunit, size_t badunit_len);

/* Optimal-string-alignment edit distance (insertions, deletions,
 * substitutions, adjacent transpositions), case-sensitive; strings longer
 * than 127 characters are compared on their first 127. */
unsigned gasneti_edit_distance(const char *a, const char *b);

#endif /* GASNETI_PARAM_PARSE_H */
