/* other/tools/tools-env.c: the gasnett_getenv family.
 *
 * Lookups go through gasneti_getenv_raw (other/param is the only module
 * that touches the environment) and values are parsed by the same parsers
 * as the library's own parameters, so "64K" or "yes" mean the same
 * everywhere.  Under GASNET_VERBOSEENV each key is reported once, in the
 * same format as the library's own variables.
 */
#include <gasnet_tools.h>

#include "other/log/log.h"
#include "other/param/param-parse.h"
#include "other/param/param.h"

#include <stdio.h>
#include <string.h>

/* Keys already reported under GASNET_VERBOSEENV (a small fixed set; keys
 * beyond it are simply reported again). */
#define GASNETI_TOOLS_MAX_REPORTED 128
static char *gasneti_tools_reported[GASNETI_TOOLS_MAX_REPORTED];
static pthread_mutex_t gasneti_tools_report_lock = PTHREAD_MUTEX_INITIALIZER;

/* Returns 1 the first time KEY is seen (and remembers it), else 0. */
static int first_report(const char *key)
{
    int i, first = 1;
    pthread_mutex_lock(&gasneti_tools_report_lock);
    for (i = 0; i < GASNETI_TOOLS_MAX_REPORTED && gasneti_tools_reported[i]; i++)
        if (!strcmp(gasneti_tools_reported[i], key)) {
            first = 0;
            break;
        }
    if (first && i < GASNETI_TOOLS_MAX_REPORTED) gasneti_tools_reported[i] = strdup(key);
    pthread_mutex_unlock(&gasneti_tools_report_lock);
    return first;
}

static const char *nonempty(const char *s)
{
    return (s && s[0]) ? s : NULL;
}

int gasnett_verboseenv(void)
{
    return gasneti_param_bool(GASNETI_PARAM_GASNET_VERBOSEENV);
}

void gasnett_envstr_display(const char *key, const char *val, int is_dflt)
{
    if (!gasnett_verboseenv() || !first_report(key)) return;
    gasneti_info("%s = %s   (%s)", key, val ? val : "(unset)", is_dflt ? "default" : "set");
}

void gasnett_envint_display(const char *key, int64_t val, int is_dflt, int is_mem_size)
{
    char buf[64];
    if (!gasnett_verboseenv()) return;
    gasnett_format_number(val, buf, sizeof buf, is_mem_size);
    gasnett_envstr_display(key, buf, is_dflt);
}

void gasnett_envdbl_display(const char *key, double val, int is_dflt)
{
    char buf[64];
    if (!gasnett_verboseenv()) return;
    snprintf(buf, sizeof buf, "%g", val);
    gasnett_envstr_display(key, buf, is_dflt);
}

char *gasnett_getenv(const char *keyname)
{
    return (char *)gasneti_getenv_raw(keyname);
}

char *gasnett_getenv_withdefault(const char *keyname, const char *defaultval)
{
    const char *v = nonempty(gasneti_getenv_raw(keyname));
    gasnett_envstr_display(keyname, v ? v : defaultval, !v);
    return (char *)(v ? v : defaultval);
}

int gasnett_getenv_yesno_withdefault(const char *keyname, int defaultval)
{
    const char *v = nonempty(gasneti_getenv_raw(keyname));
    int b = !!defaultval;
    if (v && gasneti_parse_bool(v, &b) != GASNETI_PARSE_OK)
        gasneti_fatalerror("%s=%s: not a boolean (use 1/0, yes/no, y/n, true/false or on/off)",
                           keyname, v);
    gasnett_envstr_display(keyname, b ? "YES" : "NO", !v);
    return b;
}

/* Parses an integer or (mult != 0) a size; fatal with a one-line message. */
static int64_t parse_int_or_size(const char *key, const char *text, uint64_t mult)
{
    char unit[16];
    if (mult) {
        uint64_t bytes;
        int rc = gasneti_parse_size(text, mult, &bytes, unit, sizeof unit);
        if (rc == GASNETI_PARSE_OK && bytes <= (uint64_t)INT64_MAX) return (int64_t)bytes;
        if (rc == GASNETI_PARSE_UNIT)
            gasneti_fatalerror("%s=%s: bad size unit '%s' (use K, M, G or T)", key, text, unit);
        gasneti_fatalerror("%s=%s: not a size (a number with an optional K, M, G or T suffix)",
                           key, text);
    } else {
        int64_t v;
        int rc = gasneti_parse_int(text, &v);
        if (rc == GASNETI_PARSE_OK) return v;
        gasneti_fatalerror("%s=%s: %s", key, text,
                           rc == GASNETI_PARSE_RANGE ? "out of range for a 64-bit integer"
                                                     : "not an integer");
    }
}

int64_t gasnett_getenv_int_withdefault(const char *keyname, int64_t defaultval,
                                       uint64_t mem_size_multiplier)
{
    const char *v = nonempty(gasneti_getenv_raw(keyname));
    int64_t r = v ? parse_int_or_size(keyname, v, mem_size_multiplier) : defaultval;
    gasnett_envint_display(keyname, r, !v, mem_size_multiplier != 0);
    return r;
}

double gasnett_getenv_dbl_withdefault(const char *keyname, double defaultval)
{
    const char *v = nonempty(gasneti_getenv_raw(keyname));
    double d = defaultval;
    if (v && gasneti_parse_double(v, &d) != GASNETI_PARSE_OK)
        gasneti_fatalerror("%s=%s: not a number (e.g. 1.5, -1e4 or 3/8)", keyname, v);
    gasnett_envdbl_display(keyname, d, !v);
    return d;
}

int64_t gasnett_parse_int(const char *str, uint64_t mem_size_multiplier)
{
    return parse_int_or_size("gasnett_parse_int", str ? str : "", mem_size_multiplier);
}

char *gasnett_format_number(int64_t val, char *buf, size_t bufsz, int is_mem_size)
{
    static const char units[] = "KMGT";
    uint64_t mag = val < 0 ? (uint64_t)0 - (uint64_t)val : (uint64_t)val;
    int u = -1;
    if (is_mem_size) {
        /* Largest unit that divides the value exactly. */
        while (u < 3 && mag >= 1024 && mag % 1024 == 0) {
            mag /= 1024;
            u++;
        }
        if (u >= 0)
            snprintf(buf, bufsz, "%s%llu %cB", val < 0 ? "-" : "", (unsigned long long)mag,
                     units[u]);
        else
            snprintf(buf, bufsz, "%s%llu B", val < 0 ? "-" : "", (unsigned long long)mag);
    } else {
        snprintf(buf, bufsz, "%lld", (long long)val);
    }
    return buf;
}
