# tests/integration/relia/shm-private.sh: sourced by shm-kill.sh and
# shm-symlink.sh (after `set -u`, with "$@" their arguments).  Sets
# builddir, launcher and prog (the built shm-life; exits 77 if missing),
# then, when it can (root, unshare, no path of the job under /tmp or
# /dev/shm), runs the calling script again in a private mount namespace
# with fresh tmpfs instances on /dev/shm and /tmp, where every entry and
# every byte used is the job's.  Sets exact to 1 there, else to "".
builddir=${TEST_BUILDDIR:-.}
launcher=${TEST_LAUNCHER:-$builddir/gasnetrun_ibv}
prog=$builddir/tests/integration/relia/shm-life
case $launcher in /*) ;; *) launcher=$PWD/$launcher ;; esac
case $prog in /*) ;; *) prog=$PWD/$prog ;; esac
[ -x "$prog" ] || { echo "SKIP: $prog is not built"; exit 77; }
builddir=$(cd "$builddir" && pwd)
case "$builddir $launcher $prog" in */tmp/* | */dev/shm/*) ;; *) private_ok=1 ;; esac
if [ -z "${SHM_PRIVATE:-}" ] && [ -n "${private_ok:-}" ] && [ "$(id -u)" = 0 ] &&
    unshare --mount --propagation private true 2>/dev/null; then
    exec unshare --mount --propagation private env SHM_PRIVATE=1 bash -c \
        'mount -t tmpfs -o mode=1777 shmtest /dev/shm && mount -t tmpfs -o mode=1777 shmtest /tmp &&
         exec bash "$0" "$@"' "$0" "$@"
fi
exact=${SHM_PRIVATE:-}
