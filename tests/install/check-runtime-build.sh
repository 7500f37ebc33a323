#!/usr/bin/env bash
# tests/install/check-runtime-build.sh: build this library the way PGAS
# runtimes build GASNet from its source tarball, and use it as they do.
#
#  1. The `make dist` tarball (TEST_DIST_TARBALL, or made now with `make
#     dist` in TEST_BUILDDIR) is unpacked as UPC++'s configure does
#     (`gzip -cd | tar xf -`, top folder = tarball name without .tar.gz), and
#     UPC++'s checks of a GASNet-EX source tree are applied: gasnet_config.h.in,
#     gasnetex.h, and EX_SPEC_VERSION_MAJOR/MINOR in docs/GASNet-EX.txt.
#  2. Chapel's step `./Bootstrap -T` in the source tree.
#  3. configure in a separate build directory with GASNet options as UPC++
#     and Chapel pass them, including options for conduits we do not have
#     (they must be accepted with a note, never "unrecognized").
#  4. What runtimes read back: `make echovar VARNAME=CONDUITS`, config.status
#     substituting GASNet's @VAR@s in a runtime's own template.
#  5. `make seq par parsync` in ibv-conduit/ (as UPC++'s gasnet-single rule);
#     ibv-conduit/ibv-{seq,par,parsync}.mak must carry GASNet's variables.
#  6. For each mode: tests/install/runtime-client.cc compiled with
#     $(GASNET_CXX) $(GASNET_CXXCPPFLAGS) $(GASNET_CXXFLAGS), linked with
#     $(GASNET_CXX) $(GASNET_LDFLAGS) ... $(GASNET_LIBS) (UPC++ links with its
#     C++ compiler), run on 4 processes with ibv-conduit/contrib/gasnetrun_ibv
#     (where upcxx-run looks for it under GASNET_PREFIX).
#  7. `make install prefix=DIR` from that build directory: the installed
#     layout, and the client built from the installed ibv-par.mak runs.
# Prints "check-runtime-build: PASS" or the failing step with its log.
# Run by the test harness (tests/integration/manifest.d/build.manifest).
# Environment: TEST_SRCDIR, TEST_BUILDDIR (default: the current directory),
# TEST_DIST_TARBALL, KEEP_RUNTIME_TMP=1 keeps the temporary directory.
set -euo pipefail
# A runtime drives this build from its own configure/shell, not from inside
# our `make check`: drop the make state the harness inherited (MAKELEVEL > 0
# would make every make print "Entering directory" into captured output).
unset MAKEFLAGS MAKELEVEL MFLAGS MAKEOVERRIDES

srcdir=${TEST_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
builddir=$(cd "${TEST_BUILDDIR:-.}" && pwd)
nprocs=4
work=$(mktemp -d "${TMPDIR:-/tmp}/gasnet-ibv-runtime.XXXXXX")
name=check-runtime-build
keep=${KEEP_RUNTIME_TMP:-0}
ok=0
# shellcheck source=tests/install/common.sh
. "$srcdir/tests/install/common.sh"
trap cleanup EXIT

# 1. The tarball, unpacked and recognised as a GASNet-EX source tree.
tarball=${TEST_DIST_TARBALL:-}
if [ -z "$tarball" ]; then
    [ -f "$builddir/Makefile" ] || fail "no TEST_DIST_TARBALL and no configured build tree in $builddir"
    step "make dist in $builddir"
    run "$work/dist.log" make -C "$builddir" dist
    # shellcheck disable=SC2012 # the newest tarball; names have no blanks
    tarball=$(ls -t "$builddir"/*.tar.gz | head -n 1)
    mv "$tarball" "$work/" && tarball=$work/$(basename "$tarball")
fi
case $tarball in *.tar.gz) ;; *) fail "$tarball: runtimes accept only a .tar.gz (UPC++: --with-gasnet=FILE.tar.gz)" ;; esac
step "unpacking $(basename "$tarball") as UPC++ does"
mkdir -p "$work/bld"
gzip -cd "$tarball" | (cd "$work/bld" && tar xf -)
gex=$work/bld/$(basename "$tarball" .tar.gz)
for f in gasnet_config.h.in gasnetex.h docs/GASNet-EX.txt configure Bootstrap; do
    [ -r "$gex/$f" ] || fail "the tarball's top folder $(basename "$gex") lacks $f (a runtime rejects it)"
done
maj=$(grep -o -m1 'EX_SPEC_VERSION_MAJOR.*' "$gex/docs/GASNet-EX.txt" | cut -d' ' -f2-)
min=$(grep -o -m1 'EX_SPEC_VERSION_MINOR.*' "$gex/docs/GASNet-EX.txt" | cut -d' ' -f2-)
case "$maj.$min" in [0-9]*.[0-9]*) ;; *) fail "docs/GASNet-EX.txt: spec version '$maj.$min' is not numeric" ;; esac
step "  GASNet-EX spec version read as UPC++ reads it: $maj.$min"

# 2. Chapel: ./Bootstrap -T in the source tree.
run "$work/bootstrap.log" "$gex/Bootstrap" -T

# 3. Runtime-style configure in a separate build directory.
gb=$work/gasnet.opt
mkdir -p "$gb"
opts=(--prefix="$work/inst" --enable-seq --enable-par --enable-parsync --enable-pthreads
    --enable-segment-fast --disable-segment-everything --disable-auto-conduit-detect
    --enable-ibv --enable-smp --enable-udp --disable-mpi --disable-ofi --disable-ucx
    --disable-aries --enable-pshm --disable-aligned-segments --disable-hwloc --disable-ibv-odp
    --disable-hugetlbfs --enable-allow-gcc4 --disable-debug --with-max-segsize=0.85/H
    --with-cc="${CC:-cc}" --with-cxx="${CXX:-c++}")
step "configure ${opts[*]}"
(cd "$gb" && "$gex/configure" "${opts[@]}") >"$work/configure.log" 2>&1 ||
    fail "configure with the runtime's options failed" "$work/configure.log"
if grep -q "unrecognized option" "$work/configure.log"; then
    fail "configure did not recognise a GASNet option" "$work/configure.log"
fi
grep -q "conduit options ignored" "$work/configure.log" ||
    fail "configure did not note the ignored conduit options" "$work/configure.log"
if ! grep -qs 'GASNETI_EX_SPEC_VERSION_MAJOR [0-9]' "$gb/gasnet_config.h"; then
    fail "the build directory has no gasnet_config.h with GASNETI_EX_SPEC_VERSION_MAJOR"
fi

# 4. What runtimes read back from the build directory.
conduits=$(make -s -C "$gb" echovar VARNAME=CONDUITS)
[ "$conduits" = 'CONDUITS="ibv"' ] || fail "make echovar VARNAME=CONDUITS printed '$conduits'"
cat >"$work/runtime_config.mak.in" <<'EOF'
PERL = @PERL@
CONDUITS = @CONDUITS@
EXESUFFIX = @EXESUFFIX@
GASNET_CC_FAMILY = @CC_FAMILY@
GASNET_CXX_FAMILY = @CXX_FAMILY@
GASNET_CC_SUBFAMILY = @CC_SUBFAMILY@
GASNET_CXX_SUBFAMILY = @CXX_SUBFAMILY@
TEST_THREADED_FLAGS = @GASNET_THREAD_DEFINES@ @GASNET_THREAD_LIBS@
EOF
run "$work/config-status.log" sh -c "cd '$gb' && ./config.status --file='$work/runtime_config.mak:$work/runtime_config.mak.in'"
if grep -q '@' "$work/runtime_config.mak"; then
    fail "config.status left GASNet @VAR@s unsubstituted" "$work/runtime_config.mak"
fi

# 5. make seq par parsync in ibv-conduit/.
step "make seq par parsync in ibv-conduit/"
start=$(date +%s)
run "$work/make-modes.log" make -C "$gb/ibv-conduit" -j2 seq par parsync
step "  built in $(($(date +%s) - start)) s"
for mode in seq par parsync; do
    mak=$gb/ibv-conduit/ibv-$mode.mak
    [ -r "$mak" ] || fail "make $mode did not write $mak"
    for v in GASNET_CC GASNET_CFLAGS GASNET_OPT_CFLAGS GASNET_MISC_CFLAGS GASNET_CXX \
        GASNET_CXXFLAGS GASNET_OPT_CXXFLAGS GASNET_MISC_CXXFLAGS GASNET_CPPFLAGS \
        GASNET_MISC_CPPFLAGS GASNET_CXXCPPFLAGS GASNET_MISC_CXXCPPFLAGS GASNET_DEFINES \
        GASNET_INCLUDES GASNET_LD GASNET_LDFLAGS GASNET_LIBS GASNET_LD_REQUIRES_MPI; do
        grep -q "^$v *=" "$mak" || fail "$mak does not define $v"
    done
done
[ -x "$gb/ibv-conduit/contrib/gasnetrun_ibv" ] || fail "no ibv-conduit/contrib/gasnetrun_ibv after make seq"

# 6. A C++ client per mode, built from the build tree's fragment, on 4 processes.
# build_client MAK DIR: compile and link runtime-client.cc as UPC++ would.
build_client() {
    mkdir -p "$2"
    cat >"$2/Makefile" <<EOF
include $1
runtime-client: $srcdir/tests/install/runtime-client.cc
	\$(GASNET_CXX) \$(GASNET_CXXCPPFLAGS) \$(GASNET_CXXFLAGS) -std=c++11 -c -o runtime-client.o $srcdir/tests/install/runtime-client.cc
	\$(GASNET_CXX) \$(GASNET_LDFLAGS) -o runtime-client runtime-client.o \$(GASNET_LIBS)
EOF
    run "$2/build.log" make -C "$2"
}
# run_client LAUNCHER DIR MODE
run_client() {
    local out=$2/run.out want
    want=$(echo "$3" | tr '[:lower:]' '[:upper:]')
    timeout --kill-after=5 90 "$1" -n $nprocs "$2/runtime-client" </dev/null >"$out" 2>&1 ||
        fail "$1 -n $nprocs $2/runtime-client failed" "$out"
    grep -q "runtime-client: PASS $want on $nprocs processes" "$out" ||
        fail "runtime-client ($3) did not report PASS" "$out"
}
for mode in seq par parsync; do
    step "C++ client with ibv-conduit/ibv-$mode.mak on $nprocs processes"
    build_client "$gb/ibv-conduit/ibv-$mode.mak" "$work/client-$mode"
    run_client "$gb/ibv-conduit/contrib/gasnetrun_ibv" "$work/client-$mode" $mode
done

# 7. make install prefix=DIR from this build directory.
inst=$work/inst2
step "make install prefix=$inst"
run "$work/install.log" make -C "$gb" install prefix="$inst"
for f in bin/gasnetrun_ibv include/gasnetex.h include/gasnet_config.h include/gasnet_tools.h \
    include/ibv-conduit/ibv-seq.mak include/ibv-conduit/ibv-par.mak \
    include/ibv-conduit/ibv-parsync.mak include/gasnet_tools-seq.mak include/gasnet_tools-par.mak \
    lib/libgasnet-ibv-seq.a lib/libgasnet-ibv-par.a lib/libgasnet-ibv-parsync.a \
    lib/libgasnet_tools-seq.a lib/libgasnet_tools-par.a lib/pkgconfig/gasnet-ibv-seq.pc \
    lib/pkgconfig/gasnet-ibv-par.pc lib/pkgconfig/gasnet-ibv-parsync.pc; do
    [ -e "$inst/$f" ] || fail "make install prefix=$inst did not install $f"
done
if grep -rq "$work/inst\b\|$gb" "$inst/include/ibv-conduit/ibv-par.mak"; then
    fail "the installed ibv-par.mak points at the configure prefix or the build tree" \
        "$inst/include/ibv-conduit/ibv-par.mak"
fi
step "C++ client with the installed ibv-par.mak on $nprocs processes"
build_client "$inst/include/ibv-conduit/ibv-par.mak" "$work/client-installed"
run_client "$inst/bin/gasnetrun_ibv" "$work/client-installed" par

ok=1
step "PASS"
