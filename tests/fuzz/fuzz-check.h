/* tests/fuzz/fuzz-check.h: the property check of the fuzz targets: a
 * failed condition prints itself and aborts, which libFuzzer reports as a
 * crash and saves the input. */
#ifndef FUZZ_CHECK_H
#define FUZZ_CHECK_H

#include <stdio.h>
#include <stdlib.h>

#define FUZZ_CHECK(cond)                                                          \
    do {                                                                          \
        if (!(cond)) {                                                            \
            fprintf(stderr, "fuzz check failed: %s:%d: %s\n", __FILE__, __LINE__, \
                    #cond);                                                       \
            abort();                                                              \
        }                                                                         \
    } while (0)

#endif /* FUZZ_CHECK_H */
