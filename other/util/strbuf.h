/* other/util/strbuf.h: bounded text building into a caller's buffer.
 *
 * For reports and descriptions built from several printf pieces (port
 * listings, VIS descriptions).  Never writes past bufsz; output that does
 * not fit is cut, and the buffer stays NUL-terminated.
 */
#ifndef GASNETI_STRBUF_H
#define GASNETI_STRBUF_H

#include <stddef.h>

/* Appends printf output to buf, which holds *len bytes of text and has room
 * for bufsz bytes; *len grows by what was written (at most bufsz - 1). */
void gasneti_strbuf_append(char *buf, size_t bufsz, size_t *len, const char *fmt, ...)
    __attribute__((__format__(__printf__, 4, 5)));

#endif /* GASNETI_STRBUF_H */
