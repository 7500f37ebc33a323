#!/usr/bin/env bash
# contrib/test-all.sh: the README's test command, also run by CI (.ci/run).
# Installs the Debian packages, builds the tree in place with warnings as
# errors, builds every test program (make -j2 check-programs), and runs
# every test (`make check`: unit tests, then the integration manifest
# through tests/harness/run-tests, one job at a time).
# Run from the top of a source tree (a fresh clone works).
#
# Closes, however it ends, with a table of wall times: each step above, and
# within make check every job that took 30 s or more (with the parts the
# sanitizer and Soft-RoCE tiers print: builds, guest layouts), the sum of
# the shorter jobs, and the rest of make check (surface checks, harness).
# make check's output is also kept in tests/logs/test-all.log.
set -euo pipefail
cd "$(dirname "$0")/.."
T_ALL=$SECONDS
STEPS=()   # "SECONDS<TAB>STEP" in order
CHECKLOG=

# step NAME COMMAND...: runs COMMAND, notes its wall time under NAME.
step() {
    local name=$1 t0=$SECONDS rc=0
    shift
    "$@" || rc=$?
    STEPS+=("$((SECONDS - t0))	$name")
    return $rc
}

# job_table CHECK_SECONDS: from make check's output, the jobs of 30 s or
# more, each with the timing lines its tier printed into its log in
# tests/logs (sanitizer builds and runs; Soft-RoCE variant builds and guest
# layouts), then the shorter jobs summed, then the rest of make check.
job_table() {
    local name
    sed -n -E 's/^(PASS|FAIL|SKIP) ([^ :]+)[: ].*\(([0-9.]+) s[,)].*/\2 \3/p' "$CHECKLOG" |
        awk -v check="$1" -v long="$CHECKLOG.long" '
            { sum += $2 }
            $2 < 30 { n++; short += $2; next }
            { printf "    %-44s %7.0f\n", $1, $2; print $1 > long }
            END {
                printf "    %-44s %7.0f\n", n " shorter jobs", short
                printf "    %-44s %7.0f\n", "rest of make check (surface checks, harness)", (check > sum ? check - sum : 0)
            }' >"$CHECKLOG.table"
    # each long job line, then its tier's own timing lines
    while IFS= read -r line; do
        echo "$line"
        name=$(echo "$line" | awk '{ print $1 }')
        if ! grep -qx -- "$name" "$CHECKLOG.long" 2>/dev/null || [ ! -f "tests/logs/$name.log" ]; then
            continue
        fi
        grep -E '^sanitize.*: [0-9]+ s$|^sanitize: copied, configured and built in' "tests/logs/$name.log" |
            sed 's/^/        /' || true
        grep -E '^check-softroce: times: ' "tests/logs/$name.log" | tail -n 1 |
            sed 's/^check-softroce: times: //' | tr ';' '\n' | sed 's/^ */        /' || true
    done <"$CHECKLOG.table"
    rm -f "$CHECKLOG.table" "$CHECKLOG.long"
}

# times: the closing table.
times() {
    local rc=$? s name
    echo "test-all: wall times (s)"
    for s in "${STEPS[@]}"; do
        IFS=$'\t' read -r secs name <<<"$s"
        printf '  %-46s %7d\n' "$name" "$secs"
        if [ "$name" = "make check" ] && [ -n "$CHECKLOG" ] && [ -f "$CHECKLOG" ]; then
            job_table "$secs"
        fi
    done
    printf '  %-46s %7d\n' "total (exit status $rc)" "$((SECONDS - T_ALL))"
}
trap times EXIT

step "install-deps" contrib/install-deps.sh
step "autoreconf -fi" autoreconf -fi
step "configure --enable-werror" ./configure --enable-werror
step "make -j2" make -j2
step "make -j2 check-programs" make -j2 check-programs
mkdir -p tests/logs
CHECKLOG=tests/logs/test-all.log
# shellcheck disable=SC2016 # $0 is bash -c's first argument
step "make check" bash -c 'set -o pipefail; make check 2>&1 | tee "$0"' "$CHECKLOG"
