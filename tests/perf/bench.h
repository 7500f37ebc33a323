/* tests/perf/bench.h: options, timing, statistics and output shared by the
 * benchmark programs of tests/perf (the GASNet ones and the references).
 *
 * Nothing here calls GASNet: the reference programs (ref-memcpy, ref-shm)
 * use it too.  A program
 *   1. fills a bench_opts_t with its defaults and calls bench_parse_args();
 *   2. for each (test, size) it measures, runs bench_opts.reps timed
 *      repetitions of bench_iters() iterations each (after bench_warmup()
 *      untimed ones) and passes the per-repetition values to bench_record();
 *   3. calls bench_report() once: a human-readable table on stdout and, with
 *      --json FILE, the same results as JSON (format: tests/perf/README).
 * Only the process that reports (rank 0) calls bench_record/bench_report.
 * Single-threaded; none of this is meant for AM handlers.
 */
#ifndef IBVTEST_PERF_BENCH_H
#define IBVTEST_PERF_BENCH_H

#include <stddef.h>

#define BENCH_MAX_SIZES 64
#define BENCH_MAX_REPS 64
/* perf-rma's NB tests: events per gex_Event_WaitAll (its --window default),
 * and ref-memcpy's memcpy_ev_bw, the same loop with memcpy. */
#define BENCH_NB_WINDOW 64

typedef struct {
    const char *prog;              /* program name (JSON "program") */
    size_t sizes[BENCH_MAX_SIZES]; /* --sizes: message sizes in bytes */
    int nsizes;
    long iters;                    /* --iters: timed iterations per repetition */
    long min_iters;                /* --min-iters: floor when --max-bytes caps iters */
    long warmup;                   /* --warmup: untimed iterations (-1: iters/10, >= 2) */
    int reps;                      /* --reps: timed repetitions; the median is reported */
    double max_bytes;              /* --max-bytes: bytes per repetition cap (0: none) */
    const char *json_path;         /* --json FILE */
    const char *tests;             /* --tests a,b,c (NULL: every test) */
    int cold;                      /* --cold: skip prefaulting and warm-up (first-touch study) */
    int quiet;                     /* --quiet: no table */
    int nprocs;                    /* --procs (reference programs only) */
    int pin;                       /* --pin (reference programs only) */
} bench_opts_t;

extern bench_opts_t bench_opts;

/* Parses argv into bench_opts (defaults already set by the caller, sizes as
 * text in default_sizes).  extra_help is appended to --help.  Exits 2 with a
 * one-line error on a bad option.  Not thread-safe. */
void bench_parse_args(int argc, char **argv, const char *default_sizes, const char *extra_help);

/* Parses a size list "8,4K,1M" into sizes[] (at most max).  Returns the
 * count, or -1 (and prints the culprit) on a syntax error. */
int bench_parse_sizes(const char *text, size_t *sizes, int max);

/* 1 if test name is selected by --tests (or no --tests was given). */
int bench_selected(const char *test);

/* Timed iterations for one repetition at this size: --iters, reduced so a
 * repetition moves at most --max-bytes, but never below --min-iters. */
long bench_iters(size_t size);

/* Untimed warm-up iterations for this many timed ones (0 with --cold). */
long bench_warmup(long iters);

/* Monotonic time in seconds (clock_gettime). */
double bench_now(void);

/* Minor + major page faults of this process so far (getrusage). */
long bench_faults(void);

/* Records one result: test name, size, unit ("us", "MB/s", "Mmsg/s"), the
 * value of each repetition, the iterations per repetition and the page
 * faults counted over all timed repetitions.  The reported value is the
 * median of the repetitions. */
void bench_record(const char *test, size_t size, const char *unit, const double *vals,
                  int nvals, long iters, long faults);

/* Records a test that could not run (value null in JSON) with the reason. */
void bench_record_skip(const char *test, size_t size, const char *unit, const char *reason);

/* Prints the table (unless --quiet) and writes --json.  ranks: processes of
 * the job (JSON "ranks").  Returns 0, or -1 if the JSON file failed. */
int bench_report(int ranks);

/* Keeps the compiler from dropping or merging the accesses around it. */
#define BENCH_COMPILER_FENCE() __asm__ __volatile__("" ::: "memory")
/* The same, and p's target counts as read: stores to an array nothing else
 * reads are kept. */
#define BENCH_ESCAPE(p) __asm__ __volatile__("" : : "r"(p) : "memory")

/* A function whose loops start on 32-byte boundaries (GCC): where the
 * linker happened to put a loop moved an NB loop of 128-byte copies
 * between 1.06 and 1.10 of its reference, so measured loops and their
 * references both get it. */
#if defined(__GNUC__) && !defined(__clang__)
#define BENCH_ALIGNED_LOOPS __attribute__((__optimize__("align-loops=32")))
#else
#define BENCH_ALIGNED_LOOPS
#endif

#endif /* IBVTEST_PERF_BENCH_H */
