#!/bin/bash
# tests/perf/twoway-check.sh: the oversubscription criterion of issue 17,
# run by run: perf-twoway with NP processes (default 4, more than this
# host's 2 cores) against the same program with 2 processes, alternating,
# RUNS times (default 10).  Prints per run and test the ratio
# (us per message with NP) / (us per message with 2) and exits 1 if any
# ratio exceeds LIMIT (default 10), a pattern is missing or a run failed (a wait that collapsed
# dies after --timeout seconds, 100 here).  Beside each ratio: the mean
# context switches per message of the paired ranks (perf-twoway
# --switches), the scheduler's part of the time, which a shared host's load
# does not change the way it changes the times.
#
#   tests/perf/twoway-check.sh [--builddir DIR] [--runs N] [--np N] [--limit X]
#                              [--iters N] [--sizes 4096]
set -u
BUILDDIR=.
RUNS=10
NP=4
LIMIT=10
ITERS=20000
SIZES=4096
while [ $# -gt 0 ]; do
    case "$1" in
    --builddir) BUILDDIR=$2; shift 2 ;;
    --runs) RUNS=$2; shift 2 ;;
    --np) NP=$2; shift 2 ;;
    --limit) LIMIT=$2; shift 2 ;;
    --iters) ITERS=$2; shift 2 ;;
    --sizes) SIZES=$2; shift 2 ;;
    -h|--help) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "twoway-check.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
    esac
done
PROG=$BUILDDIR/tests/perf/perf-twoway
[ -x "$PROG" ] || { echo "twoway-check.sh: $PROG is missing: run make first" >&2; exit 2; }
WORK=$(mktemp -d /tmp/twoway-check.XXXXXX)
: >"$WORK/ratios"
trap 'rm -rf "$WORK"' EXIT

# one N RUN: the program's result table (test size value) in $WORK/N.RUN
one() {
    timeout --kill-after=5 300 "$BUILDDIR/gasnetrun_ibv" -n "$1" "$PROG" --iters "$ITERS" \
        --reps 1 --sizes "$SIZES" --timeout 100 --switches >"$WORK/$1.$2.log" 2>&1 ||
        { echo "run $2: $1 processes failed:"; tail -3 "$WORK/$1.$2.log"; return 1; }
    # measured rows only: "tw_x SIZE not run: ..." is a skip, not a value
    awk '$1 ~ /^tw_/ && $5 ~ /^[0-9.]+$/ && $6 == "us" { print $1, $2, $5 }' \
        "$WORK/$1.$2.log" >"$WORK/$1.$2"
    # mean context switches per message over the paired ranks
    awk '$1 == "#" && $2 == "switches" { k = $4 "/" $5; s[k] += $6; n[k]++ }
         END { for (k in s) printf "%s %.2f\n", k, s[k] / n[k] }' "$WORK/$1.$2.log" >"$WORK/$1.$2.sw"
}
# sw FILE TEST: the mean switches per message of TEST, or "-"
sw() { awk -v t="$2" '$1 == t { v = $2 } END { print (v == "") ? "-" : v }' "$1"; }

# The patterns every run must report: a skipped or missing row fails the
# run instead of vanishing from the table.
EXPECT="tw_short_flood/0"
for sz in $(echo "$SIZES" | tr ',' ' '); do
    case "$sz" in *[Kk]) sz=$(( ${sz%?} * 1024 )) ;; *[Mm]) sz=$(( ${sz%?} * 1048576 )) ;; esac
    EXPECT="$EXPECT tw_medium_flood/$sz tw_long_flood/$sz tw_long_reqreq/$sz"
done

status=0
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
for run in $(seq 1 "$RUNS"); do
    one 2 "$run" || { status=1; continue; }
    one "$NP" "$run" || { status=1; continue; }
    load=$(cut -d' ' -f1 /proc/loadavg)
    for t in $EXPECT; do
        a=$(awk -v t="$t" '$1 "/" $2 == t { print $3 }' "$WORK/$NP.$run")
        b=$(awk -v t="$t" '$1 "/" $2 == t { print $3 }' "$WORK/2.$run")
        if [ -z "$a" ] || [ -z "$b" ]; then
            echo "run $run: $t missing from the output (skipped or failed)"
            echo "$t MISSING" >>"$WORK/ratios"
            status=1
            continue
        fi
        swa=$(sw "$WORK/$NP.$run.sw" "$t") swb=$(sw "$WORK/2.$run.sw" "$t")
        awk -v run="$run" -v np="$NP" -v lim="$LIMIT" -v t="$t" -v a="$a" -v b="$b" -v load="$load" \
            -v swa="$swa" -v swb="$swb" '
            BEGIN { r = (b > 0) ? a / b : 1e9; bad = r > lim
                    printf "run %2d  %-20s %8.3f us (%d procs) %8.3f us (2)  ratio %6.2f%s  switches/msg %s (%d) %s (2)  load %s\n",
                           run, t, a, np, b, r, bad ? "  OVER" : "", swa, np, swb, load
                    printf "%s %.2f\n", t, r >> "'"$WORK/ratios"'"
                    exit bad }' || status=1
    done
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "ratios per pattern (${NP} against 2 processes, run 1 first; limit ${LIMIT}x):"
for t in $EXPECT; do
    awk -v t="$t" -v runs="$RUNS" '$1 == t { v = v " " $2
            if ($2 == "MISSING") miss = 1; else { n++; if ($2 + 0 > w) w = $2 + 0 } }
        END { worst = miss ? "missing" : (n ? sprintf("%.2f", w) : "-")
              printf "  %-22s%s  (%d of %d runs measured; worst %s)\n", t, v, n, runs, worst }' \
        "$WORK/ratios"
done
[ $status -eq 0 ] && echo "PASS: every ratio of every run within ${LIMIT}x" ||
    echo "FAIL: a ratio above ${LIMIT}x, a missing pattern or a failed run"
exit $status
