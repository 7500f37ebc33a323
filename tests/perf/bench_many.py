"""tests/perf/bench_many.py: the many-process tier of `make bench` (host,
PSHM): every process at once, at N = this host's cores and 2N
(oversubscribed), beside a same-run reference, and a job's start-to-exit
at --start-procs processes (128) beside its floor.  Standard library only.

  row (env host-many)  ours                          reference
  mp_barrier_lat       perf-barrier barrier_lat      ref-shm shm_dissem_barrier_lat
                                                     (dissemination barrier over bare
                                                     shared flags; the counter barrier
                                                     shm_barrier_lat where this ref-shm
                                                     has no dissemination one)
  mp_short_flood 0     perf-many (all to all)        ref-many many_ring_flood 0
  mp_medium_flood 1K   perf-many                     ref-many many_ring_flood 1024
  mp_put_lat 8, 64K    perf-many                     ref-many many_memcpy_to
  mp_get_lat 8, 64K    perf-many                     ref-many many_memcpy_from
  mp_start_exit        gasnetrun_ibv -n 128          the same with perf-start --floor
                       perf-start (testhello)        (processes that return from main
                                                     before gex_Client_Init)

Every row carries its process count in "ranks".  The start-up row's ours
and floor alternate run by run; one extra run with GASNET_STARTUP_TIMES=1
gives the phase split (startup_split), read against the launcher's start
and end as this script saw them.
"""
import os
import statistics
import subprocess
import time

import bench_config as cfg

ENV = "host-many"
START_PROCS = 128  # default of bench.py --start-procs

# (row test, size or profile size list, source, source test)
MANY_ROWS = [
    ("mp_barrier_lat", [0], "perf-barrier", "barrier_lat"),
    ("mp_short_flood", [0], "perf-many", "mp_short_flood"),
    ("mp_medium_flood", [1024], "perf-many", "mp_medium_flood"),
    ("mp_put_lat", "mp_sizes", "perf-many", "mp_put_lat"),
    ("mp_get_lat", "mp_sizes", "perf-many", "mp_get_lat"),
]


def rank_counts(args):
    """The process counts of the tier: --many-ranks, else cores and 2x."""
    if args.many_ranks:
        return sorted({int(x) for x in args.many_ranks.split(",") if x.strip()})
    n = os.cpu_count() or 1
    return sorted({max(2, n), max(2, 2 * n)})


def reference_of(data, test, size, n):
    """(name, per-round values, reason, derivation) for one row."""
    if test == "mp_barrier_lat":
        vals, why = data.get(("ref-shm", n), "shm_dissem_barrier_lat", 0)
        if vals:
            return ("dissemination barrier", vals, None,
                    "ref-shm shm_dissem_barrier_lat --procs %d (bare shared flags)" % n)
        cvals, cwhy = data.get(("ref-shm", n), "shm_barrier_lat", 0)
        return ("shm counter barrier", cvals, cwhy,
                "ref-shm shm_barrier_lat --procs %d (counter barrier: this ref-shm has no "
                "shm_dissem_barrier_lat: %s)" % (n, why))
    if test.endswith("_flood"):
        vals, why = data.get(("ref-many", n), "many_ring_flood", size)
        return ("shm ring flood, all to all", vals, why,
                "ref-many many_ring_flood size %d --procs %d" % (size, n))
    src = "many_memcpy_to" if test == "mp_put_lat" else "many_memcpy_from"
    vals, why = data.get(("ref-many", n), src, size)
    return ("memcpy, all to all", vals, why, "ref-many %s size %d --procs %d" % (src, size, n))


def many_steps(args, profile, n):
    """[(source key, command)] of one round at n processes."""
    b = args.builddir
    launcher = os.path.join(b, "gasnetrun_ibv")
    perf = lambda name: os.path.join(b, "tests", "perf", name)  # noqa: E731
    sizes = cfg.size_list(profile["mp_sizes"])
    bar = profile["perf-barrier"]
    return [
        (("ref-many", n), [perf("ref-many"), "--procs", str(n), "--sizes", sizes]
         + profile["perf-many"]),
        (("perf-many", n), [launcher, "-n", str(n), perf("perf-many"), "--sizes", sizes]
         + profile["perf-many"]),
        (("ref-shm", n), [perf("ref-shm"), "--procs", str(n), "--tests",
                          "shm_dissem_barrier_lat,shm_barrier_lat"] + bar),
        (("perf-barrier", n), [launcher, "-n", str(n), perf("perf-barrier"), "--tests",
                               "barrier_lat"] + bar),
    ]


def timed_run(cmd, timeout, env=None, logf=None):
    """Wall time of one command in ms (None, reason on failure), and its
    stderr."""
    t0 = time.time()
    try:
        p = subprocess.run(["timeout", "--kill-after=5", str(timeout)] + cmd,
                           capture_output=True, text=True, env=env)
    except OSError as e:
        return None, str(e), "", t0, time.time()
    t1 = time.time()
    if logf:
        logf.write("$ %s   (exit %d, %.3f s)\n%s%s\n" % (" ".join(cmd), p.returncode, t1 - t0,
                                                       p.stdout[-2000:], p.stderr[-4000:]))
        logf.flush()
    if p.returncode != 0:
        return None, "exit %d: %s" % (p.returncode, cfg.first_error(p.stdout + p.stderr)), \
            p.stderr, t0, t1
    return (t1 - t0) * 1e3, None, p.stderr, t0, t1


def start_runs(args, profile, logf, data, rnd, deadline):
    """One round of the start-up pair: ours and the floor alternate (a pair
    is started only while 20 s of the tier's time are left)."""
    b = args.builddir
    launcher = os.path.join(b, "gasnetrun_ibv")
    prog = os.path.join(b, "tests", "perf", "perf-start")
    n = str(args.start_procs)
    timeout = profile["timeout"]
    vals = {"perf-start": [], "perf-start-floor": []}
    for i in range(profile["start_runs"]):
        if deadline - time.time() < 20:
            for key in vals:
                data.failures.setdefault(((key, args.start_procs), None, None),
                                         "skipped: the many-process tier ran out of time")
            break
        order = [("perf-start", [launcher, "-n", n, prog]),
                 ("perf-start-floor", [launcher, "-n", n, prog, "--floor"])]
        if (rnd + i) % 2:
            order.reverse()
        for key, cmd in order:
            ms, why, _, _, _ = timed_run(cmd, timeout, None, logf)
            if why:
                data.failures.setdefault(((key, args.start_procs), None, None), why)
            else:
                vals[key].append(ms)
    for key, v in vals.items():
        if v:
            data.rounds.setdefault(((key, args.start_procs), "start_exit", 0), []).append(
                (statistics.median(v), min(v)))


PHASES_HELP = ("spawn: the launcher's start to gex_Client_Init; then each library phase "
               "to its end (core/README \"Start-up phases\"); after_attach: the client "
               "from the end of gex_Segment_Attach to gasnet_exit; teardown: the last "
               "rank's release to the launcher's exit")


def startup_split(args, profile, logf):
    """One run of perf-start with GASNET_STARTUP_TIMES=1: the phase split.
    Returns a dict for the JSON's startup_split (or None, reason)."""
    b = args.builddir
    cmd = [os.path.join(b, "gasnetrun_ibv"), "-n", str(args.start_procs),
           os.path.join(b, "tests", "perf", "perf-start")]
    env = dict(os.environ, GASNET_STARTUP_TIMES="1")
    ms, why, err, t0, t1 = timed_run(cmd, profile["timeout"], env, logf)
    if why:
        return None, why
    ranks = []
    for line in err.splitlines():
        if not line.startswith("gasnet-startup-times rank "):
            continue
        words = line.split(":", 1)[1].split()
        ranks.append([(words[i], float(words[i + 1])) for i in range(0, len(words) - 1, 2)])
    if len(ranks) != args.start_procs:
        return None, "%d of %d ranks printed their phases" % (len(ranks), args.start_procs)
    return phase_table(ranks, t0, t1), None


def phase_table(ranks, t0, t1):
    """Per phase: when the last rank ended it (ms after the launcher's
    start; the differences add up to the job's time) and the median rank's
    own time in it."""
    names = [name for name, _ in ranks[0]]
    phases = []
    prev_last = t0
    prev = [t0] * len(ranks)
    for i, name in enumerate(names):
        ends = [r[i][1] if i < len(r) and r[i][0] == name else None for r in ranks]
        if any(e is None for e in ends):
            break
        own = [(e - p) * 1e3 for e, p in zip(ends, prev)]
        last = max(ends)
        phases.append({"phase": "spawn" if name == "init" else
                       "after_attach" if name == "exit" else name,
                       "last_rank_end_ms": (last - t0) * 1e3,
                       "critical_ms": (last - prev_last) * 1e3,
                       "median_rank_ms": statistics.median(own),
                       "max_rank_ms": max(own)})
        prev_last, prev = last, ends
    phases.append({"phase": "teardown", "last_rank_end_ms": (t1 - t0) * 1e3,
                   "critical_ms": (t1 - prev_last) * 1e3, "median_rank_ms": None,
                   "max_rank_ms": None})
    return {"procs": len(ranks), "total_ms": (t1 - t0) * 1e3, "phases": phases,
            "description": PHASES_HELP}


def many_phase(args, profile, logf, data, budget_s, log):
    """Runs the tier's rounds into data (bench.Collected); returns the
    startup split (or None) and a reason when it could not be made."""
    deadline = time.time() + budget_s
    counts = rank_counts(args)
    split, split_why = None, "not measured"
    for rnd in range(args.rounds):
        t0 = time.time()
        for n in counts:
            for key, cmd in many_steps(args, profile, n):
                left = deadline - time.time()
                if left < 10:
                    data.add_failure(key, "skipped: the many-process tier used its %d s"
                                     % budget_s)
                    continue
                doc, why = cfg.run_json_program(cmd, int(min(profile["timeout"], left)), None,
                                                logf)
                if why:
                    data.add_failure(key, why)
                    log("many round %d: %s at %d failed: %s" % (rnd + 1, key[0], n, why))
                else:
                    data.add_doc(key, doc)
        if deadline - time.time() > 20:
            start_runs(args, profile, logf, data, rnd, deadline)
        else:
            data.add_failure(("perf-start", args.start_procs), "skipped: out of time")
        log("many-process round %d of %d done (%.1f s)" % (rnd + 1, args.rounds,
                                                            time.time() - t0))
    if deadline - time.time() > 20:
        split, split_why = startup_split(args, profile, logf)
    return split, split_why


def many_rows(args, profile, data, make_row):
    rows = []
    for n in rank_counts(args):
        for test, sizes, src, src_test in MANY_ROWS:
            for size in cfg.sizes_of(profile, sizes):
                vals, why = data.get((src, n), src_test, size)
                extra = data.extra.get(((src, n), src_test, size))
                row = make_row(ENV, src, test, size, n, vals, why, extra,
                               reference_of(data, test, size, n), args.statistic)
                rows.append(row)
    vals, why = data.get(("perf-start", args.start_procs), "start_exit", 0)
    fvals, fwhy = data.get(("perf-start-floor", args.start_procs), "start_exit", 0)
    rows.append(make_row(ENV, "perf-start", "mp_start_exit", 0, args.start_procs, vals, why, None,
                         ("launch floor", fvals, fwhy,
                          "gasnetrun_ibv -n %d perf-start --floor (every process returns "
                          "from main before gex_Client_Init), alternating with ours"
                          % args.start_procs), args.statistic))
    return rows


def split_notes(split):
    """The phase split as note lines."""
    if not split:
        return []
    out = ["start-up split, %d processes, %.0f ms launch to exit (critical path: when the last "
           "rank ended each phase; median rank's own time):" % (split["procs"],
                                                                split["total_ms"])]
    for p in split["phases"]:
        med = "" if p["median_rank_ms"] is None else ", median rank %.1f ms" % p["median_rank_ms"]
        out.append("  %-15s %7.1f ms (ends at %.1f ms%s)" % (p["phase"], p["critical_ms"],
                                                           p["last_rank_end_ms"], med))
    return out
