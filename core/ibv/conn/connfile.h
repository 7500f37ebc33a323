/* core/ibv/conn/connfile.h: connect files (GASNET_CONNECTFILE_IN/OUT/BASE),
 * pure text handling with no verbs and no I/O, so the unit tests drive it
 * (tests/unit/test-ibv-conn.c).  Format (seed README, GASNET_CONNECTFILE_IN):
 *
 *   size: N          optional, decimal; must equal the job size
 *   base: B          optional, decimal 2..36; node numbers on later lines
 *   7: 0 4 6         node 7 connects to 0, 4 and 6 (node numbers in base B)
 *   6:9-12           ranges; a node may have several lines
 *
 * Connections are bidirectional: "1:0" and "0:1" name the same pair.
 */
#ifndef GASNETC_IBV_CONNFILE_H
#define GASNETC_IBV_CONNFILE_H

#include <stddef.h>
#include <stdint.h>

/* Replaces every '%' of pattern with rank (decimal) into out.  Returns 0,
 * or -1 when out (n bytes) is too small. */
int gasnetc_connfile_path(const char *pattern, uint32_t rank, char *out, size_t n);

/* Parses text (a whole file, NUL-terminated; name for messages) and sets
 * want[p] = 1 for every peer p < size that the file pairs with rank me
 * (lines "me: .. p .." and lines "p: .. me .."); want[me] stays untouched.
 * Returns 0, or -1 with one line in err naming the file, the line and the
 * culprit. */
int gasnetc_connfile_parse(const char *text, const char *name, uint32_t me, uint32_t size,
                           uint8_t *want, char *err, size_t errlen);

/* The file rank me writes for the peers p with used[p] != 0: "base: B",
 * "size: N", then "me: a b-c ..." (consecutive peers as ranges) in base B,
 * at most ~100 characters per line.  malloc'ed, NUL-terminated; NULL when
 * out of memory. */
char *gasnetc_connfile_format(uint32_t me, uint32_t size, const uint8_t *used, int base);

#endif /* GASNETC_IBV_CONNFILE_H */
