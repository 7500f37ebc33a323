/* tests/fuzz/fuzz-portspec.c: libFuzzer target for the GASNET_IBV_PORTS
 * parser (core/ibv/ports/ports_parse.c), the HCA and port filter a user or
 * a batch system sets.
 *
 * Input: the value (NUL ends it).  A refusal leaves a terminated one-line
 * reason and an empty filter; an accepted value gives entries with a
 * terminated, non-empty, distinct HCA name each (duplicates merged), ports
 * only in 1..254, and lookups that find every entry by its name.  See
 * README. */
#include "core/ibv/ports/ports_parse.h"
#include "tests/fuzz/fuzz-check.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
    if (size > 4096) return 0;
    char *text = fuzz_text(data, size);

    gasnetc_ibv_portspec_t spec;
    char err[256];
    memset(err, 'Q', sizeof(err));
    int rc = gasnetc_ibv_portspec_parse(text, &spec, err, sizeof(err));
    free(text);
    FUZZ_CHECK(rc == 0 || rc == -1);
    if (rc != 0) {
        FUZZ_CHECK(memchr(err, '\0', sizeof(err)) != NULL && !strchr(err, '\n'));
        FUZZ_CHECK(spec.count == 0 && spec.entries == NULL);
        return 0;
    }
    FUZZ_CHECK(spec.count >= 0 && (spec.count == 0) == (spec.entries == NULL));
    for (int i = 0; i < spec.count; i++) {
        const gasnetc_ibv_portspec_entry_t *e = &spec.entries[i];
        FUZZ_CHECK(memchr(e->hca, '\0', sizeof(e->hca)) != NULL && e->hca[0] != '\0');
        FUZZ_CHECK((e->ports[0] & 1u) == 0 && (e->ports[3] >> 63) == 0); /* ports 0, 255 */
        FUZZ_CHECK(gasnetc_ibv_portspec_find(&spec, e->hca) == e);
        for (int j = 0; j < i; j++) FUZZ_CHECK(strcmp(spec.entries[j].hca, e->hca) != 0);
    }
    gasnetc_ibv_portspec_free(&spec);
    FUZZ_CHECK(spec.count == 0 && spec.entries == NULL);
    return 0;
}
