"""tests/perf/bench_ucx.py: UCX's ucx_perftest (Debian's ucx-utils) as a
peer beside perftest in the verbs phase of `make bench`.

Each measurement starts a ucx_perftest server in the background, waits until
it listens on its TCP port, runs the client against it with final numbers
in CSV (-f -v) and parses them.  Transport: UCX's verbs RC (UCX_TLS=rc_v,self)
on the run's device, port 1 (UCX_NET_DEVICES=DEV:1) and the RoCE GID index
(UCX_IB_GID_INDEX, 0 in the Soft-RoCE guest).

What each record compares with (bench.py's rows):
  ucp_put_lat -s 8   a put ping-pong; ucx_perftest reports half the round
                     trip, so a blocking 8-byte put (write + completion) is
                     compared with 2 x its latency
  ucp_get -s 8       one get per iteration, waited for: the whole round trip
  ucp_am_lat -s 8    an AM ping-pong, half the round trip (2 x for am_short_rtt)
  ucp_put_bw, ucp_get at 64 KiB and 1 MiB: average bandwidth; ucx_perftest's
                     MB/s is 2^20 bytes/s, converted to 10^6 bytes/s here

Records: {"tool": "ucx_perftest <test>", "test", "size", "ok", "reason",
"command", "lat_us" (UCX's average latency), "bw_MBps"}.  Standard library
only.
"""
import os
import time

import bench_perftest as pt

TOOL = "ucx_perftest"
PLAN = [("ucp_put_lat", 8), ("ucp_get", 8), ("ucp_am_lat", 8), ("ucp_put_bw", 65536),
        ("ucp_put_bw", 1 << 20), ("ucp_get", 65536), ("ucp_get", 1 << 20)]
LAT_PLAN = [("ucp_put_lat", 8), ("ucp_get", 8), ("ucp_am_lat", 8)]
MIB_TO_MB = 1048576.0 / 1e6


def available():
    """ucx_perftest's path, or None."""
    for d in os.environ.get("PATH", "/usr/bin:/bin").split(os.pathsep):
        p = os.path.join(d, TOOL)
        if os.access(p, os.X_OK):
            return p
    return None


def env_for(dev, gid_index):
    env = dict(os.environ)
    env.update(UCX_TLS="rc_v,self", UCX_NET_DEVICES="%s:1" % dev,
               UCX_IB_GID_INDEX=str(0 if gid_index is None else gid_index),
               UCX_WARN_UNUSED_ENV_VARS="n")
    return env


def iterations(test, size, quick=False):
    """-n: bounded bytes per run (the guest is slow; a ping-pong there, where
    both processes spin while rxe's kernel work needs the same vCPUs, takes
    milliseconds per iteration when the host is loaded)."""
    if size <= 8:
        return 100 if quick else 300
    budget, most = (8 << 20, 500) if quick else (32 << 20, 1000)
    return max(20, min(most, budget // max(size, 1)))


def parse(text):
    """(lat_us, bw_MBps) from the CSV of -f -v, or None."""
    lines = [l.strip() for l in text.splitlines() if l.strip()]
    for i, line in enumerate(lines):
        if not line.startswith("iterations,"):
            continue
        names = line.split(",")
        for data in lines[i + 1:]:
            vals = data.split(",")
            if len(vals) != len(names):
                continue
            try:
                row = dict(zip(names, (float(v) for v in vals)))
            except ValueError:
                continue
            lat, bw = row.get("avg_lat"), row.get("avg_bw")
            if lat is None or bw is None or lat <= 0:
                return None
            return lat, bw * MIB_TO_MB
    return None


def run_pair(test, size, dev, gid_index, server_ip, port, timeout=60, quick=False):
    """One server/client pair; returns the record (see the module doc)."""
    n = iterations(test, size, quick)
    args = ["-t", test, "-s", str(size), "-n", str(n), "-w", str(max(10, n // 10)),
            "-p", str(port), "-f", "-v"]
    client = [TOOL, server_ip] + args
    rec = {"tool": "%s %s" % (TOOL, test), "test": test, "size": size, "iters": n,
           "command": " ".join(client), "ok": False, "reason": None}
    out, rc, why = pt.serve_and_run([TOOL, "-p", str(port)], client, port, timeout,
                                    env=env_for(dev, gid_index))
    if why:
        rec["reason"] = "cannot start %s: %s" % (TOOL, why)
        return rec
    res = parse(out)
    if rc == 0 and res:
        rec.update(ok=True, lat_us=res[0], bw_MBps=res[1])
    else:
        tail = [l.strip() for l in out.splitlines() if l.strip()][-2:]
        rec["reason"] = "%s -t %s -s %d failed (exit %d)%s" % (
            TOOL, test, size, rc, (": " + " / ".join(tail)) if tail else "")
    return rec


def run_plan(plan, dev, gid_index, server_ip, quick, log, deadline, records, save,
             port=19515):
    """Runs plan [(test, size)], appending records (save() after each)."""
    for test, size in plan:
        port += 1
        left = deadline - time.time()
        if left < 15:
            records.append({"tool": "%s %s" % (TOOL, test), "test": test, "size": size,
                            "ok": False, "reason": "skipped: the verbs phase ran out of time"})
            continue
        rec = run_pair(test, size, dev, gid_index, server_ip, port,
                       timeout=int(min(60, left / 3)), quick=quick)
        if log:
            log.write("$ %s -> %s\n" % (rec["command"], rec))
            log.flush()
        print("bench: %-12s %-11s -s %-8d %s" % (TOOL, test, size,
                                                 "ok" if rec["ok"] else rec["reason"]),
              flush=True)
        records.append(rec)
        save()


def merge(rounds):
    """The best usable record of every (test, size) over the rounds, with
    "rounds" (each round's value: latency or bandwidth)."""
    best, order = {}, []
    for recs in rounds:
        for rec in recs:
            key = (rec["test"], rec["size"])
            lat = rec["test"].endswith("_lat") or (rec["test"] == "ucp_get" and rec["size"] <= 8)
            if key not in best:
                order.append(key)
                best[key] = dict(rec, rounds=[], kind="lat" if lat else "bw")
            cur = best[key]
            if not rec["ok"]:
                continue
            val = rec["lat_us"] if lat else rec["bw_MBps"]
            vals = cur["rounds"] + [val]
            if not cur["ok"] or (val < cur["lat_us"] if lat else val > cur["bw_MBps"]):
                cur = best[key] = dict(rec, kind=cur["kind"])
            cur["rounds"] = vals
    return [best[k] for k in order]


# Our rows and the ucx_perftest record each compares with: (test, size of
# ours) -> (ucx test, ucx size, factor on UCX's latency).
PEERS = {("put_lat", 8): ("ucp_put_lat", 8, 2.0), ("get_lat", 8): ("ucp_get", 8, 1.0),
         ("am_short_rtt", 0): ("ucp_am_lat", 8, 2.0),
         ("put_nbi_bw", 65536): ("ucp_put_bw", 65536, 1.0),
         ("put_nbi_bw", 1 << 20): ("ucp_put_bw", 1 << 20, 1.0),
         ("get_nbi_bw", 65536): ("ucp_get", 65536, 1.0),
         ("get_nbi_bw", 1 << 20): ("ucp_get", 1 << 20, 1.0)}


def peer(raw, row):
    """The UCX peer of one verbs row, or None when the row has none:
    {"name", "value", "ratio" (ours / UCX), "rounds", "derivation", "reason"}."""
    key = (row["test"], row["size"])
    if key not in PEERS:
        return None
    test, size, factor = PEERS[key]
    recs = {(r["test"], r["size"]): r for r in raw.get("ucx", [])}
    rec = recs.get((test, size))
    lat = factor != 1.0 or row["test"] in ("put_lat", "get_lat")
    name = ("%g x " % factor if factor != 1.0 else "") + "%s -t %s -s %d" % (TOOL, test, size)
    out = {"name": name, "value": None, "ratio": None, "rounds": [],
           "derivation": "%s (UCX_TLS=rc_v,self, same guest boot): %s, best of the rounds%s" % (
               name, "average latency" if lat else "average bandwidth (MiB/s x 1.048576)",
               "; ucx_perftest reports half the ping-pong round trip" if factor != 1.0 else ""),
           "reason": raw.get("ucx_reason") or "%s -t %s -s %d was not run" % (TOOL, test, size)}
    if rec is not None and not rec.get("ok"):
        out["reason"] = rec.get("reason")
    elif rec is not None:
        v = factor * (rec["lat_us"] if lat else rec["bw_MBps"])
        out.update(value=v, reason=None, rounds=[factor * x for x in rec.get("rounds", [])])
        ours = row.get("ours", {}).get("value")
        if ours:
            out["ratio"] = ours / v
    return out


def notes(rows):
    """One line per verbs row with a UCX peer: ours against UCX, best
    against best and, with rounds on both sides, median against median."""
    out = []
    for r in rows:
        u = r.get("ucx")
        if not u or u["value"] is None or r["ours"].get("value") is None:
            continue
        med = ""
        if u.get("rounds") and r["ours"].get("median"):
            m = sorted(u["rounds"])[len(u["rounds"]) // 2]
            med = "; median/median %.2f over %d UCX rounds" % (r["ours"]["median"] / m,
                                                             len(u["rounds"]))
        out.append("%s %s %d: ours %.4g %s, %s %.4g %s: ours/UCX %.2f%s" % (
            r["env"], r["test"], r["size"], r["ours"]["value"], r["unit"], u["name"],
            u["value"], r["unit"], u["ratio"], med))
    return out
