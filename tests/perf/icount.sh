#!/bin/bash
# tests/perf/icount.sh: instructions per operation on the injection paths
# (AM Short Request, 8-byte puts) over PSHM, counted by valgrind's callgrind.
#
#   tests/perf/icount.sh [--builddir DIR] [--count N] [--ops "am_short put8_nbi put8_blk put8_loop"]
#                        [--top K] [--json FILE] [--keep DIR] [--max OP=N ...]
#
# Method (tests/perf/README, "Instruction counts"):
#   * tests/perf/perf-inject OP COUNT runs as a 2-rank job with both ranks
#     under callgrind; rank 0 calls the operation COUNT times through a
#     non-inlined wrapper bench_inject_OP.
#   * --toggle-collect=bench_inject_OP counts instructions only while that
#     wrapper (and everything it calls: the library's injection path) runs,
#     so polling for Replies, barriers, start-up and exit are not counted.
#   * Two runs, COUNT = N and 2N: per op = (Ir(2N) - Ir(N)) / N, so costs
#     paid once (first call, lazy set-up) cancel.  A non-integer result or a
#     large gap to Ir(N)/N says the path is not the same every time.
#   * The breakdown lists the functions with the most self instructions in
#     the 2N run, per op (callgrind_annotate).
# Instruction counts do not depend on machine load, unlike times: use them
# to compare two builds.  --max OP=N fails (exit 1) when OP costs more than
# N per op (make check: put8_loop, the inline lookup computed once).
# Exit 0; 77 with "SKIP: ..." if valgrind is missing.
set -u

BUILDDIR=.
COUNT=20000
OPS="am_short put8_nbi put8_blk put8_loop"
TOP=6
JSON=
KEEP=
declare -A MAX
while [ $# -gt 0 ]; do
    case "$1" in
    --builddir) BUILDDIR=$2; shift 2 ;;
    --count) COUNT=$2; shift 2 ;;
    --ops) OPS=$2; shift 2 ;;
    --top) TOP=$2; shift 2 ;;
    --json) JSON=$2; shift 2 ;;
    --keep) KEEP=$2; shift 2 ;;
    --max)
        [[ "${2:-}" =~ ^([a-z0-9_]+)=([0-9]+)$ ]] ||
            { echo "icount.sh: --max wants OP=N, not '${2:-}'" >&2; exit 2; }
        MAX[${BASH_REMATCH[1]}]=${BASH_REMATCH[2]}; shift 2 ;;
    -h|--help) sed -n '2,23p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "icount.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
    esac
done
[[ "$COUNT" =~ ^[1-9][0-9]*$ ]] || { echo "icount.sh: --count $COUNT is not a positive number" >&2; exit 2; }

if ! command -v valgrind >/dev/null 2>&1; then
    echo "SKIP: valgrind is not installed (contrib/install-deps.sh installs it)"
    exit 77
fi
LAUNCHER=$BUILDDIR/gasnetrun_ibv
PROG=$BUILDDIR/tests/perf/perf-inject
for f in "$LAUNCHER" "$PROG"; do
    [ -x "$f" ] || { echo "icount.sh: $f is missing: run make first (or pass --builddir)" >&2; exit 2; }
done

WORK=$(mktemp -d /tmp/icount.XXXXXX)
trap '[ -n "$KEEP" ] && { mkdir -p "$KEEP" && cp -r "$WORK"/. "$KEEP"/; }; rm -rf "$WORK"' EXIT

# run OP N: prints rank 0's collected Ir (the only non-zero profile).
run() {
    local op=$1 n=$2 dir=$WORK/$1.$2 ir
    mkdir -p "$dir"
    if ! timeout --kill-after=5 300 "$LAUNCHER" -n 2 valgrind -q --tool=callgrind \
            --toggle-collect="bench_inject_$op" --callgrind-out-file="$dir/cg.%p" \
            "$PROG" "$op" "$n" >"$dir/out.log" 2>&1; then
        echo "icount.sh: the job '$PROG $op $n' under callgrind failed; its output:" >&2
        tail -20 "$dir/out.log" >&2
        return 1
    fi
    ir=$(grep -h '^summary:' "$dir"/cg.* 2>/dev/null | awk '{print $2}' | sort -n | tail -1)
    [ -n "$ir" ] || { echo "icount.sh: no callgrind profile in $dir" >&2; return 1; }
    echo "$ir"
}

# breakdown OP N: "self-Ir-per-op function (file)" for the top functions.
breakdown() {
    local op=$1 n=$2 f
    f=$(grep -l '^summary: [1-9]' "$WORK/$op.$n"/cg.* 2>/dev/null | head -1)
    [ -n "$f" ] || return 0
    callgrind_annotate --inclusive=no "$f" 2>/dev/null |
        awk -v n="$n" -v top="$TOP" '
            /PROGRAM TOTALS/ { go = 1; next }
            go && /file:function/ { list = 1; next }
            list && /^-+$/ { if (shown) exit; next }
            list && NF >= 2 && $1 ~ /^[0-9,]+$/ {
                ir = $1; gsub(",", "", ir)
                fn = $NF; if ($NF ~ /^\[/) fn = $(NF - 1)
                split(fn, parts, ":")
                where = parts[1]; name = parts[2]; if (name == "") { name = where; where = "?" }
                if (shown < top) printf "      %8.1f  %s (%s)\n", ir / n, name, where
                shown++
            }'
}

printf 'Instructions per operation, rank 0, inside bench_inject_<op> (callgrind;\n'
printf '(Ir(2N) - Ir(N)) / N with N = %s; PSHM, 2 ranks)\n' "$COUNT"
printf '  %-10s %14s %14s %10s\n' op "Ir(N)" "Ir(2N)" "per op"
declare -A PER
status=0
for op in $OPS; do
    a=$(run "$op" "$COUNT") || { status=1; continue; }
    b=$(run "$op" $((2 * COUNT))) || { status=1; continue; }
    PER[$op]=$(awk -v a="$a" -v b="$b" -v n="$COUNT" 'BEGIN { printf "%.1f", (b - a) / n }')
    printf '  %-10s %14s %14s %10s\n' "$op" "$a" "$b" "${PER[$op]}"
    echo "$op $a $b" >>"$WORK/summary"
done
for op in $OPS; do
    [ -n "${PER[$op]:-}" ] || continue
    echo "  where $op spends them (self instructions per op, top $TOP):"
    breakdown "$op" $((2 * COUNT))
done

if [ -n "$JSON" ] && [ -f "$WORK/summary" ]; then
    awk -v n="$COUNT" 'BEGIN { printf "{\n  \"method\": \"callgrind --toggle-collect=bench_inject_<op>, rank 0, (Ir(2N)-Ir(N))/N\",\n  \"count\": %d,\n  \"ops\": [", n }
        { printf "%s\n    {\"op\": \"%s\", \"ir_n\": %s, \"ir_2n\": %s, \"per_op\": %.1f}", (NR > 1 ? "," : ""), $1, $2, $3, ($3 - $2) / n }
        END { printf "\n  ]\n}\n" }' "$WORK/summary" >"$JSON"
fi
for op in "${!MAX[@]}"; do
    if [ -z "${PER[$op]:-}" ]; then
        echo "FAIL: --max $op=${MAX[$op]}: $op was not counted (not in --ops, or its run failed)"
        status=1
    elif awk -v v="${PER[$op]}" -v m="${MAX[$op]}" 'BEGIN { exit !(v > m) }'; then
        echo "FAIL: $op costs ${PER[$op]} instructions per op, more than --max ${MAX[$op]}"
        status=1
    else
        echo "ok: $op ${PER[$op]} <= ${MAX[$op]} instructions per op"
    fi
done
exit $status
