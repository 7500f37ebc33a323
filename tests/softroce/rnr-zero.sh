#!/bin/bash
# rnr-zero.sh: runs COMMAND and fails unless no receiver-not-ready (RNR)
# event was counted on any RDMA device meanwhile: the proof that AM flow
# control (credits, and with GASNET_USE_SRQ the SRQ sizing of
# core/ibv/mem/README "Shared receive queues") never lets a SEND meet an empty
# receive queue.
#
#   rnr-zero.sh -- COMMAND [ARG...]
#
# Counters: every hw_counters file whose name contains "rnr" (rdma_rxe:
# rcvd_rnr_err, send_rnr_err, rnr_nak_retry_err... as the kernel has them)
# of every port of every device, read before and after.  They are per
# device, not per process: run nothing else on the devices meanwhile.
# Output: one "rnr-zero: DEV:PORT NAME BEFORE -> AFTER" line per counter,
# then "rnr-zero: PASS ..." or "rnr-zero: FAIL: <why>".  Exit: COMMAND's
# non-zero status, else 1 when an RNR counter moved, 77 (SKIP) when no
# device exposes an RNR counter (COMMAND not run), 2 on bad usage.
set -u
SYS=${RAIL_TRAFFIC_SYSFS:-/sys/class/infiniband}
[ "${1:-}" = "--" ] && shift
[ $# -gt 0 ] || { echo "usage: rnr-zero.sh -- COMMAND [ARG...]" >&2; exit 2; }

FILES=()
for f in "$SYS"/*/ports/*/hw_counters/*rnr*; do
    [ -r "$f" ] && FILES+=("$f")
done
if [ ${#FILES[@]} -eq 0 ]; then
    echo "SKIP: no RNR hw_counters under $SYS (needs an rdma_rxe or similar device)"
    exit 77
fi
declare -A BEFORE
for f in "${FILES[@]}"; do BEFORE[$f]=$(cat "$f"); done
"$@"
rc=$?
moved=0
for f in "${FILES[@]}"; do
    after=$(cat "$f")
    dev=${f#"$SYS"/}
    dev=${dev%%/*}
    port=${f#*/ports/}
    port=${port%%/*}
    echo "rnr-zero: $dev:$port $(basename "$f") ${BEFORE[$f]} -> $after"
    [ "$after" != "${BEFORE[$f]}" ] && moved=$((moved + 1))
done
if [ $rc -ne 0 ]; then
    echo "rnr-zero: FAIL: the command exited $rc"
    exit $rc
fi
if [ $moved -ne 0 ]; then
    echo "rnr-zero: FAIL: $moved RNR counter(s) moved"
    exit 1
fi
echo "rnr-zero: PASS (${#FILES[@]} RNR counters unchanged)"
