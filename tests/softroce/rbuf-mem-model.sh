#!/bin/bash
# rbuf-mem-model.sh: measured points of core/ibv/README "Small receive
# buffers": tests/integration/verbs/srq-mem with PSHM off on 2, 4 and 8
# processes, SRQ with full-size buffers (GASNET_RBUF_SIZE=0), SRQ with the
# automatic small buffers (4 KiB), and per-connection queues with 4 KiB
# buffers forced; prints rank 0's accounted pools (GASNET_VERBOSEENV) and
# every rank's VmPin.  Run from the build directory, in the guest:
#   tests/softroce/softroce-run -- SRCDIR/tests/softroce/rbuf-mem-model.sh
set -u
K=${RBUF_MEM_K:-4}
for n in ${RBUF_MEM_NS:-2 4 8}; do
    for mode in "GASNET_USE_SRQ=1 GASNET_RBUF_SIZE=0" "GASNET_USE_SRQ=1" \
                "GASNET_USE_SRQ=0 GASNET_RBUF_SIZE=4K"; do
        echo "=== N=$n $mode"
        env GASNET_SUPERNODE_MAXSIZE=1 GASNET_VERBOSEENV=1 $mode \
            timeout 300 ./gasnetrun_ibv -n "$n" tests/integration/verbs/srq-mem "$K" 2>&1 |
            grep -E "verbs SRQ|verbs memory|verbs receive|srq-mem|FAIL|ERROR"
        echo "=== exit ${PIPESTATUS[0]}"
    done
done
