/* tests/spawn/test-spawn-units.c: unit test of the launcher's pure helpers
 * (contrib/launcher/setup.h): blocked layout, spawn tree, shell-like word
 * splitting, MPIRUN_CMD templates, host lists, and the SETUP message.
 * One line per check; exit 0 only if all pass. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "contrib/launcher/setup.h"

static int failures;

static void check(int ok, const char *fmt, ...) __attribute__((__format__(__printf__, 2, 3)));
static void check(int ok, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("%s - ", ok ? "ok" : "FAIL");
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
    if (!ok) failures++;
}

/* Words joined with '|' (for compact comparisons). */
static const char *joined(char **w)
{
    static char buf[2048];
    buf[0] = '\0';
    for (size_t i = 0; w && w[i]; i++) {
        if (i) strcat(buf, "|");
        strncat(buf, w[i], sizeof(buf) - strlen(buf) - 2);
    }
    return buf;
}

static void test_layout(void)
{
    int ok = 1;
    for (uint32_t n = 1; n <= 40; n++)
        for (uint32_t h = 1; h <= n; h++) {
            uint32_t next = 0, lo = UINT32_MAX, hi = 0;
            for (uint32_t i = 0; i < h; i++) {
                uint32_t first, count;
                gasnetrun_layout(n, h, i, &first, &count);
                ok &= first == next && count >= 1;
                next = first + count;
                if (count < lo) lo = count;
                if (count > hi) hi = count;
            }
            ok &= next == n && hi - lo <= 1;
        }
    uint32_t f, c;
    gasnetrun_layout(10, 4, 1, &f, &c);
    ok &= f == 3 && c == 3;
    gasnetrun_layout(10, 4, 3, &f, &c);
    ok &= f == 8 && c == 2;
    check(ok, "layout: contiguous blocks, sizes differ by at most 1, first hosts larger "
              "(10 on 4: 3 3 2 2)");
}

/* Builds the whole tree below [start, end) and checks every host is
 * started exactly once; returns the depth. */
static uint32_t tree_walk(uint32_t start, uint32_t end, uint32_t degree, int *seen, int *ok)
{
    uint32_t lo[64], hi[64], depth = 0;
    uint32_t n = gasnetrun_tree_split(start, end, degree, lo, hi);
    if (degree) *ok &= n <= degree;
    uint32_t at = start;
    for (uint32_t i = 0; i < n; i++) {
        *ok &= lo[i] == at && hi[i] > lo[i];
        at = hi[i];
        seen[lo[i]]++;
        uint32_t d = 1 + tree_walk(lo[i] + 1, hi[i], degree, seen, ok);
        if (d > depth) depth = d;
    }
    *ok &= at == end || n == 0;
    return depth;
}

static void test_tree(void)
{
    int ok = 1, seen[64];
    for (uint32_t hosts = 1; hosts <= 40; hosts++)
        for (uint32_t degree = 0; degree <= 5; degree++) {
            memset(seen, 0, sizeof(seen));
            tree_walk(0, hosts, degree, seen, &ok);
            for (uint32_t h = 0; h < hosts; h++) ok &= seen[h] == 1;
        }
    check(ok, "tree: every host started exactly once, fan-out within the degree (1..40 hosts, "
              "degree 0..5)");
    memset(seen, 0, sizeof(seen));
    uint32_t d0 = tree_walk(0, 40, 0, seen, &ok);
    memset(seen, 0, sizeof(seen));
    uint32_t d1 = tree_walk(0, 40, 1, seen, &ok);
    memset(seen, 0, sizeof(seen));
    uint32_t d4 = tree_walk(0, 40, 4, seen, &ok);
    check(d0 == 1 && d1 == 40 && d4 <= 4, "tree depth: degree 0 flat (%u), 1 a chain (%u), 4 "
                                          "logarithmic (%u for 40 hosts)",
          d0, d1, d4);
}

static void test_words(void)
{
    static const struct {
        const char *in, *out;
        int n;
    } cases[] = {
        {"", "", 0},
        {"  -p 2222   -i  key ", "-p|2222|-i|key", 4},
        {"-o 'StrictHostKeyChecking no'", "-o|StrictHostKeyChecking no", 2},
        {"-o \"a \\\"b\\\" c\" d\\ e", "-o|a \"b\" c|d e", 3},
        {"x''y \"\"", "xy|", 2},
        {"'unbalanced", NULL, -1},
        {"\"unbalanced", NULL, -1},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char **w = NULL, err[200] = "";
        int n = gasnetrun_split_words(cases[i].in, &w, err, sizeof(err));
        int ok = n == cases[i].n && (n < 0 ? err[0] != '\0' : !strcmp(joined(w), cases[i].out));
        check(ok, "words: [%s] -> %d [%s]%s%s", cases[i].in, n, n >= 0 ? joined(w) : "",
              n < 0 ? " error: " : "", n < 0 ? err : "");
        if (n >= 0) gasnetrun_words_free(w);
    }
}

static void test_template(void)
{
    char *prog[] = {"env", "A=1", "./app", NULL};
    char *args[] = {"x y", "-v", NULL};
    gasnetrun_template_t v = {.nprocs = 4, .nnodes = 2, .prog = prog, .args = args,
                              .nodefile = "/h", .cwd = "/w"};
    static const struct {
        const char *tmpl, *out;
    } cases[] = {
        {"mpirun -np %N %C", "mpirun|-np|4|env|A=1|./app|x y|-v"},
        {"srun -n%N -N %M --chdir=%D %P %A", "srun|-n4|-N|2|--chdir=/w|env|A=1|./app|x y|-v"},
        {"mpirun --hostfile %H -np %N %P", "mpirun|--hostfile|/h|-np|4|env|A=1|./app"},
        {"'mpirun x' 100%% %C", "mpirun x|100%|env|A=1|./app|x y|-v"},
        {"mpirun --exe=%P", NULL},
        {"mpirun %Q %C", NULL},
        {"", NULL},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char **argv = NULL, err[300] = "";
        int n = gasnetrun_expand_template(cases[i].tmpl, &v, &argv, err, sizeof(err));
        int ok = cases[i].out ? n > 0 && !strcmp(joined(argv), cases[i].out) : n < 0 && err[0];
        check(ok, "template: [%s] -> %s", cases[i].tmpl, n > 0 ? joined(argv) : err);
        if (n > 0) gasnetrun_words_free(argv);
    }
    v.nodefile = NULL;
    char **argv = NULL, err[300] = "";
    int n = gasnetrun_expand_template("mpirun -f %H %C", &v, &argv, err, sizeof(err));
    check(n < 0 && strstr(err, "GASNET_NODEFILE"), "template: %%H without GASNET_NODEFILE: %s",
          err);
}

static void test_hosts(void)
{
    char **h = NULL, err[300];
    uint32_t n = 0;
    int ok = gasnetrun_hosts_parse(" a,b  c,,d\te ", &h, &n, err, sizeof(err)) == 0;
    ok &= n == 5 && !strcmp(h[0], "a") && !strcmp(h[2], "c") && !strcmp(h[4], "e");
    check(ok, "GASNET_SSH_SERVERS-style list: commas and blanks separate (%u hosts)", n);
    char path[] = "/tmp/test-spawn-hosts-XXXXXX";
    int fd = mkstemp(path);
    const char *text = "# a comment\nn1\n\n  n2   slots=4\nn1 # again\n";
    ok = fd >= 0 && write(fd, text, strlen(text)) == (ssize_t)strlen(text);
    if (fd >= 0) close(fd);
    ok &= gasnetrun_hosts_read(path, &h, &n, err, sizeof(err)) == 0;
    ok &= n == 8 && !strcmp(h[5], "n1") && !strcmp(h[6], "n2") && !strcmp(h[7], "n1");
    check(ok, "node file: comments, blank lines, first word per line, duplicates kept (%u)", n);
    unlink(path);
    ok = gasnetrun_hosts_read(path, &h, &n, err, sizeof(err)) != 0 && strstr(err, path);
    check(ok, "missing node file: %s", err);
    for (uint32_t i = 0; i < n; i++) free(h[i]);
    free(h);

    h = NULL;
    n = 0;
    err[0] = '\0';
    ok = gasnetrun_hosts_slurm("a,n[01-03,7],r[1-2]x[8-9]", &h, &n, err, sizeof(err)) == 0;
    ok &= n == 9 && !strcmp(h[0], "a") && !strcmp(h[1], "n01") && !strcmp(h[3], "n03") &&
          !strcmp(h[4], "n7") && !strcmp(h[5], "r1x8") && !strcmp(h[8], "r2x9");
    check(ok, "Slurm node list: ranges, zero padding, lists, two brackets (%u hosts)", n);
    for (uint32_t i = 0; i < n; i++) free(h[i]);
    free(h);
    h = NULL;
    n = 0;
    ok = gasnetrun_hosts_slurm("n[3-1]", &h, &n, err, sizeof(err)) != 0 && strstr(err, "bad range");
    ok &= gasnetrun_hosts_slurm("n[1-2", &h, &n, err, sizeof(err)) != 0 && strstr(err, "unbalanced");
    ok &= gasnetrun_hosts_slurm("a],b", &h, &n, err, sizeof(err)) != 0 && strstr(err, "']' in 'a]'");
    ok &= gasnetrun_hosts_slurm("n[0000000000000000000001]", &h, &n, err, sizeof(err)) != 0 &&
          strstr(err, "bad range");
    ok &= gasnetrun_hosts_slurm("n[ 1]", &h, &n, err, sizeof(err)) != 0 && strstr(err, "bad range");
    ok &= gasnetrun_hosts_slurm("n[1-+2]", &h, &n, err, sizeof(err)) != 0 && strstr(err, "bad range");
    ok &= gasnetrun_hosts_slurm("a[1-2]b[]", &h, &n, err, sizeof(err)) != 0 && strstr(err, "empty");
    ok &= gasnetrun_hosts_slurm("a[1]b[1]c[1]d[1]e[1]f[1]g[1]h[1]i[1]j[1]k[1]l[1]m[1]n[1]o[1]p[1]q[1]",
                                &h, &n, err, sizeof(err)) != 0 && strstr(err, "17 bracket groups");
    check(ok, "Slurm node list errors: %s", err);
    free(h);
    h = NULL;
    n = 0;
    ok = gasnetrun_hosts_slurm("n[0-1023]x[0-1024]", &h, &n, err, sizeof(err)) != 0 &&
         strstr(err, "more than 1048576 hosts") && n == GASNETRUN_MAX_HOSTS;
    check(ok, "Slurm node list of 1024 x 1025 hosts refused at %u: %s", n, err);
    for (uint32_t i = 0; i < n; i++) free(h[i]);
    free(h);
    static const struct {
        const char *host;
        int ok;
    } names[] = {{"node-1.example.org", 1}, {"user@10.0.0.1", 1}, {"fe80::1%eth0", 1},
                 {"-oProxyCommand=x", 0},   {"", 0},            {"a b", 0},
                 {"a;b", 0}};
    ok = 1;
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        ok &= (gasnetrun_host_check(names[i].host, err, sizeof(err)) == 0) == names[i].ok;
    check(ok, "host names: letters, digits, ._-:@%%[]; never a leading '-'");
}

static void test_setup(void)
{
    char *hosts[] = {"h0", "h1", "h2", "h3"};
    char *ssh[] = {"ssh", "-p", "22", NULL};
    char *prog[] = {"./a.out", "arg with spaces", "", "x=y", NULL};
    char *env[] = {"GASNET_A=1", "B=two=2", "C=line\nbreak", NULL};
    gasnetrun_setup_t s = {.jobid = "123-abcdef01", .nranks = 10, .nhosts = 4, .host_lo = 1,
                           .host_hi = 3, .degree = 2, .verbose = 1, .keep = 0,
                           .launcher = "/x/gasnetrun_ibv", .cwd = "/w d", .hosts = hosts,
                           .ssh_argv = ssh, .prog_argv = prog, .env = env};
    size_t len = 0;
    unsigned char *blob = gasnetrun_setup_pack(&s, &len);
    gasnetrun_setup_t d;
    char err[300] = "";
    int rc = blob ? gasnetrun_setup_unpack(blob, len, &d, err, sizeof(err)) : -1;
    int ok = rc == 0 && !strcmp(d.jobid, s.jobid) && d.nranks == 10 && d.nhosts == 4 &&
             d.host_lo == 1 && d.host_hi == 3 && d.degree == 2 && d.verbose == 1 &&
             !strcmp(d.launcher, s.launcher) && !strcmp(d.cwd, "/w d") && !d.hosts[0] &&
             !strcmp(d.hosts[1], "h1") && !strcmp(d.hosts[2], "h2") && !d.hosts[3] &&
             !strcmp(joined(d.ssh_argv), "ssh|-p|22") &&
             !strcmp(joined(d.prog_argv), "./a.out|arg with spaces||x=y") &&
             !strcmp(joined(d.env), "GASNET_A=1|B=two=2|C=line\nbreak");
    check(ok, "SETUP round trip (%zu bytes; hosts of the subtree only) %s", len, err);
    if (rc == 0) gasnetrun_setup_free(&d);
    /* Corruptions are refused, never crash. */
    int refused = 0, cases = 0;
    for (size_t cut = 0; blob && cut < len; cut += 7) {
        cases++;
        if (gasnetrun_setup_unpack(blob, cut, &d, err, sizeof(err)) != 0)
            refused++;
        else
            gasnetrun_setup_free(&d);
    }
    check(refused == cases, "SETUP truncated at %d places: all refused", cases);
    const char bad[] = "version=1\0jobid=j\0frobnicate=1";
    rc = gasnetrun_setup_unpack((const unsigned char *)bad, sizeof(bad), &d, err, sizeof(err));
    check(rc != 0 && strstr(err, "frobnicate"), "SETUP with an unknown key: %s", err);
    const char v2[] = "version=2\0end=";
    rc = gasnetrun_setup_unpack((const unsigned char *)v2, sizeof(v2), &d, err, sizeof(err));
    check(rc != 0 && strstr(err, "version"), "SETUP of another version: %s", err);
    free(blob);
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    test_layout();
    test_tree();
    test_words();
    test_template();
    test_hosts();
    test_setup();
    if (failures) printf("%d check(s) FAILED\n", failures);
    return failures ? 1 : 0;
}
