/* tests/fuzz/fuzz-check.h: the property check of the fuzz targets: a
 * failed condition prints itself and aborts, which libFuzzer reports as a
 * crash and saves the input. */
#ifndef FUZZ_CHECK_H
#define FUZZ_CHECK_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FUZZ_CHECK(cond)                                                          \
    do {                                                                          \
        if (!(cond)) {                                                            \
            fprintf(stderr, "fuzz check failed: %s:%d: %s\n", __FILE__, __LINE__, \
                    #cond);                                                       \
            abort();                                                              \
        }                                                                         \
    } while (0)

/* The input as a C string (a NUL in it ends it early, as in an
 * environment) in exactly size+1 malloc'd bytes, so that ASan sees any read
 * past the NUL.  The caller frees it. */
static inline char *fuzz_text(const unsigned char *data, size_t size)
{
    char *text = malloc(size + 1);
    FUZZ_CHECK(text != NULL);
    if (size) memcpy(text, data, size);
    text[size] = '\0';
    return text;
}

#endif /* FUZZ_CHECK_H */
