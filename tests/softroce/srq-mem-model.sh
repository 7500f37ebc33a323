#!/bin/bash
# srq-mem-model.sh: the measured points of core/ibv/README "Memory and
# start-up model": runs tests/integration/verbs/srq-mem with PSHM off on 2,
# 4 and 8 processes, per-connection receive queues (GASNET_USE_SRQ=0), SRQ
# with the default GASNET_RBUF_COUNT (1024) and SRQ with GASNET_RBUF_COUNT=32,
# and prints rank 0's accounted pools (GASNET_VERBOSEENV) and every rank's
# VmPin.  Run from the build directory, in the guest:
#   tests/softroce/softroce-run -- SRCDIR/tests/softroce/srq-mem-model.sh
set -u
K=${SRQ_MEM_K:-8}
for n in ${SRQ_MEM_NS:-2 4 8}; do
    for mode in "GASNET_USE_SRQ=0" "GASNET_USE_SRQ=1" "GASNET_USE_SRQ=1 GASNET_RBUF_COUNT=32"; do
        echo "=== N=$n $mode"
        env GASNET_SUPERNODE_MAXSIZE=1 GASNET_VERBOSEENV=1 $mode \
            timeout 300 ./gasnetrun_ibv -n "$n" tests/integration/verbs/srq-mem "$K" 2>&1 |
            grep -E "verbs SRQ|verbs memory|srq-mem|FAIL|ERROR"
        echo "=== exit ${PIPESTATUS[0]}"
    done
done
