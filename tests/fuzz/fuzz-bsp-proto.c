/* tests/fuzz/fuzz-bsp-proto.c: libFuzzer target for the launcher protocol
 * decoder (bootstrap/local/proto.c), the code every rank and gasnetrun_ibv
 * run on bytes read from their sockets.
 *
 * Input: byte 0 picks the direction (bits 0-1: GASNETI_BSP_DIR_*) and the
 * entry point (bit 2: gasneti_bsp_rx_read on a pipe, else rx_feed); byte 1
 * seeds the fragmentation; the rest is the stream.  Every frame the decoder
 * hands out must be a valid type for the direction, within the size limit,
 * and re-encode to exactly the bytes it consumed; a refused header must
 * really be invalid.  Allocations above 1 MiB fail here (see
 * fuzz_bsp_malloc), which exercises the decoder's NOMEM path and keeps
 * the target fast; a NOMEM must come from a valid header.  See README. */
#include "bootstrap/local/proto.h"
#include "tests/fuzz/fuzz-check.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static uint32_t limit(int dir)
{
    return dir >= GASNETI_BSP_DIR_DOWN ? GASNETI_BSP_MAX_PAYLOAD + GASNETI_BSP_LINK_SLACK
                                       : GASNETI_BSP_MAX_PAYLOAD;
}

/* Checks one decoded frame against the bytes it came from (off: where its
 * header began in the stream). */
static void check_frame(int dir, const unsigned char *stream, size_t off, size_t end,
                        uint32_t type, uint32_t len, const unsigned char *payload)
{
    unsigned char hdr[GASNETI_BSP_HDR_LEN];
    FUZZ_CHECK(gasneti_bsp_type_valid(type, dir));
    FUZZ_CHECK(len <= limit(dir));
    FUZZ_CHECK(strcmp(gasneti_bsp_type_name(type), "unknown") != 0);
    FUZZ_CHECK(end - off == GASNETI_BSP_HDR_LEN + (size_t)len);
    gasneti_bsp_hdr_pack(hdr, type, len);
    FUZZ_CHECK(memcmp(hdr, stream + off, sizeof(hdr)) == 0);
    FUZZ_CHECK((len == 0) == (payload == NULL));
    if (len) FUZZ_CHECK(memcmp(payload, stream + off + GASNETI_BSP_HDR_LEN, len) == 0);
}

/* A refused header: it must name a type the direction does not take or a
 * length above the limit. */
static void check_bad(int dir, const unsigned char *stream, size_t off, size_t end)
{
    uint32_t type, len;
    FUZZ_CHECK(end - off >= GASNETI_BSP_HDR_LEN);
    gasneti_bsp_hdr_unpack(stream + off, &type, &len);
    FUZZ_CHECK(!gasneti_bsp_type_valid(type, dir) || len > limit(dir));
}

/* A header the decoder could not allocate for: valid, with a payload. */
static void check_nomem(int dir, const unsigned char *stream, size_t off, size_t end)
{
    uint32_t type, len;
    FUZZ_CHECK(end - off == GASNETI_BSP_HDR_LEN);
    gasneti_bsp_hdr_unpack(stream + off, &type, &len);
    FUZZ_CHECK(gasneti_bsp_type_valid(type, dir) && len > 0 && len <= limit(dir));
}

/* Checks a decoder result at stream offset pos (start: where the current
 * frame began).  FRAME: takes and checks it, returns 0.  BAD, NOMEM: checks
 * the header, returns 1 (callers drop the stream).  Else returns -1. */
static int outcome(int rc, gasneti_bsp_rx_t *rx, int dir, const unsigned char *s, size_t *start,
                   size_t pos)
{
    if (rc == GASNETI_BSP_RX_FRAME) {
        uint32_t type, len;
        unsigned char *p = gasneti_bsp_rx_take(rx, &type, &len);
        check_frame(dir, s, *start, pos, type, len, p);
        free(p);
        *start = pos;
        return 0;
    }
    if (rc == GASNETI_BSP_RX_BAD) {
        check_bad(dir, s, *start, pos);
        return 1;
    }
    if (rc == GASNETI_BSP_RX_NOMEM) {
        check_nomem(dir, s, *start, pos);
        return 1;
    }
    return -1;
}

/* Next fragment length, 1..64, from a tiny generator seeded by the input. */
static size_t next_chunk(unsigned *seed)
{
    *seed = *seed * 1103515245u + 12345u;
    return 1 + ((*seed >> 16) & 63u);
}

static void run_feed(int dir, unsigned seed, const unsigned char *s, size_t n)
{
    gasneti_bsp_rx_t rx;
    gasneti_bsp_rx_init(&rx, dir);
    size_t pos = 0, start = 0;
    while (pos < n) {
        size_t chunk = next_chunk(&seed), used;
        if (chunk > n - pos) chunk = n - pos;
        int rc = gasneti_bsp_rx_feed(&rx, s + pos, chunk, &used);
        FUZZ_CHECK(used <= chunk);
        pos += used;
        int done = outcome(rc, &rx, dir, s, &start, pos);
        if (done > 0) break;
        if (done < 0) {
            FUZZ_CHECK(rc == GASNETI_BSP_RX_MORE);
            FUZZ_CHECK(used == chunk);
        }
    }
    gasneti_bsp_rx_fini(&rx);
}

/* The same stream through read(2) on a pipe, as the launcher reads it. */
static void run_read(int dir, const unsigned char *s, size_t n)
{
    int fds[2];
    FUZZ_CHECK(pipe(fds) == 0);
    FUZZ_CHECK(fcntl(fds[0], F_SETFL, O_NONBLOCK) == 0);
    size_t wrote = 0;
    while (wrote < n) { /* inputs are small (-max_len): the pipe holds them */
        ssize_t w = write(fds[1], s + wrote, n - wrote);
        FUZZ_CHECK(w > 0);
        wrote += (size_t)w;
    }
    close(fds[1]);
    gasneti_bsp_rx_t rx;
    gasneti_bsp_rx_init(&rx, dir);
    size_t start = 0, pos = 0;
    for (;;) {
        int rc = gasneti_bsp_rx_read(&rx, fds[0]);
        /* Bytes consumed so far: the decoder's own counters. */
        pos = start + rx.hdr_got + (rx.hdr_got == GASNETI_BSP_HDR_LEN ? rx.got : 0);
        int done = outcome(rc, &rx, dir, s, &start, pos);
        if (done > 0) break;
        if (done == 0) continue;
        if (rc == GASNETI_BSP_RX_EOF) {
            FUZZ_CHECK(pos == n);
            break;
        } else {
            FUZZ_CHECK(rc == GASNETI_BSP_RX_MORE);
            FUZZ_CHECK(pos <= n);
        }
    }
    gasneti_bsp_rx_fini(&rx);
    close(fds[0]);
}

/* The decoder is compiled with -Dmalloc=fuzz_bsp_malloc (tests/fuzz/local.mk):
 * payloads above 1 MiB fail to allocate, which exercises its NOMEM path and
 * keeps each input fast (no mapping of up to 1 GiB). */
void *fuzz_bsp_malloc(size_t n);
void *fuzz_bsp_malloc(size_t n)
{
    return n > ((size_t)1 << 20) ? NULL : malloc(n);
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
    if (size < 2 || size > 60000) return 0;
    int dir = data[0] & 3;
    unsigned seed = data[1];
    /* A private copy of exactly the stream: ASan sees any overread. */
    size_t n = size - 2;
    unsigned char *s = malloc(n ? n : 1);
    FUZZ_CHECK(s != NULL);
    memcpy(s, data + 2, n);
    if (data[0] & 4)
        run_read(dir, s, n);
    else
        run_feed(dir, seed, s, n);
    free(s);
    return 0;
}
