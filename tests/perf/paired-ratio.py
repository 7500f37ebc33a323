#!/usr/bin/env python3
"""Ratios of perf-rma --paired runs: ours / memcpy per test and size.

    tests/perf/paired-ratio.py RUN.json [RUN.json ...]

For each test and size, the time ratio of our best repetition to the
best repetition of the memcpy paired with it (TEST_memcpy) in the same
run: > 1 means slower than memcpy (bandwidth rows are inverted so that
every figure reads the same way).  NB tests also have TEST_memcpy_ev (the
same loop of memcpy and event stores), shown as column TEST/ev.  One value
per file, joined by '/'.
"""
import json
import sys


def ratios(path):
    rows = {(r["test"], r["size"]): r for r in json.load(open(path))["results"]}
    out = {}
    for (test, size), r in rows.items():
        for suffix, column in (("_memcpy", test), ("_memcpy_ev", test + "/ev")):
            ref = rows.get((test + suffix, size))
            if "_memcpy" in test or ref is None:
                continue
            if r["unit"] == "us":
                out[(column, size)] = r["min"] / ref["min"]
            else:
                out[(column, size)] = ref["max"] / r["max"]
    return out


def main(paths):
    if not paths:
        sys.exit(__doc__.strip())
    runs = [ratios(p) for p in paths]
    keys = set().union(*runs)
    tests = sorted({t for t, _ in keys})
    print("%6s " % "size" + " ".join("%15s" % t for t in tests))
    for size in sorted({s for _, s in keys}):
        cells = ["/".join("%.2f" % run[(t, size)] for run in runs if (t, size) in run)
                 for t in tests]
        print("%6d " % size + " ".join("%15s" % c for c in cells))


if __name__ == "__main__":
    main(sys.argv[1:])
