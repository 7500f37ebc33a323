"""tests/perf/bench_config.py: what `make bench` measures, with which
options, and how one benchmark program is run.  Shared by bench.py (host
side, combining) and bench_verbs.py (inside the Soft-RoCE guest or on a
host with an HCA).  Standard library only.

A "profile" holds the sizes and the options of every program for one
environment; the same options go to an our-side program and to the
reference measured beside it, so both do the same number of iterations.
"""
import json
import os
import re
import subprocess
import tempfile
import time

# The rows of the ratio table: program -> [(test, sizes)], where sizes is a
# fixed list or the name of a profile size list.
PROGRAM_TESTS = {
    "perf-am": [("am_short_rtt", [0]), ("am_medium_rtt", "am_sizes"),
                ("am_long_rtt", "am_sizes"), ("am_short_flood", [0]),
                ("am_medium_flood", "am_sizes"), ("am_long_flood", "am_sizes")],
    "perf-rma": [("put_lat", "rma_sizes"), ("get_lat", "rma_sizes"),
                 ("put_nbi_bw", "rma_sizes"), ("get_nbi_bw", "rma_sizes"),
                 ("put_nb_bw", "rma_sizes"), ("get_nb_bw", "rma_sizes"),
                 ("put8_rate", [8])],
    "perf-barrier": [("barrier_lat", [0]), ("barrier_nb_lat", [0])],
}
OUR_PROGRAMS = tuple(PROGRAM_TESTS)

# Host only: the two-way floods oversubscribed (TWOWAY_RANKS processes on
# the host, more than its 2 cores here) against the same program with 2
# processes in the same round (issue 17: at most 10x).
TWOWAY_TESTS = [("tw_short_flood", [0]), ("tw_medium_flood", "tw_sizes"),
                ("tw_long_flood", "tw_sizes"), ("tw_long_reqreq", "tw_sizes")]
TWOWAY_RANKS = 4

PROFILES = {
    # On the host over PSHM: everything is fast; values are medians of
    # --reps repetitions, then medians over bench.py --rounds rounds.
    "host": {
        "am_sizes": [8, 512, 4096, 32768],
        # Every power of two from 1 B to 64 KiB (issue 37: each on the
        # memcpy curve), then the large sizes.
        "rma_sizes": [1 << k for k in range(17)] + [262144, 1 << 20, 4 << 20],
        "perf-am": ["--iters", "5000", "--max-bytes", "64M", "--reps", "9"],
        "perf-rma": ["--iters", "50000", "--max-bytes", "256M", "--reps", "9"],
        "perf-barrier": ["--iters", "5000", "--reps", "9"],
        "tw_sizes": [4096],
        "perf-twoway": ["--iters", "20000", "--reps", "1", "--timeout", "100"],
        # The many-process tier (bench_many.py): --iters per process (the
        # floods spread them over the peers), enough that the two barriers
        # around a repetition do not count.
        "mp_sizes": [8, 65536],
        "perf-many": ["--iters", "20000", "--max-bytes", "64M", "--reps", "5"],
        "start_runs": 3,
        "probe_timeout": 60, "timeout": 300,
    },
    "host-quick": {
        "am_sizes": [8, 4096],
        "rma_sizes": [8, 4096, 1 << 20],
        "perf-am": ["--iters", "500", "--max-bytes", "8M", "--reps", "3"],
        "perf-rma": ["--iters", "1000", "--max-bytes", "16M", "--reps", "3"],
        "perf-barrier": ["--iters", "500", "--reps", "3"],
        "tw_sizes": [4096],
        "perf-twoway": ["--iters", "2000", "--reps", "1", "--timeout", "50"],
        "mp_sizes": [8, 65536],
        "perf-many": ["--iters", "2000", "--max-bytes", "8M", "--reps", "3"],
        "start_runs": 1,
        "probe_timeout": 30, "timeout": 60,
    },
    # Soft-RoCE under TCG is ~1000x slower than the host: few iterations,
    # few sizes.  perftest runs the same sizes (bench_verbs.perftest_plan).
    # RMA: 4M too, the top of issue 17's 64 KiB-4 MiB bandwidth range (about
    # 35 s more per round at ~40 MB/s, ours and perftest together).
    "verbs": {
        "am_sizes": [8, 4096],
        "rma_sizes": [8, 4096, 65536, 1 << 20, 4 << 20],
        "perf-am": ["--iters", "1000", "--max-bytes", "16M", "--min-iters", "20", "--reps", "3"],
        "perf-rma": ["--iters", "1000", "--max-bytes", "16M", "--min-iters", "10", "--reps", "3"],
        "perf-barrier": ["--iters", "1000", "--reps", "3"],
        "probe_timeout": 30, "timeout": 150,
    },
    "verbs-quick": {
        "am_sizes": [8],
        "rma_sizes": [8, 65536],
        "perf-am": ["--iters", "200", "--max-bytes", "4M", "--min-iters", "10", "--reps", "1"],
        "perf-rma": ["--iters", "200", "--max-bytes", "4M", "--min-iters", "10", "--reps", "1"],
        "perf-barrier": ["--iters", "200", "--reps", "1"],
        "probe_timeout": 30, "timeout": 90,
    },
}

# Tiny settings for the first, short run of each program in a new
# environment: does it work at all?
PROBE_ARGS = {
    "perf-am": ["--iters", "2", "--reps", "1", "--warmup", "0", "--sizes", "8"],
    "perf-rma": ["--iters", "2", "--reps", "1", "--warmup", "0", "--sizes", "8"],
    "perf-barrier": ["--iters", "2", "--reps", "1", "--warmup", "0"],
}


def sizes_of(profile, sizes):
    """A test's size list in this profile."""
    return list(sizes) if isinstance(sizes, list) else list(profile[sizes])


def program_sizes(profile, prog):
    """The --sizes argument for one of our programs."""
    if prog == "perf-am":
        return profile["am_sizes"]
    if prog == "perf-rma":
        return profile["rma_sizes"]
    return [0]


def expected_rows(profile):
    """[(program, test, size)] in table order."""
    rows = []
    for prog, tests in PROGRAM_TESTS.items():
        for test, sizes in tests:
            rows += [(prog, test, s) for s in sizes_of(profile, sizes)]
    return rows


def unit_of(test, size):
    """The unit a test reports in."""
    if test == "mp_start_exit":
        return "ms"
    if test.endswith("_rtt") or test.endswith("_lat") or test.startswith("tw_"):
        return "us"
    if test.endswith("_rate") or (test.endswith("_flood") and size == 0):
        return "Mmsg/s"
    return "MB/s"


def better_of(unit):
    return "lower" if unit in ("us", "ms") else "higher"


def size_list(sizes):
    return ",".join(str(s) for s in sizes)


def fmt_size(n):
    for shift, suffix in ((30, "G"), (20, "M"), (10, "K")):
        if n >= (1 << shift) and n % (1 << shift) == 0:
            return "%d%s" % (n >> shift, suffix)
    return str(n)


def run_json_program(cmd, timeout, env=None, log=None):
    """Runs cmd + ["--json", tmp] under a timeout.  Returns (doc, reason):
    the program's JSON document, or None and a one-line reason.  The
    program's output is appended to log (a file object) when given."""
    fd, path = tempfile.mkstemp(prefix="bench-", suffix=".json")
    os.close(fd)
    full = list(cmd) + ["--json", path]
    t0 = time.time()
    try:
        p = subprocess.run(["timeout", "--kill-after=5", str(timeout)] + full,
                           capture_output=True, text=True, env=env)
        out, rc = p.stdout + p.stderr, p.returncode
        if log:
            log.write("$ %s   (exit %d, %.1f s)\n%s\n" % (" ".join(full), rc, time.time() - t0,
                                                       out))
            log.flush()
        if rc == 124 or rc == 137:
            return None, "timed out after %d s" % timeout
        if rc != 0:
            return None, "exit %d: %s" % (rc, first_error(out))
        try:
            with open(path) as f:
                return json.load(f), None
        except (OSError, ValueError) as e:
            return None, "no JSON results (%s)" % e
    finally:
        try:
            os.unlink(path)
        except OSError:
            pass


def first_error(output):
    """The most telling line of a failed program's output (one line)."""
    lines = [l.strip() for l in output.splitlines() if l.strip()]
    pick = lines[-1] if lines else "no output"
    for key in ("fatal", "error", "FAIL", "not available", "no network path"):
        hits = [l for l in lines if key.lower() in l.lower()]
        if hits:
            pick = hits[0]
            break
    # "*** FATAL ERROR (rank 0 on host): message" -> "rank 0: message"
    m = re.match(r"\*+ *FATAL ERROR \((rank \d+)[^)]*\): *(.*)", pick)
    if m:
        pick = "%s: %s" % (m.group(1), m.group(2))
    return pick if len(pick) <= 300 else pick[:297] + "..."
