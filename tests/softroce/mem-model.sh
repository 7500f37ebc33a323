#!/bin/bash
# mem-model.sh srq|rbuf: the measured points of core/ibv/mem/README.  Runs
# tests/integration/verbs/srq-mem with PSHM off on 2, 4 and 8 processes
# (MEM_MODEL_NS) in three configurations and prints rank 0's accounted
# pools (GASNET_VERBOSEENV) and every rank's VmPin.
#   srq   "Memory and start-up model": per-connection receive queues
#         (GASNET_USE_SRQ=0), SRQ with the default GASNET_RBUF_COUNT (1024),
#         SRQ with GASNET_RBUF_COUNT=32; 8 AMs in flight (MEM_MODEL_K)
#   rbuf  "Small receive buffers": SRQ with full-size buffers
#         (GASNET_RBUF_SIZE=0), SRQ with the automatic small buffers (4 KiB),
#         per-connection queues with 4 KiB buffers forced; 4 in flight
# Run from the build directory, in the guest:
#   tests/softroce/softroce-run -- SRCDIR/tests/softroce/mem-model.sh srq
set -u
case "${1:-}" in
srq)
    K=${MEM_MODEL_K:-8}
    modes=("GASNET_USE_SRQ=0" "GASNET_USE_SRQ=1" "GASNET_USE_SRQ=1 GASNET_RBUF_COUNT=32") ;;
rbuf)
    K=${MEM_MODEL_K:-4}
    modes=("GASNET_USE_SRQ=1 GASNET_RBUF_SIZE=0" "GASNET_USE_SRQ=1"
           "GASNET_USE_SRQ=0 GASNET_RBUF_SIZE=4K") ;;
*)
    echo "usage: mem-model.sh srq|rbuf (which README model to measure)" >&2
    exit 2 ;;
esac
for n in ${MEM_MODEL_NS:-2 4 8}; do
    for mode in "${modes[@]}"; do
        echo "=== N=$n $mode"
        env GASNET_SUPERNODE_MAXSIZE=1 GASNET_VERBOSEENV=1 $mode \
            timeout 300 ./gasnetrun_ibv -n "$n" tests/integration/verbs/srq-mem "$K" 2>&1 |
            grep -E "verbs SRQ|verbs memory|verbs receive|srq-mem|FAIL|ERROR"
        echo "=== exit ${PIPESTATUS[0]}"
    done
done
