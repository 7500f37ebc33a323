#!/usr/bin/env python3
"""tests/perf/bench_plot.py: SVG plots of a `make bench` results file,
written beside it (bench.py calls write_plots after each run).

    tests/perf/bench_plot.py RESULTS.json [--out DIR]

  <name>-latency.svg    times (us) against message size, one panel per
                        environment (host-pshm, softroce, verbs-native):
                        every test with two sizes or more, ours solid, its
                        reference dashed in the same colour
  <name>-bandwidth.svg  the same for bandwidths (MB/s)
  <name>-many.svg       the many-process rows (host-many) against the process
                        count: one panel per test and size, ours and reference
  <name>-startup.svg    the start-up split (startup_split): the critical path
                        of a job from launch to exit, phase by phase, beside
                        the floor and the whole job of the mp_start_exit row

Whatever rows the file has are plotted (rows without a value are left out;
a panel with nothing to draw is not made).  Needs matplotlib (Debian's
python3-matplotlib): when the interpreter running bench.py lacks it, the
plots are made by /usr/bin/python3 running this file; with neither, no plots
and the reason.
"""
import json
import os
import subprocess
import sys

ENV_TITLES = {"host-pshm": "this host, PSHM",
              "softroce": "Soft-RoCE guest, verbs",
              "verbs-native": "verbs (this host's HCA)"}
KINDS = (("latency", ("us",), "time (us)"), ("bandwidth", ("MB/s",), "bandwidth (MB/s)"))


def plot_names(json_path):
    base = os.path.splitext(os.path.basename(json_path))[0]
    return {k: "%s-%s.svg" % (base, k) for k in ("latency", "bandwidth", "many", "startup")}


def have_matplotlib():
    try:
        import matplotlib  # noqa: F401
        return True
    except ImportError:
        return False


def write_plots(json_path, outdir=None):
    """Writes the plots; returns (file names relative to outdir, reason)."""
    outdir = outdir or os.path.dirname(os.path.abspath(json_path))
    if have_matplotlib():
        try:
            return make_all(json_path, outdir), None
        except Exception as e:  # a plot must never fail the benchmark
            return [], "plotting failed: %s" % e
    alt = "/usr/bin/python3"
    if os.path.realpath(alt) == os.path.realpath(sys.executable) or not os.path.exists(alt):
        return [], "matplotlib is not installed (Debian: python3-matplotlib)"
    p = subprocess.run([alt, os.path.abspath(__file__), json_path, "--out", outdir],
                       capture_output=True, text=True)
    if p.returncode != 0:
        lines = (p.stderr or p.stdout).strip().splitlines()
        return [], "%s: %s" % (alt, lines[-1] if lines else "exit %d" % p.returncode)
    return [l for l in p.stdout.split() if l.endswith(".svg")], None


def _setup():
    import matplotlib
    matplotlib.use("svg")
    matplotlib.rcParams["svg.hashsalt"] = "gasnet-ibv"  # stable ids: diffable files
    matplotlib.rcParams["svg.fonttype"] = "none"         # text as text: small files
    import matplotlib.pyplot as plt
    return plt


def _save(plt, fig, path, title):
    """Titles, lays out, writes and closes a figure; True."""
    if title:
        fig.suptitle(title, fontsize=9)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return True


def _label(row, side):
    if side == "ours":
        return "%s (ours)" % row["test"]
    return "%s: %s" % (row["test"], row["reference"]["name"])


def by_size_series(rows, env, units):
    """{test: [(size, ours, reference, row)]} for tests with >= 2 sizes."""
    series = {}
    for r in rows:
        if r["env"] != env or r["unit"] not in units or r["size"] <= 0:
            continue
        series.setdefault(r["test"], []).append(
            (r["size"], r["ours"]["value"], r["reference"]["value"], r))
    return {t: sorted(v, key=lambda x: x[0]) for t, v in series.items() if len(v) >= 2}


def plot_by_size(plt, doc, kind, units, ylabel, path):
    envs = [e for e in ("host-pshm", "softroce", "verbs-native")
            if by_size_series(doc["results"], e, units)]
    if not envs:
        return False
    fig, axes = plt.subplots(1, len(envs), figsize=(6.4 * len(envs), 4.8), squeeze=False)
    for ax, env in zip(axes[0], envs):
        series = by_size_series(doc["results"], env, units)
        colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
        for i, (test, pts) in enumerate(sorted(series.items())):
            c = colors[i % len(colors)]
            row = pts[0][3]
            for side, style, idx in (("ours", "-", 1), ("reference", "--", 2)):
                xs = [p[0] for p in pts if p[idx]]
                ys = [p[idx] for p in pts if p[idx]]
                if xs:
                    ax.plot(xs, ys, style, color=c, marker="o" if side == "ours" else "x",
                            markersize=4, label=_label(row, side))
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("message size (bytes)")
        ax.set_ylabel(ylabel)
        ax.set_title(ENV_TITLES.get(env, env))
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=6, loc="best")
    return _save(plt, fig, path, "%s against size: ours (solid) and the same-run reference "
                 "(dashed); %s" % (kind, doc.get("started", "")))


def plot_many(plt, doc, path):
    panels = {}
    for r in doc["results"]:
        if r["env"] == "host-many" and r["test"] != "mp_start_exit" and r.get("ranks"):
            panels.setdefault((r["test"], r["size"]), []).append(r)
    if not panels:
        return False
    keys = sorted(panels)
    cols = min(3, len(keys))
    nrows = (len(keys) + cols - 1) // cols
    fig, axes = plt.subplots(nrows, cols, figsize=(4.6 * cols, 3.6 * nrows), squeeze=False)
    for i, key in enumerate(keys):
        ax = axes[i // cols][i % cols]
        rows = sorted(panels[key], key=lambda r: r["ranks"])
        for side, style in (("ours", "-o"), ("reference", "--x")):
            pts = [(r["ranks"], r[side]["value"]) for r in rows if r[side]["value"]]
            if pts:
                ax.plot([p[0] for p in pts], [p[1] for p in pts], style, markersize=4,
                        label="ours" if side == "ours" else rows[0]["reference"]["name"])
        ax.set_title("%s %s" % key if key[1] else key[0], fontsize=9)
        ax.set_xlabel("processes")
        ax.set_ylabel(rows[0]["unit"])
        ax.set_xticks(sorted({r["ranks"] for r in rows}))
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=7)
    for j in range(len(keys), nrows * cols):
        axes[j // cols][j % cols].axis("off")
    return _save(plt, fig, path, "every process at once, against the process count (%s "
                 "cores); %s" % (doc.get("machine", {}).get("cpus"), doc.get("started", "")))


def plot_startup(plt, doc, path):
    split = doc.get("startup_split") or {}
    phases = split.get("phases") or []
    row = [r for r in doc["results"] if r["test"] == "mp_start_exit"]
    if not phases:
        return False
    fig, ax = plt.subplots(figsize=(8, 4.2))
    left = 0.0
    for i, ph in enumerate(phases):
        ax.barh(0, ph["critical_ms"], left=left, color=plt.cm.tab20(i % 20),
                label="%s %.1f ms" % (ph["phase"], ph["critical_ms"]))
        left += ph["critical_ms"]
    labels = ["this run (%d processes)" % split["procs"]]
    if row and row[0]["reference"]["value"]:
        ax.barh(1, row[0]["reference"]["value"], color="grey")
        labels.append("launch floor")
    if row and row[0]["ours"]["value"]:
        ax.barh(len(labels), row[0]["ours"]["value"], color="black")
        labels.append("job (mp_start_exit)")
    ax.set_yticks(range(len(labels)))
    ax.set_yticklabels(labels, fontsize=8)
    ax.set_xlabel("ms from the launcher's start")
    ax.legend(fontsize=6, ncol=4, loc="upper center", bbox_to_anchor=(0.5, -0.22))
    ax.set_title("start-up to exit, critical path by phase; %s" % doc.get("started", ""),
                 fontsize=9)
    return _save(plt, fig, path, None)


def make_all(json_path, outdir):
    with open(json_path) as f:
        doc = json.load(f)
    plt = _setup()
    names = plot_names(json_path)
    made = []
    for kind, units, ylabel in KINDS:
        if plot_by_size(plt, doc, kind, units, ylabel, os.path.join(outdir, names[kind])):
            made.append(names[kind])
    if plot_many(plt, doc, os.path.join(outdir, names["many"])):
        made.append(names["many"])
    if plot_startup(plt, doc, os.path.join(outdir, names["startup"])):
        made.append(names["startup"])
    return made


def main(argv):
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__)
        return 0 if argv else 2
    out = None
    if "--out" in argv:
        i = argv.index("--out")
        out = argv[i + 1]
        argv = argv[:i] + argv[i + 2:]
    if not have_matplotlib():
        print("bench_plot: matplotlib is not installed (Debian: python3-matplotlib)",
              file=sys.stderr)
        return 1
    outdir = out or os.path.dirname(os.path.abspath(argv[0]))
    for name in make_all(argv[0], outdir):
        print(name)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
