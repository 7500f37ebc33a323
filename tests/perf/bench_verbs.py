"""tests/perf/bench_verbs.py: the verbs half of `make bench`, run inside the
Soft-RoCE guest (bench.py starts it through tests/softroce/softroce-run) or
natively on a host with an HCA (bench.py --verbs-native).

In one boot it
  1. runs our programs with PSHM off (GASNET_SUPERNODE_MAXSIZE=1), each
     first as a tiny probe under a short timeout: a program that fails or
     hangs there is recorded as not available with the reason, so a missing
     or broken verbs transport costs seconds, not the whole time budget; a
     program that passes the probe is then run with the profile's options;
  2. runs the perftest pairs the ratio table needs (perftest_plan),
     tests/perf/ref-verbs (the measured barrier round perftest lacks) and
     UCX's ucx_perftest as a peer library (bench_ucx.PLAN: put, get and AM
     latency at 8 B, put and get bandwidth at 64 KiB and 1 MiB);
  3. repeats 1 and 2 for up to ROUNDS rounds while the time budget allows
     one more (odd rounds run perftest first), so that ours and the
     reference alternate in the same boot: a host that is busy for a
     minute then slows both sides, not only one (issue 17 saw NBI and NB
     puts of the same size differ by 1.5x within one single-pass run);
  4. writes one raw JSON file that bench.py turns into table rows: per
     program row the median over rounds ("value"), the best repetition of
     all rounds ("min"/"max") and the per-round values ("rounds"); per
     perftest pair the best run of all rounds and every round's value.
Standard library only.
"""
import json
import os
import shlex
import statistics
import sys
import time

import bench_config as cfg
import bench_perftest as pt
import bench_ucx as ucx

PERFTEST_ORDER = ("ib_send_lat", "ib_write_lat", "ib_read_lat", "ib_send_bw", "ib_write_bw",
                  "ib_read_bw")
NOT_AVAILABLE = "verbs transport not available"


def perftest_plan(profile):
    """[(tool, size)] whose results the reference column needs."""
    am, rma = set(profile["am_sizes"]), set(profile["rma_sizes"])
    plan = {"ib_send_lat": {8} | am, "ib_write_lat": {8} | am | rma, "ib_read_lat": rma,
            "ib_send_bw": {8} | am, "ib_write_bw": {8} | am | rma, "ib_read_bw": rma}
    return [(tool, s) for tool in PERFTEST_ORDER for s in sorted(plan[tool])]


PERFTEST_RESERVE_S = 200  # kept for perftest when our programs are slow
ROUNDS = 3                # alternating rounds of ours + perftest (quick: 1)
# Then up to LAT_ROUNDS short rounds of the 8-byte latency rows only (ours
# and their perftest pairs, alternating): a round trip in the emulated
# guest moves 1.5-2x between minutes (which vCPU runs a rank, and where the
# kernel's rxe work runs), so these rows get more samples on both sides.
LAT_ROUNDS = 4
LAT_ARGS = {"perf-am": ["--tests", "am_short_rtt,am_medium_rtt,am_long_rtt", "--sizes", "8"],
            "perf-rma": ["--tests", "put_lat,get_lat", "--sizes", "8"],
            "perf-barrier": []}
LAT_PLAN = [("ib_send_lat", 8), ("ib_write_lat", 8), ("ib_read_lat", 8)]


def run_ours(builddir, profile, ranks, launcher_args, log, deadline, save, only=None,
             reserve=PERFTEST_RESERVE_S, lat_only=False):
    """{program: {"reason": str|None, "doc": dict|None}} for our programs,
    the short latency ones first (perf-rma's bandwidth sizes take most of a
    round).  Leaves reserve seconds before the deadline (the round's
    perftest still to run); save() after each.  only: the programs to run
    without a probe (later rounds: those that worked in the first); None =
    all, each probed first.  lat_only: the 8-byte latency tests (LAT_ARGS)."""
    launcher = os.path.join(builddir, "gasnetrun_ibv")
    env = dict(os.environ)
    env["GASNET_SUPERNODE_MAXSIZE"] = "1"
    ours = {}
    progs = cfg.OUR_PROGRAMS if only is None else only
    for prog in sorted(progs, key=lambda p: p == "perf-rma"):
        path = os.path.join(builddir, "tests", "perf", prog)
        base = [launcher, "-n", str(ranks)] + shlex.split(launcher_args or "") + [path]
        t0 = time.time()
        left = deadline - reserve - t0
        if left < 10:
            ours[prog] = {"reason": "skipped: the verbs phase ran out of time", "doc": None}
            continue
        reason = None
        if only is None:
            doc, reason = cfg.run_json_program(base + cfg.PROBE_ARGS[prog],
                                               int(min(profile["probe_timeout"], left)), env,
                                               log)
        if reason:
            ours[prog] = {"reason": "%s: probe run %s" % (NOT_AVAILABLE, reason), "doc": None}
        else:
            left = deadline - reserve - time.time()
            if lat_only:
                args = LAT_ARGS[prog] + profile[prog]
            else:
                args = ["--sizes", cfg.size_list(cfg.program_sizes(profile, prog))] + profile[prog]
            doc, reason = cfg.run_json_program(base + args,
                                               int(max(10, min(profile["timeout"], left))),
                                               env, log)
            ours[prog] = {"reason": reason and "failed over verbs: %s" % reason, "doc": doc}
        save()
        print("bench: %-12s %s (%.1f s)" % (prog, ours[prog]["reason"] or "ok",
                                            time.time() - t0), flush=True)
    return ours


def run_perftest(profile, dev, gid_index, server_ip, server_prefix, quick, log, deadline,
                 records, save, plan=None):
    """Runs the plan (default: perftest_plan), appending to records (save()
    after each run)."""
    port = 18515
    for tool, size in (plan or perftest_plan(profile)):
        port += 1
        left = deadline - time.time()
        if left < 15:
            records.append({"tool": tool, "size": size, "ok": False,
                            "reason": "skipped: the verbs phase ran out of time"})
            continue
        rec = pt.run_pair(tool, size, dev, gid_index, server_ip, port,
                          timeout=int(min(60, left / 3)), server_prefix=server_prefix,
                          quick=quick, repeats=1)
        if log:
            log.write("$ %s -> %s\n" % (rec["command"], json.dumps(rec)))
            log.flush()
        status = "ok" if rec["ok"] else rec["reason"]
        print("bench: %-12s -s %-8d %s" % (tool, size, status), flush=True)
        records.append(rec)
        save()


# tests/perf/ref-verbs: the measured references of one 2-rank barrier round
# (both write at once, then wait), which perftest has no tool for, and of
# the AM round trip on raw verbs (a SEND ping-pong).
REF_VERBS_ARGS = {False: ["--iters", "1000", "--reps", "3"], True: ["--iters", "200", "--reps", "1"]}


def run_ref_verbs(builddir, dev, gid_index, quick, log, deadline, records, save):
    """Runs ref-verbs once; appends {"ok", "reason", "command", "xchg_us",
    "rtt_us", "send_us"} (best repetition of each test; send_us None when
    absent) to records, then save().
    Skipped, as a perftest pair is, when under 15 s of the budget are left."""
    left = deadline - time.time()
    if left < 15:
        records.append({"ok": False, "reason": "skipped: the verbs phase ran out of time"})
        return
    cmd = [os.path.join(builddir, "tests", "perf", "ref-verbs"), "--dev", dev]
    if gid_index is not None:
        cmd += ["--gid-index", str(gid_index)]
    cmd += REF_VERBS_ARGS[bool(quick)]
    doc, reason = cfg.run_json_program(cmd, int(min(90, left)), None, log)
    rec = {"command": " ".join(cmd), "ok": False, "reason": reason}
    if doc:
        got = {r["test"]: r.get("min") for r in doc.get("results", [])}
        if got.get("verbs_xchg_lat") and got.get("verbs_write_rtt"):
            rec.update(ok=True, xchg_us=got["verbs_xchg_lat"], rtt_us=got["verbs_write_rtt"],
                       send_us=got.get("verbs_send_rtt"))
        else:
            rec["reason"] = "ref-verbs gave no usable result"
    print("bench: %-12s %s" % ("ref-verbs", "ok" if rec["ok"] else rec["reason"]), flush=True)
    records.append(rec)
    save()


def merge_ref_verbs(records):
    """The best run over the rounds (by the exchange), with every round's
    exchange value; the SEND ping-pong's best and rounds beside it."""
    good = [r for r in records if r["ok"]]
    if not good:
        return records[-1] if records else None
    best = dict(min(good, key=lambda r: r["xchg_us"]))
    best["rounds"] = [r["xchg_us"] for r in good]
    sends = [r["send_us"] for r in good if r.get("send_us")]
    best["send_us"] = min(sends) if sends else None
    best["send_rounds"] = sends
    return best


def merge_ours(rounds):
    """One {program: {"reason", "doc"}} from per-round ones: each result row
    gets the median of the rounds' values, the best repetition of all rounds
    (min, max) and "rounds" (the per-round best).  A program keeps the first
    round's reason when no round produced a document."""
    merged = {}
    for prog in cfg.OUR_PROGRAMS:
        runs = [r[prog] for r in rounds if prog in r]
        docs = [r["doc"] for r in runs if r.get("doc")]
        if not docs:
            if runs:
                merged[prog] = runs[0]
            continue
        doc = dict(docs[0])
        rows = []
        for row in docs[0].get("results", []):
            same = [x for d in docs for x in d.get("results", [])
                    if x["test"] == row["test"] and x["size"] == row["size"]
                    and x.get("value") is not None]
            if not same:
                rows.append(row)
                continue
            m = dict(same[0])
            m["value"] = statistics.median(x["value"] for x in same)
            m["min"] = min(x["min"] for x in same)
            m["max"] = max(x["max"] for x in same)
            m["reps"] = sum(x.get("reps", 0) for x in same)
            m["rounds"] = [x["min"] if x.get("unit") == "us" else x["max"] for x in same]
            rows.append(m)
        doc["results"] = rows
        merged[prog] = {"reason": None, "doc": doc}
    return merged


def merge_perftest(rounds):
    """The best usable run of every (tool, size) over the rounds' records,
    with "rounds" (each round's value), "round_recs" (each round's usable
    record, for per-round values of any field) and "runs" summed."""
    best, seen = {}, []
    for recs in rounds:
        for rec in recs:
            key = (rec["tool"], rec["size"])
            if key not in best:
                seen.append(key)
                best[key] = dict(rec, rounds=[], runs=0)
            cur = best[key]
            if rec["ok"]:
                field = "t_avg_us" if pt.kind(rec["tool"]) == "lat" else "bw_avg_MBps"
                vals, runs = cur["rounds"] + [rec[field]], cur["runs"] + rec.get("runs", 1)
                recs = cur.get("round_recs", []) + [rec]
                if not cur["ok"] or pt._better(rec["tool"], rec, cur):
                    cur = best[key] = dict(rec)
                cur["rounds"], cur["runs"], cur["round_recs"] = vals, runs, recs
    return [best[k] for k in seen]


def main(args):
    """Entry point of bench.py --verbs-inner.  args: the parsed bench.py
    arguments (builddir, verbs_out, quick, env_name, ib_dev, gid_index,
    server_ip, perftest_server_prefix, verbs_ranks, verbs_profile,
    verbs_launcher_args)."""
    t0 = time.time()
    pname = args.verbs_profile or ("verbs-quick" if args.quick else "verbs")
    profile = cfg.PROFILES[pname]
    if args.ib_dev:
        dev, gid, ip = args.ib_dev, args.gid_index, args.server_ip or "127.0.0.1"
    else:
        found = pt.guest_device()
        if found is None:
            devs = sorted(os.listdir("/sys/class/infiniband")) \
                if os.path.isdir("/sys/class/infiniband") else []
            found = (devs[0], None, "127.0.0.1") if devs else (None, None, None)
        dev, gid, ip = found
        if args.gid_index is not None:
            gid = args.gid_index
        if args.server_ip:
            ip = args.server_ip
    out = {"env": args.env_name, "device": dev, "gid_index": gid, "server_ip": ip,
           "perftest_version": pt.version(), "ours": {}, "perftest": [], "reason": None,
           "profile": pname, "ucx": [],
           "ucx_reason": None if ucx.available() else
           "ucx_perftest is not installed (ucx-utils, contrib/install-deps.sh)"}
    deadline = t0 + args.verbs_budget

    def save():
        # Written after every step: a guest that times out keeps what ran.
        out["duration_s"] = time.time() - t0
        tmp = args.verbs_out + ".tmp"
        with open(tmp, "w") as f:
            json.dump(out, f, indent=1)
        os.replace(tmp, args.verbs_out)

    logpath = args.verbs_out + ".log"
    with open(logpath, "w") as log:
        if dev is None:
            out["reason"] = "no RDMA device (no /sys/class/infiniband entry, no SOFTROCE_RXE_DEVS)"
        else:
            print("bench: verbs phase on %s (gid index %s, server %s), perftest %s" %
                  (dev, gid, ip, out["perftest_version"]), flush=True)
            if out["perftest_version"] is None:
                out["reason"] = "perftest is not installed (contrib/install-deps.sh)"
            rounds_ours, rounds_pt, ref_verbs, rounds_ucx, only = [], [], [], [], None
            pt_s = None  # how long the last round's perftest took

            def save_round():
                out["ours"] = merge_ours(rounds_ours)
                out["perftest"] = merge_perftest(rounds_pt)
                out["ref_verbs"] = merge_ref_verbs(ref_verbs)
                out["ucx"] = ucx.merge(rounds_ucx)
                save()

            for rnd in range(1 if args.quick else ROUNDS):
                r0 = time.time()
                if rnd and deadline - r0 < 1.2 * round_s:
                    print("bench: verbs round %d skipped (%.0f s left, a round took %.0f s)" %
                          (rnd + 1, deadline - r0, round_s), flush=True)
                    break
                ours_r, pt_r, ucx_r = {}, [], []
                rounds_ours.append(ours_r)
                rounds_pt.append(pt_r)
                rounds_ucx.append(ucx_r)
                # Ours keeps time for this round's perftest only when it is
                # still to run: the first round's guess, then the last
                # round's measured time.  (A fixed reserve once skipped our
                # programs in the later rounds while perftest ran in all 3,
                # so a best-of-3 reference met a best-of-1 of ours.)
                pt_first = rnd % 2 == 1
                reserve = 0 if pt_first else (PERFTEST_RESERVE_S if pt_s is None else 1.1 * pt_s)

                def do_ours():
                    ours_r.update(run_ours(args.builddir, profile, args.verbs_ranks,
                                           args.verbs_launcher_args, log, deadline, save,
                                           only, reserve))

                def do_perftest():
                    nonlocal pt_s
                    p0 = time.time()
                    if out["perftest_version"] is not None:
                        run_perftest(profile, dev, gid, ip, args.perftest_server_prefix,
                                     args.quick, log, deadline, pt_r, save)
                    run_ref_verbs(args.builddir, dev, gid, args.quick, log, deadline, ref_verbs,
                                  save)
                    if out["ucx_reason"] is None:
                        ucx.run_plan(ucx.PLAN, dev, gid, ip, args.quick, log, deadline, ucx_r,
                                     save)
                    pt_s = time.time() - p0

                for step in ((do_perftest, do_ours) if pt_first else (do_ours, do_perftest)):
                    step()
                    save_round()
                if only is None:
                    only = [p for p in cfg.OUR_PROGRAMS if ours_r.get(p, {}).get("doc")]
                round_s = time.time() - r0
                out["rounds"] = len(rounds_ours)
                print("bench: verbs round %d done (%.0f s)" % (rnd + 1, round_s), flush=True)
            lat_s = 60.0  # a guess until one latency round was timed
            for rnd in range(0 if args.quick or not only else LAT_ROUNDS):
                r0 = time.time()
                if deadline - r0 < 1.2 * lat_s:
                    break
                ours_r, pt_r, ucx_r = {}, [], []
                rounds_ours.append(ours_r)
                rounds_pt.append(pt_r)
                rounds_ucx.append(ucx_r)
                steps = [lambda: ours_r.update(run_ours(
                             args.builddir, profile, args.verbs_ranks, args.verbs_launcher_args,
                             log, deadline, save, only, 0, lat_only=True))]
                if out["perftest_version"] is not None:
                    steps.append(lambda: run_perftest(
                        profile, dev, gid, ip, args.perftest_server_prefix, args.quick, log,
                        deadline, pt_r, save, plan=LAT_PLAN))
                steps.append(lambda: run_ref_verbs(args.builddir, dev, gid, args.quick, log,
                                                   deadline, ref_verbs, save))
                if out["ucx_reason"] is None:
                    steps.append(lambda: ucx.run_plan(ucx.LAT_PLAN, dev, gid, ip, args.quick,
                                                      log, deadline, ucx_r, save))
                for step in (steps if rnd % 2 else steps[::-1]):
                    step()
                    save_round()
                lat_s = time.time() - r0
                out["lat_rounds"] = rnd + 1
                print("bench: verbs latency round %d done (%.0f s)" % (rnd + 1, lat_s), flush=True)
    save()
    return 0


if __name__ == "__main__":
    sys.exit("bench_verbs.py is run by bench.py (--verbs-inner); see tests/perf/README")
