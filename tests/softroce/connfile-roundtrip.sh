#!/usr/bin/env bash
# tests/softroce/connfile-roundtrip.sh: GASNET_CONNECTFILE_OUT written by one
# run, GASNET_CONNECTFILE_IN read by the next (issue 16), over verbs (PSHM
# off; run by tests/softroce/verbs.d/ondemand.manifest in the Soft-RoCE
# guest, or natively on an HCA).
#
#   connfile-roundtrip.sh [CASE...]   CASE: suite:file:n (see step 3)
#
# 1. conn-race (every pair talks) with all peers static and
#    GASNET_CONNECTFILE_OUT=DIR/all.%: each per-rank file must name its 3
#    peers (base 36); the 4 files concatenated make one file.
# 2. am-flood (pairs r, r+2, plus the barrier's and the exit's traffic,
#    which in 4 ranks reach every pair) with on-demand connections only
#    and GASNET_CONNECTFILE_BASE=10 writes DIR/flood.%: rank 0's file must
#    name its partner 2 (ranges expanded).
#    2b. the same with 2 ranks writes DIR/pair.% (for the 2-rank tests).
# 3. The AM, RMA, flood, exit and race tests run with GASNET_CONNECTFILE_IN=
#    DIR/flood.% or DIR/pair.% (the files of step 2), a hand-written
#    partial file (rank 0 must connect 1 peer at start-up, the rest on
#    demand) and the concatenated file of step 1 (all 3 static); rank 0's
#    GASNET_VERBOSEENV line shows how many peers were connected at
#    start-up.  The 2-rank ones: a 20,000-AM flood and rma-forms; exit
#    cases go through tests/exit/run-case.sh (expected code, exit within
#    the timeout).  More cases (prog_of) run when named as arguments.
# 4. A malformed file stops the job with one line naming the file and line.
# Prints PASS/FAIL per step; exit 0 only if all passed.  Uses TEST_BUILDDIR
# and TEST_LAUNCHER (the harness sets them), else the current directory.
set -u
B=${TEST_BUILDDIR:-.}
L=${TEST_LAUNCHER:-$B/gasnetrun_ibv}
T=${CONNFILE_TEST_TIMEOUT:-600}
HERE=$(cd "$(dirname "$0")" && pwd)
D=$(mktemp -d "${TMPDIR:-/tmp}/connfile-test.XXXXXX")
trap 'rm -rf "$D"' EXIT
export GASNET_SUPERNODE_MAXSIZE=1
fail=0
ok() { echo "PASS $1"; }
bad() { echo "FAIL $1"; fail=1; }
run() { # name, then env and command: output in $D/name.log
    local name=$1; shift
    env "$@" > "$D/$name.log" 2>&1
    local rc=$?
    [ $rc -eq 0 ] || { bad "$name: exit code $rc"; tail -15 "$D/$name.log"; }
    return $rc
}

# 1.
if run write-all GASNET_CONNECTFILE_OUT="$D/all.%" timeout $T "$L" -n 4 "$B/tests/integration/verbs/conn-race" am 20; then
    good=1
    for r in 0 1 2 3; do
        want=$(for p in 0 1 2 3; do [ $p = $r ] || printf '%s ' $p; done)
        got=$(sed -n "s/^$r: *//p" "$D/all.$r" 2>/dev/null | tr ' ' '\n' |
              awk -F- 'NF == 2 { for (i = $1; i <= $2; i++) printf "%d ", i; next } NF { printf "%s ", $1 }')
        grep -qx "base: 36" "$D/all.$r" && grep -qx "size: 4" "$D/all.$r" || good=0
        [ "$got" = "$want" ] || { good=0; echo "  rank $r: file lists '$got', expected '$want'"; cat "$D/all.$r"; }
    done
    [ $good = 1 ] && ok "write-all: every rank lists its 3 peers" || bad "write-all: connect files"
fi
cat "$D"/all.[0-3] > "$D/all-in-one" 2>/dev/null

# 2.
if run write-flood GASNET_CONNECT_STATIC=0 GASNET_CONNECTFILE_OUT="$D/flood.%" GASNET_CONNECTFILE_BASE=10 \
       timeout $T "$L" -n 4 "$B/tests/integration/verbs/am-flood" 2000; then
    n=$(cat "$D"/flood.[0-3] | grep -c '^[0-9]*:')
    peers0=$(sed -n 's/^0: *//p' "$D/flood.0" | tr ' ' '\n' |
             awk -F- 'NF == 2 { for (i = $1; i <= $2; i++) printf "%d ", i; next } NF { printf "%s ", $1 }')
    if [ "$n" -ge 3 ] && grep -qx "base: 10" "$D/flood.0" && [[ " $peers0" == *" 2 "* ]]; then
        ok "write-flood: partner pairs recorded ($(grep -h '^[0-9]*:' "$D"/flood.[0-3] | tr '\n' ';'))"
    else
        bad "write-flood: files"; cat "$D"/flood.[0-3]
    fi
fi

# 2b.
if run write-pair GASNET_CONNECT_STATIC=0 GASNET_CONNECTFILE_OUT="$D/pair.%" \
       timeout $T "$L" -n 2 "$B/tests/integration/verbs/am-flood" 2000; then
    if grep -q '^0: *1$' "$D/pair.0" && grep -q '^1: *0$' "$D/pair.1"; then
        ok "write-pair: ranks 0 and 1 list each other"
    else
        bad "write-pair: files"; cat "$D"/pair.[01]
    fi
fi

# 3.
# prog_of SUITE: the command (launcher and program, or run-case.sh) to run.
EXITX='did.not.answer|ended.the.job|did.not.finish|FATAL'
RC="$HERE/../exit/run-case.sh"
prog_of() {
    case $1 in
    am-args) echo "$L -n 4 $B/tests/integration/am-args" ;;
    am-payload) echo "$L -n 4 $B/tests/integration/am-payload" ;;
    flood) echo "$L -n 4 $B/tests/integration/verbs/am-flood 20000" ;;
    flood2) echo "$L -n 2 $B/tests/integration/verbs/am-flood 20000" ;;
    rma) echo "$L -n 2 $B/tests/integration/rma-forms" ;;
    rmav-sizes) echo "$L -n 2 $B/tests/integration/rmav/rmav-sizes" ;;
    hello) echo "$L -n 4 $B/tests/integration/exitcode hello" ;;
    race) echo "$L -n 4 $B/tests/integration/verbs/conn-race put 50" ;;
    exit-collective) echo "$RC -e 0 -o goodbye-from-rank-3 -x $EXITX 4 tests/exit/exit-cases collective" ;;
    exit-return) echo "$RC -e 0 -o return-from-rank-3 -x $EXITX 4 tests/exit/exit-cases return" ;;
    exit-barrier) echo "$RC -e 7 -o sigquit-on-rank-1 -x $EXITX 4 tests/exit/exit-cases barrier" ;;
    exit-blockuntil) echo "$RC -e 7 -x SIGQUIT|$EXITX 4 tests/exit/exit-cases blockuntil" ;;
    exit-sigkill) echo "$RC -e 137 -o rank.3.\(pid.[0-9]+\).was.killed.by.signal.SIGKILL 4 tests/exit/exit-cases sigkill" ;;
    esac
}
printf 'size: 4\n0: 1\n2: 3\n' > "$D/partial" # rank 0: 1 peer static, 2 on demand
# suite:file:static peers expected on rank 0 ("" = any)
# One program of each kind (AM, flood, RMA, connection race, exit paths)
# over each kind of file; the rest of prog_of's list runs when named.
cases=${*:-am-args:flood.%: race:partial:1 am-args:all-in-one:3 flood2:pair.%:1 rma:pair.%:1 exit-barrier:flood.%: exit-sigkill:flood.%: exit-blockuntil:partial:1}
for c in $cases; do
    s=${c%%:*} rest=${c#*:}; f=${rest%%:*} want=${rest#*:}
    set -- $(prog_of $s)
    name="read-$s-${f%.%}"
    if run "$name" GASNET_CONNECTFILE_IN="$D/$f" GASNET_VERBOSEENV=1 timeout $T "$@"; then
        line=$(grep -o "[0-9]* network peer(s), [0-9]* connected at start-up" "$D/$name.log" | head -1)
        nstatic=${line#*, }; nstatic=${nstatic%% *}
        if [ -z "$line" ]; then bad "$name: no start-up line"
        elif [ -n "$want" ] && [ "$nstatic" != "$want" ]; then bad "$name: $line ($want expected)"
        else ok "$name ($line)"; fi
    fi
done

# 4.
printf '0: 1\n0: 1,2\n' > "$D/badfile"
env GASNET_CONNECTFILE_IN="$D/badfile" timeout 120 "$L" -n 2 "$B/tests/integration/exitcode" hello > "$D/bad.log" 2>&1
rc=$?
if [ $rc -ne 0 ] && grep -q "GASNET_CONNECTFILE_IN: $D/badfile line 2: ',' is not a base-10 node number" "$D/bad.log"; then
    ok "malformed file: exit $rc, one line naming file and line"
else
    bad "malformed file: exit $rc"; tail -5 "$D/bad.log"
fi
[ $fail = 0 ] && echo "connfile-roundtrip: PASS" || echo "connfile-roundtrip: FAIL"
exit $fail
