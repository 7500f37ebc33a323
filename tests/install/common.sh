# shellcheck shell=bash
# shellcheck disable=SC2154 # name, work, keep, ok: set by the caller (below)
# tests/install/common.sh: helpers of check-install.sh and
# check-runtime-build.sh (sourced).  The caller sets `name` (the prefix of
# every line), `work` (its temporary directory), `keep` (1: keep it even on
# success) and `ok=0`, sets ok=1 when it passed, and traps EXIT to cleanup.

# step TEXT: a progress line.
step() { echo "$name: $*"; }
# fail TEXT [LOG]: the failing step, the tail of its log, exit 1.
fail() {
    echo "$name: FAIL: $1"
    if [ $# -ge 2 ] && [ -f "$2" ]; then tail -n 30 "$2" | sed 's/^/    /'; fi
    exit 1
}
# run LOG COMMAND...: runs quietly, fails with the log's tail.
run() {
    local log=$1
    shift
    "$@" >"$log" 2>&1 || fail "'$*' failed (log: $log)" "$log"
}
# cleanup: removes the temporary directory after a pass, else says where it is.
cleanup() {
    if [ "$ok" = 1 ] && [ "$keep" != 1 ]; then
        rm -rf "$work"
    else
        echo "$name: files kept in $work"
    fi
}
