#!/usr/bin/env bash
# tests/spawn/ssh-verbs.sh: 2 "hosts" x 2 processes started by the ssh
# spawner, talking over verbs between the hosts: the AM and RMA tests.
#
#   ssh-verbs.sh                  (from the build tree, where an RDMA device
#                                  exists: natively, or in the Soft-RoCE
#                                  guest: tests/softroce/softroce-run --
#                                  tests/spawn/ssh-verbs.sh)
#
# Both "hosts" are 127.0.0.1 over a throw-away sshd (tests/spawn/sshd.sh);
# GASNET_TEST_HOSTS=2 (propagated like every GASNET_* variable) gives ranks
# {0,1} and {2,3} different host ids, so each pair shares memory (PSHM) and
# the pairs talk through the HCA.  One line per check; exit 0 if all pass,
# 77 (SKIP) without an RDMA device or sshd.
set -u
here=$(cd "$(dirname "$0")" && pwd)
build=${TEST_BUILDDIR:-$(pwd)}
launcher=${TEST_LAUNCHER:-$build/gasnetrun_ibv}
. "$here/sshd.sh"
if ! ls /sys/class/infiniband/* >/dev/null 2>&1; then
    echo "SKIP: no RDMA device (run inside the Soft-RoCE guest: tests/softroce/softroce-run -- $0)"
    exit 77
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/ssh-verbs.XXXXXX")
trap 'sshd_stop; rm -rf "$work"' EXIT
sshd_start "$work/sshd"
rc=$?
[ $rc = 0 ] || exit $rc
export GASNET_SSH_OPTIONS="$SSH_TEST_OPTIONS" GASNET_SSH_SERVERS="127.0.0.1 127.0.0.1"
export GASNET_TEST_HOSTS=2
failures=0
for t in am-args rma; do
    timeout -k 5 300 "$launcher" -spawner=ssh -n 4 "$build/tests/integration/$t" >"$work/out" 2>&1
    code=$?
    if [ $code = 0 ] && grep -q "PASS $t" "$work/out"; then
        echo "ok - $t: 2 hosts x 2 processes over ssh, verbs between the hosts"
    else
        echo "FAIL - $t: exit code $code"
        sed 's/^/    /' "$work/out" | tail -n 20
        failures=$((failures + 1))
    fi
done
[ $failures = 0 ]
