/* tests/fuzz/fuzz-launch-setup.c: libFuzzer target for the SETUP message
 * decoder of gasnetrun_ibv's ssh nodes (contrib/launcher/setup.c), which
 * reads what arrives on an ssh session's stdin.
 *
 * Arbitrary bytes go to gasnetrun_setup_unpack.  A refusal leaves a
 * terminated message and a zeroed struct; an accepted message is
 * consistent (hosts in range and named, a remote shell and a program), and
 * its re-encoding decodes to a struct that encodes to the same bytes.
 * The same bytes, up to the first NUL, are also a GASNET_SSH_OPTIONS value
 * for the shell-word splitter: a refusal is one terminated line, an
 * accepted value gives as many words as it says, none containing the
 * unquoted blanks that separated them, and a Slurm node list for its
 * expander: a refusal is one terminated line, an accepted list names at
 * most GASNETRUN_MAX_HOSTS hosts, none empty or holding a bracket or a
 * comma.  See README. */
/* The host-list limit setup.c is built with here (run-fuzz.sh). */
#define GASNETRUN_MAX_HOSTS 4096
#include "contrib/launcher/setup.h"
#include "tests/fuzz/fuzz-check.h"

#include <stdlib.h>
#include <string.h>

static int all_zero(const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        if (b[i]) return 0;
    return 1;
}

static void check_words(const unsigned char *data, size_t size)
{
    char *text = fuzz_text(data, size), **words = NULL, err[200];
    memset(err, 'Q', sizeof(err));
    int n = gasnetrun_split_words(text, &words, err, sizeof(err));
    free(text);
    if (n < 0) {
        FUZZ_CHECK(n == -1 && memchr(err, '\0', sizeof(err)) != NULL && !strchr(err, '\n'));
        return;
    }
    FUZZ_CHECK(words != NULL);
    for (int i = 0; i < n; i++) FUZZ_CHECK(words[i] != NULL);
    FUZZ_CHECK(words[n] == NULL);
    gasnetrun_words_free(words);
}

static void check_slurm(const unsigned char *data, size_t size)
{
    char *text = fuzz_text(data, size), **hosts = NULL, err[200];
    uint32_t n = 0;
    memset(err, 'Q', sizeof(err));
    int rc = gasnetrun_hosts_slurm(text, &hosts, &n, err, sizeof(err));
    free(text);
    FUZZ_CHECK(n <= GASNETRUN_MAX_HOSTS);
    if (rc != 0) {
        FUZZ_CHECK(rc == -1 && memchr(err, '\0', sizeof(err)) != NULL && err[0] != '\0' &&
                   !strchr(err, '\n'));
    } else {
        for (uint32_t i = 0; i < n; i++)
            FUZZ_CHECK(hosts[i][0] != '\0' && !strpbrk(hosts[i], "[,"));
    }
    for (uint32_t i = 0; i < n; i++) free(hosts[i]);
    free(hosts);
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
    /* A private copy of exactly `size` bytes: ASan sees any overread. */
    check_words(data, size);
    check_slurm(data, size);
    unsigned char *buf = malloc(size ? size : 1);
    FUZZ_CHECK(buf != NULL);
    if (size) memcpy(buf, data, size);
    gasnetrun_setup_t s, t;
    char err[200];
    memset(err, 'Q', sizeof(err));
    int rc = gasnetrun_setup_unpack(buf, size, &s, err, sizeof(err));
    free(buf);
    if (rc != 0) {
        FUZZ_CHECK(rc == -1);
        FUZZ_CHECK(memchr(err, '\0', sizeof(err)) != NULL && err[0] != '\0');
        FUZZ_CHECK(all_zero(&s, sizeof(s)));
        return 0;
    }
    FUZZ_CHECK(s.jobid && s.launcher && s.cwd && s.hosts && s.ssh_argv && s.prog_argv && s.env);
    FUZZ_CHECK(s.nhosts > 0 && s.nranks >= s.nhosts);
    FUZZ_CHECK(s.host_lo < s.host_hi && s.host_hi <= s.nhosts);
    for (uint32_t h = 0; h < s.nhosts; h++)
        FUZZ_CHECK((s.hosts[h] != NULL) == (h >= s.host_lo && h < s.host_hi));
    FUZZ_CHECK(s.ssh_argv[0] != NULL && s.prog_argv[0] != NULL);

    size_t len1 = 0, len2 = 0;
    unsigned char *p1 = gasnetrun_setup_pack(&s, &len1);
    FUZZ_CHECK(p1 != NULL);
    FUZZ_CHECK(gasnetrun_setup_unpack(p1, len1, &t, err, sizeof(err)) == 0);
    unsigned char *p2 = gasnetrun_setup_pack(&t, &len2);
    FUZZ_CHECK(p2 != NULL && len2 == len1 && memcmp(p1, p2, len1) == 0);
    free(p1);
    free(p2);
    gasnetrun_setup_free(&s);
    gasnetrun_setup_free(&t);
    FUZZ_CHECK(all_zero(&s, sizeof(s)));
    return 0;
}
