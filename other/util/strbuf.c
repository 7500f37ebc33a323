/* other/util/strbuf.c: see strbuf.h. */
#include "other/util/strbuf.h"

#include <stdarg.h>
#include <stdio.h>

void gasneti_strbuf_append(char *buf, size_t bufsz, size_t *len, const char *fmt, ...)
{
    va_list ap;
    int n;
    if (bufsz == 0 || *len + 1 >= bufsz) return;
    va_start(ap, fmt);
    n = vsnprintf(buf + *len, bufsz - *len, fmt, ap);
    va_end(ap);
    if (n <= 0) return;
    *len = (size_t)n < bufsz - *len ? *len + (size_t)n : bufsz - 1;
}
