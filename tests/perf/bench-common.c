/* tests/perf/bench-common.c: option parsing, statistics, table and JSON
 * output for the tests/perf programs (see bench.h).  Plain C, no GASNet. */
#include "tests/perf/bench.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

bench_opts_t bench_opts = {
    .iters = 1000,
    .min_iters = 10,
    .warmup = -1,
    .reps = 5,
    .max_bytes = 256.0 * 1024 * 1024,
    .nprocs = 2,
};

typedef struct {
    char test[48];
    size_t size;
    char unit[8];
    double value, min, max; /* median, min, max of the repetitions */
    int reps;
    long iters;
    double faults_per_op;
    char reason[160]; /* non-empty: not measured */
} bench_row_t;

static bench_row_t *rows;
static int nrows, cap_rows;

static void usage(FILE *f, const char *extra_help)
{
    fprintf(f,
            "usage: %s [options]\n"
            "  --sizes LIST     message sizes, e.g. 8,512,4K,1M (K/M/G = 2^10/2^20/2^30)\n"
            "  --iters N        timed iterations per repetition (default %ld)\n"
            "  --min-iters N    floor of the iterations when --max-bytes caps them (default %ld)\n"
            "  --max-bytes B    cap on bytes moved per repetition, 0 = none (default 256M)\n"
            "  --warmup N       untimed iterations before the first repetition (default iters/10)\n"
            "  --reps N         timed repetitions, the median is reported (default %d, max %d)\n"
            "  --tests LIST     run only these tests (comma separated names)\n"
            "  --json FILE      also write the results as JSON (tests/perf/README)\n"
            "  --cold           no prefault and no warm-up (to see first-touch costs)\n"
            "  --quiet          no table on stdout\n%s",
            bench_opts.prog, bench_opts.iters, bench_opts.min_iters, bench_opts.reps,
            BENCH_MAX_REPS, extra_help ? extra_help : "");
}

static int parse_scaled(const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || v < 0) return -1;
    switch (toupper((unsigned char)*end)) {
    case 'K': v *= 1024.0; end++; break;
    case 'M': v *= 1024.0 * 1024; end++; break;
    case 'G': v *= 1024.0 * 1024 * 1024; end++; break;
    default: break;
    }
    if (toupper((unsigned char)*end) == 'B') end++;
    if (*end) return -1;
    *out = v;
    return 0;
}

int bench_parse_sizes(const char *text, size_t *sizes, int max)
{
    char buf[1024];
    int n = 0;
    if (strlen(text) >= sizeof buf) {
        fprintf(stderr, "%s: --sizes list is too long (%zu chars, max %zu)\n", bench_opts.prog,
                strlen(text), sizeof buf - 1);
        return -1;
    }
    strcpy(buf, text);
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save)) {
        double v;
        if (parse_scaled(tok, &v) || v != (double)(size_t)v) {
            fprintf(stderr, "%s: bad size '%s' in --sizes (use e.g. 8,4K,1M)\n", bench_opts.prog,
                    tok);
            return -1;
        }
        if (n == max) {
            fprintf(stderr, "%s: more than %d sizes in --sizes\n", bench_opts.prog, max);
            return -1;
        }
        sizes[n++] = (size_t)v;
    }
    return n;
}

static long parse_count(const char *opt, const char *s, long lo)
{
    double v;
    if (parse_scaled(s, &v) || v < lo || v > 1e12 || v != (double)(long)v) {
        fprintf(stderr, "%s: %s %s is not a whole number >= %ld\n", bench_opts.prog, opt, s, lo);
        exit(2);
    }
    return (long)v;
}

void bench_parse_args(int argc, char **argv, const char *default_sizes, const char *extra_help)
{
    const char *sizes = default_sizes;
    if (!bench_opts.prog) {
        const char *slash = strrchr(argv[0], '/');
        bench_opts.prog = slash ? slash + 1 : argv[0];
    }
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = (i + 1 < argc) ? argv[i + 1] : NULL;
        int takes = 1;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout, extra_help);
            exit(0);
        } else if (!strcmp(a, "--cold")) {
            bench_opts.cold = 1, takes = 0;
        } else if (!strcmp(a, "--quiet")) {
            bench_opts.quiet = 1, takes = 0;
        } else if (!strcmp(a, "--pin")) {
            bench_opts.pin = 1, takes = 0;
        } else if (!v) {
            fprintf(stderr, "%s: unknown option or missing value: '%s' (see --help)\n",
                    bench_opts.prog, a);
            exit(2);
        } else if (!strcmp(a, "--sizes")) {
            sizes = v;
        } else if (!strcmp(a, "--iters")) {
            bench_opts.iters = parse_count(a, v, 1);
        } else if (!strcmp(a, "--min-iters")) {
            bench_opts.min_iters = parse_count(a, v, 1);
        } else if (!strcmp(a, "--warmup")) {
            bench_opts.warmup = parse_count(a, v, 0);
        } else if (!strcmp(a, "--reps")) {
            bench_opts.reps = (int)parse_count(a, v, 1);
        } else if (!strcmp(a, "--max-bytes")) {
            if (parse_scaled(v, &bench_opts.max_bytes)) {
                fprintf(stderr, "%s: --max-bytes %s is not a size (e.g. 64M)\n", bench_opts.prog,
                        v);
                exit(2);
            }
        } else if (!strcmp(a, "--procs")) {
            bench_opts.nprocs = (int)parse_count(a, v, 1);
        } else if (!strcmp(a, "--json")) {
            bench_opts.json_path = v;
        } else if (!strcmp(a, "--tests")) {
            bench_opts.tests = v;
        } else {
            fprintf(stderr, "%s: unknown option '%s' (see --help)\n", bench_opts.prog, a);
            exit(2);
        }
        i += takes;
    }
    if (bench_opts.reps > BENCH_MAX_REPS) {
        fprintf(stderr, "%s: --reps %d is too large (max %d)\n", bench_opts.prog,
                bench_opts.reps, BENCH_MAX_REPS);
        exit(2);
    }
    if (bench_opts.min_iters > bench_opts.iters) bench_opts.min_iters = bench_opts.iters;
    bench_opts.nsizes = bench_parse_sizes(sizes, bench_opts.sizes, BENCH_MAX_SIZES);
    if (bench_opts.nsizes < 0) exit(2);
}

int bench_selected(const char *test)
{
    const char *p = bench_opts.tests;
    size_t n = strlen(test);
    if (!p) return 1;
    while (*p) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        if (len == n && !strncmp(p, test, n)) return 1;
        if (!comma) break;
        p = comma + 1;
    }
    return 0;
}

long bench_iters(size_t size)
{
    long it = bench_opts.iters;
    if (bench_opts.max_bytes > 0 && size > 0 && (double)it * (double)size > bench_opts.max_bytes)
        it = (long)(bench_opts.max_bytes / (double)size);
    if (it < bench_opts.min_iters) it = bench_opts.min_iters;
    return it;
}

long bench_warmup(long iters)
{
    if (bench_opts.cold) return 0;
    if (bench_opts.warmup >= 0) return bench_opts.warmup;
    return iters / 10 > 2 ? iters / 10 : 2;
}

double bench_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

long bench_faults(void)
{
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru)) return 0;
    return ru.ru_minflt + ru.ru_majflt;
}

static bench_row_t *new_row(const char *test, size_t size, const char *unit)
{
    if (nrows == cap_rows) {
        cap_rows = cap_rows ? 2 * cap_rows : 64;
        rows = realloc(rows, (size_t)cap_rows * sizeof *rows);
        if (!rows) {
            fprintf(stderr, "%s: out of memory for %d result rows\n", bench_opts.prog, cap_rows);
            exit(1);
        }
    }
    bench_row_t *r = &rows[nrows++];
    memset(r, 0, sizeof *r);
    snprintf(r->test, sizeof r->test, "%s", test);
    snprintf(r->unit, sizeof r->unit, "%s", unit);
    r->size = size;
    return r;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void bench_record(const char *test, size_t size, const char *unit, const double *vals,
                  int nvals, long iters, long faults)
{
    double v[BENCH_MAX_REPS];
    int n = nvals < BENCH_MAX_REPS ? nvals : BENCH_MAX_REPS;
    if (n <= 0) return;
    memcpy(v, vals, (size_t)n * sizeof *v);
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    bench_row_t *r = new_row(test, size, unit);
    r->value = (n % 2) ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
    r->min = v[0];
    r->max = v[n - 1];
    r->reps = n;
    r->iters = iters;
    r->faults_per_op = (iters > 0) ? (double)faults / ((double)iters * n) : 0;
}

void bench_record_skip(const char *test, size_t size, const char *unit, const char *reason)
{
    bench_row_t *r = new_row(test, size, unit);
    snprintf(r->reason, sizeof r->reason, "%s", reason);
}

static void json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

static void print_table(void)
{
    printf("%-18s %10s %9s %4s %14s %14s %14s %9s\n", "test", "size", "iters", "reps", "median",
           "min", "max", "faults/op");
    for (int i = 0; i < nrows; i++) {
        const bench_row_t *r = &rows[i];
        if (r->reason[0]) {
            printf("%-18s %10zu  not run: %s\n", r->test, r->size, r->reason);
            continue;
        }
        printf("%-18s %10zu %9ld %4d %9.3f %-6s %9.3f %-6s %9.3f %-6s %9.3g\n", r->test, r->size,
               r->iters, r->reps, r->value, r->unit, r->min, r->unit, r->max, r->unit,
               r->faults_per_op);
    }
    fflush(stdout);
}

static int write_json(const char *path, int ranks)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "%s: cannot write --json %s: %s\n", bench_opts.prog, path,
                strerror(errno));
        return -1;
    }
    fprintf(f, "{\n  \"program\": ");
    json_string(f, bench_opts.prog);
    fprintf(f, ",\n  \"ranks\": %d,\n  \"options\": {\"iters\": %ld, \"min_iters\": %ld, "
               "\"warmup\": %ld, \"reps\": %d, \"max_bytes\": %.0f, \"cold\": %s},\n"
               "  \"results\": [",
            ranks, bench_opts.iters, bench_opts.min_iters, bench_opts.warmup, bench_opts.reps,
            bench_opts.max_bytes, bench_opts.cold ? "true" : "false");
    for (int i = 0; i < nrows; i++) {
        const bench_row_t *r = &rows[i];
        fprintf(f, "%s\n    {\"test\": ", i ? "," : "");
        json_string(f, r->test);
        fprintf(f, ", \"size\": %zu, \"unit\": ", r->size);
        json_string(f, r->unit);
        if (r->reason[0]) {
            fprintf(f, ", \"value\": null, \"reason\": ");
            json_string(f, r->reason);
            fprintf(f, "}");
            continue;
        }
        fprintf(f, ", \"value\": %.6g, \"min\": %.6g, \"max\": %.6g, \"reps\": %d, "
                   "\"iters\": %ld, \"faults_per_op\": %.4g}",
                r->value, r->min, r->max, r->reps, r->iters, r->faults_per_op);
    }
    fprintf(f, "\n  ]\n}\n");
    if (fclose(f)) {
        fprintf(stderr, "%s: error writing --json %s: %s\n", bench_opts.prog, path,
                strerror(errno));
        return -1;
    }
    return 0;
}

int bench_report(int ranks)
{
    if (!bench_opts.quiet) print_table();
    if (bench_opts.json_path) return write_json(bench_opts.json_path, ranks);
    return 0;
}
