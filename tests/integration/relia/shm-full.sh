#!/bin/bash
# tests/integration/relia/shm-full.sh: /dev/shm too small or full, reported
# as such (core/pshm/README "Shared memory without names").
#
# usage: shm-full.sh   (run from the build tree, or with TEST_BUILDDIR /
#                       TEST_LAUNCHER set; root, in a private mount
#                       namespace made by shm-private.sh, else SKIP)
# 1. /dev/shm of 8 MiB, 4 ranks (their AM queues need 17 MB): init fails on
#    every rank with the line naming /dev/shm and GASNET_PSHM_NETWORK_DEPTH.
# 2. /dev/shm of 64 MiB, filled by rank 0 after init (shm-full): the first
#    Medium into a payload buffer page ends the job with exit code 135 and
#    the SIGBUS report naming /dev/shm, not a bare SIGBUS.
set -u
. "$(dirname "$0")/shm-private.sh"
[ -n "$exact" ] || { echo "SKIP: needs root and a private mount namespace (unshare)"; exit 77; }
full=$builddir/tests/integration/relia/shm-full
[ -x "$full" ] || { echo "SKIP: $full is not built"; exit 77; }
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

mount -o remount,size=8M /dev/shm || { echo "SKIP: cannot resize /dev/shm"; exit 77; }
out=$("$launcher" -n 4 "$full" /dev/shm/fill 2>&1 </dev/null)
rc=$?
echo "$out"
echo "case 1: exit code $rc"
[ $rc -ne 0 ] || fail "a job whose AM queues exceed /dev/shm started"
echo "$out" | grep -q "the AM queues need .* free; enlarge /dev/shm.*GASNET_PSHM_NETWORK_DEPTH" ||
    fail "no line naming /dev/shm's free space and GASNET_PSHM_NETWORK_DEPTH"

rm -f /dev/shm/fill
mount -o remount,size=64M /dev/shm || { echo "SKIP: cannot resize /dev/shm"; exit 77; }
out=$("$launcher" -n 4 "$full" /dev/shm/fill 2>&1 </dev/null)
rc=$?
echo "$out"
echo "case 2: exit code $rc"
echo "$out" | grep -q "filled" || fail "rank 0 did not fill /dev/shm"
[ $rc -eq 135 ] || fail "exit code $rc, not 135 (128 + SIGBUS)"
echo "$out" | grep -q "caught fatal signal SIGBUS.*in the AM queues.*/dev/shm had no page left" ||
    fail "no SIGBUS report naming /dev/shm"
echo "$out" | grep -q "NOT REACHED" && fail "the Mediums went through a full /dev/shm"
rm -f /dev/shm/fill

[ $fails -eq 0 ] && echo "PASS: a small and a full /dev/shm are reported as such" && exit 0
echo "FAIL: $fails check(s)"
exit 1
