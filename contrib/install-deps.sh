#!/usr/bin/env bash
# contrib/install-deps.sh: installs every Debian package that building,
# testing and benchmarking this library needs.
#
#   contrib/install-deps.sh [--force]
#
# contrib/check-deps.py (run by make check) fails when a script, Makefile
# rule or test runs a command whose package is not in this list (or its
# direct dependencies) and is not a base-system tool: keep the list complete,
# and prefer the base tools to a new package.
#
# Idempotent and non-interactive: packages already installed are left alone,
# and when nothing is missing apt is not called at all (pass --force to run
# `apt-get update` and the install anyway).  Quiet unless something fails, in
# which case apt's output is shown.  Needs root (or sudo without a password).
set -euo pipefail

packages=(
    # build
    autoconf automake libtool pkg-config make gcc g++
    libibverbs-dev librdmacm-dev ibverbs-providers
    libhwloc-dev libpmix-dev libopenmpi-dev openmpi-bin python3
    # make bench's SVG plots (tests/perf/bench_plot.py)
    python3-matplotlib
    # nm, readelf: the runtime-build tests inspect objects and libraries
    binutils
    # spawners: ssh (the tests start a throw-away sshd on loopback), mpi, pmi
    openssh-client openssh-server
    # Soft-RoCE test tier (a guest kernel with rxe, see shared/softroce)
    qemu-system-x86 busybox-static kmod xz-utils cpio iproute2
    ibverbs-utils rdmacm-utils perftest
    # make bench: UCX's ucx_perftest, the peer library beside ours over verbs
    ucx-utils
    # memory checking
    valgrind
    # fuzzing (tests/fuzz: clang's libFuzzer and sanitizer runtimes)
    clang libclang-rt-dev
)

force=0
case ${1:-} in
--force) force=1 ;;
'') ;;
*) echo "usage: $0 [--force]" >&2; exit 2 ;;
esac

# One dpkg-query for all: lines "name install ok installed" for those present.
installed=$(dpkg-query -W -f='${Package} ${Status}\n' "${packages[@]}" 2>/dev/null |
    awk '$2 == "install" && $3 == "ok" && $4 == "installed" { print $1 }' || true)
missing=()
for p in "${packages[@]}"; do
    grep -qxF -- "$p" <<<"$installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
    [ $force = 1 ] || exit 0
    missing=("${packages[@]}")
fi

sudo=
if [ "$(id -u)" != 0 ]; then
    command -v sudo >/dev/null 2>&1 ||
        { echo "install-deps: not root and no sudo; missing: ${missing[*]}" >&2; exit 1; }
    sudo="sudo -n"
fi

log=$(mktemp "${TMPDIR:-/tmp}/install-deps.XXXXXX")
trap 'rm -f "$log"' EXIT
export DEBIAN_FRONTEND=noninteractive
if ! $sudo apt-get update -q </dev/null >"$log" 2>&1; then
    cat "$log" >&2
    echo "install-deps: apt-get update failed" >&2
    exit 1
fi
if ! $sudo apt-get install -y -q --no-install-recommends \
    -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold \
    "${missing[@]}" </dev/null >>"$log" 2>&1; then
    cat "$log" >&2
    echo "install-deps: apt-get install failed for: ${missing[*]}" >&2
    exit 1
fi
