#!/usr/bin/env bash
# tests/install/check-install.sh: the installed tree works for a real client.
#
# Copies the source tree (the files git knows, or everything after a
# distclean) to a temporary directory, configures it with
# --prefix=<temp>/prefix, runs `make install`, checks the installed files,
# then builds tests/install/client.c twice against the installed tree:
#   1. a Makefile that includes <prefix>/include/ibv-conduit/ibv-seq.mak and
#      uses $(GASNET_CC) $(GASNET_CPPFLAGS) $(GASNET_CFLAGS) -c and
#      $(GASNET_LD) $(GASNET_LDFLAGS) -o x x.o $(GASNET_LIBS);
#   2. pkg-config --cflags --libs gasnet-ibv-par (PKG_CONFIG_PATH=<prefix>/lib/pkgconfig).
# Each binary must contain "$GASNetConduitName: IBV $" and pass when run by
# the installed bin/gasnetrun_ibv -n 4.  Prints "check-install: PASS" and
# exits 0, or prints the failing step with its log and exits 1.
# Run by the test harness (manifest line "install"); also runnable by hand.
# Environment: TEST_SRCDIR (source tree; default: two levels up),
# KEEP_INSTALL_TMP=1 keeps the temporary directory, CHECK_INSTALL_CONFIGURE_ARGS
# extra configure arguments (e.g. --with-ibv-spawner=mpi: the fragments then
# link with mpicc and the mpi spawner library).
set -euo pipefail

srcdir=${TEST_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
nprocs=4
work=$(mktemp -d "${TMPDIR:-/tmp}/gasnet-ibv-install.XXXXXX")
prefix=$work/prefix
ok=0

cleanup() {
    if [ $ok = 1 ] && [ "${KEEP_INSTALL_TMP:-0}" != 1 ]; then
        rm -rf "$work"
    else
        echo "check-install: files kept in $work"
    fi
}
trap cleanup EXIT

step() { echo "check-install: $*"; }
fail() {
    echo "check-install: FAIL: $1"
    if [ $# -ge 2 ] && [ -f "$2" ]; then tail -n 30 "$2" | sed 's/^/    /'; fi
    exit 1
}
# run LOG command...: runs quietly, fails with the log's tail.
run() {
    local log=$1
    shift
    "$@" >"$log" 2>&1 || fail "'$*' failed (log: $log)" "$log"
}

# 1. A clean copy of the source tree.
step "copying $srcdir"
mkdir -p "$work/src"
if git -C "$srcdir" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    (cd "$srcdir" && git ls-files -z --cached --others --exclude-standard) |
        tar -C "$srcdir" --null --ignore-failed-read -T - -cf - 2>/dev/null |
        tar -C "$work/src" -xf -
else
    tar -C "$srcdir" --exclude=.git -cf - . | tar -C "$work/src" -xf -
    if [ -f "$work/src/Makefile" ]; then
        (cd "$work/src" && make -s distclean >/dev/null 2>&1) || true
    fi
fi
[ -f "$work/src/configure.ac" ] || fail "no configure.ac in the copy of $srcdir"

# 2. Configure, build and install into the temporary prefix.
step "autoreconf, configure --prefix=$prefix ${CHECK_INSTALL_CONFIGURE_ARGS:-}, make install"
cd "$work/src"
run "$work/autoreconf.log" autoreconf -fi
# shellcheck disable=SC2086 # a word list
run "$work/configure.log" ./configure --prefix="$prefix" ${CHECK_INSTALL_CONFIGURE_ARGS:-}
run "$work/make.log" make -j2
run "$work/install.log" make install

# 3. The installed compatibility contract (ARCHITECTURE.md section 2).
for f in include/gasnetex.h include/gasnet.h include/gasnet_fwd.h include/gasnet_config.h \
    include/gasnet_tools.h include/ibv-conduit/ibv-seq.mak include/ibv-conduit/ibv-par.mak \
    lib/libgasnet-ibv-seq.a lib/libgasnet-ibv-par.a lib/pkgconfig/gasnet-ibv-seq.pc \
    lib/pkgconfig/gasnet-ibv-par.pc bin/gasnetrun_ibv; do
    [ -e "$prefix/$f" ] || fail "not installed: $prefix/$f"
done
grep -q '^#define GASNET_RELEASE_VERSION_MAJOR [0-9]' "$prefix/include/gasnet_config.h" ||
    fail "gasnet_config.h lacks a literal GASNET_RELEASE_VERSION_MAJOR define"

# 4. Client built with the makefile fragment.
step "building the client with ibv-seq.mak"
mkdir -p "$work/mak"
cat >"$work/mak/Makefile" <<EOF
include $prefix/include/ibv-conduit/ibv-seq.mak
client: client.o
	\$(GASNET_LD) \$(GASNET_LDFLAGS) -o client client.o \$(GASNET_LIBS)
client.o: $srcdir/tests/install/client.c
	\$(GASNET_CC) \$(GASNET_CPPFLAGS) \$(GASNET_CFLAGS) -c -o client.o $srcdir/tests/install/client.c
EOF
run "$work/mak/build.log" make -C "$work/mak"

# 5. Client built with pkg-config (PAR).
step "building the client with pkg-config gasnet-ibv-par"
mkdir -p "$work/pc"
export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
run "$work/pc/pkg-config.log" pkg-config --exists --print-errors gasnet-ibv-par
cc=$(pkg-config --variable=GASNET_CC gasnet-ibv-par 2>/dev/null || true)
ld=$(pkg-config --variable=GASNET_LD gasnet-ibv-par 2>/dev/null || true)
[ -n "$cc" ] || fail "gasnet-ibv-par.pc has no GASNET_CC variable"
[ -n "$ld" ] || fail "gasnet-ibv-par.pc has no GASNET_LD variable"
# shellcheck disable=SC2046,SC2086 # flags and the compiler command are word lists
run "$work/pc/build.log" $cc $(pkg-config --cflags gasnet-ibv-par) -c -o "$work/pc/client.o" \
    "$srcdir/tests/install/client.c"
# shellcheck disable=SC2046,SC2086
run "$work/pc/link.log" $ld -pthread -o "$work/pc/client" "$work/pc/client.o" \
    $(pkg-config --libs gasnet-ibv-par)

# 6. Ident string and a real run of each under the installed launcher.
for bin in "$work/mak/client" "$work/pc/client"; do
    # shellcheck disable=SC2016 # a literal dollar sign
    grep -qaF -- '$GASNetConduitName: IBV $' "$bin" ||
        fail "$bin lacks the ident string \$GASNetConduitName: IBV \$"
    step "running $bin on $nprocs processes"
    out=$bin.out
    if ! timeout --kill-after=5 60 "$prefix/bin/gasnetrun_ibv" -n $nprocs "$bin" \
        </dev/null >"$out" 2>&1; then
        fail "gasnetrun_ibv -n $nprocs $bin failed" "$out"
    fi
    grep -q "client: PASS on $nprocs processes" "$out" || fail "$bin did not report PASS" "$out"
done

ok=1
step "PASS"
