#!/usr/bin/env bash
# tests/install/check-runtime-build.sh: build this library from its `make
# dist` tarball step by step as UPC++ builds GASNet (its configure and
# bld/Makefile, bld/gasnet.mak), with Chapel's Bootstrap step, and use it as
# UPC++ does.  check-legion-build.sh does the same for Legion's GASNet helper.
#
#  1. UPC++'s configure: --with-gasnet=TARBALL.tar.gz is unpacked into bld/
#     (`gzip -cd | (cd bld && tar xf -)`, top folder = tarball name without
#     .tar.gz) and checked: gasnet.h and gasnet_config.h.in readable at the
#     top (newer and older UPC++), gasnetex.h (GASNet-EX, not GASNet-1), the
#     spec version EX_SPEC_VERSION_MAJOR/MINOR read from docs/GASNet-EX.txt.
#     The public headers at the top must compile as the installed ones.
#  2. Chapel: `./Bootstrap -T` in the unpacked tree.
#  3. UPC++'s do-gasnet-configure: in bld/gasnet.opt, `configure` with the
#     user's pass-through arguments, then --disable-parsync --enable-seq
#     --enable-par --enable-pthreads --disable-segment-everything --enable-ibv
#     --disable-ibv-rcv-thread --disable-debug --with-cc --with-cflags ''
#     --with-cxx --with-cxxflags '': no warning, no unrecognised option.
#  4. What UPC++ reads back: `make -C bld/gasnet.opt echovar VARNAME=V` for
#     CONDUITS, CC_FAMILY, ... (value between the double quotes), and
#     config.status substituting GASNet's @VAR@s in its own template.
#  5. UPC++'s gasnet-single: `make -C bld/gasnet.opt/ibv-conduit ibv-seq.mak
#     ibv-par.mak` (the fragments alone: no library yet), then `make seq` and
#     `make par` there with MANUAL_CFLAGS/MANUAL_CXXFLAGS (-j2: UPC++'s own
#     make -j passes its jobs down); no PARSYNC, no warning.
#  6. For SEQ and PAR, a libupcxx stand-in: runtime-client.cc (uses the
#     conduit library) and runtime-lite.cc (GASNETT_LITE_MODE, GASNET_SEQ/PAR
#     undefined: UPC++'s watermark.cpp) compiled with $(GASNET_CXX)
#     $(GASNET_CXXCPPFLAGS) $(GASNET_CXXFLAGS) -std=c++11, archived with
#     `ar rcs`, the program linked as upcxx-meta says: $(GASNET_CXX)
#     $(GASNET_LDFLAGS) ... -lruntime $(GASNET_LIBS); run on 4 processes with
#     ibv-conduit/contrib/gasnetrun_ibv (where upcxx-run looks for it).
#  7. UPC++'s install: `make -C bld/gasnet.opt all`, `make install
#     prefix=PREFIX/gasnet.opt`: SEQ and PAR installed, PARSYNC not
#     (--disable-parsync honoured); the PAR program from the installed
#     ibv-par.mak runs.
# Prints "check-runtime-build: PASS" or the failing step with its log.
# Run by the test harness (tests/integration/manifest.d/build.manifest).
# Environment: TEST_SRCDIR, TEST_BUILDDIR (default: the current directory),
# TEST_DIST_TARBALL, KEEP_RUNTIME_TMP=1 keeps the temporary directory.
set -euo pipefail

srcdir=${TEST_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
# shellcheck source=tests/install/common.sh
. "$srcdir/tests/install/common.sh"
runtime_setup check-runtime-build runtime

# 1. UPC++'s configure: unpack --with-gasnet=FILE.tar.gz and recognise it.
GASNET=$tarball
expr "$GASNET" : '.*\.tar\.gz' >/dev/null || fail "$GASNET: UPC++ takes only a .tar.gz"
mkdir -p "$work/bld"
gex_dir=$work/bld/$(basename "$GASNET" .tar.gz)
version=${gex_dir##*-}
step "unpacking $(basename "$GASNET") as UPC++ does"
gzip -cd "$GASNET" | (cd "$work/bld" && tar xf -)
for f in gasnet.h gasnet_config.h.in; do
    [ -r "$gex_dir/$f" ] || fail "GASNET='$GASNET' does not appear to contain GASNet (no $f at the top)"
done
[ -r "$gex_dir/gasnetex.h" ] || fail "GASNET='$GASNET' does not contain GASNet-EX (no gasnetex.h)"
have_maj=$(grep -o -m1 'EX_SPEC_VERSION_MAJOR.*' "$gex_dir/docs/GASNet-EX.txt" | cut -d' ' -f2-)
have_min=$(grep -o -m1 'EX_SPEC_VERSION_MINOR.*' "$gex_dir/docs/GASNet-EX.txt" | cut -d' ' -f2-)
# UPC++ 2020.11 requires specification 0.12 or newer.
[[ ($have_maj -gt 0) || (($have_maj -eq 0) && ($have_min -ge 12)) ]] ||
    fail "docs/GASNet-EX.txt says specification $have_maj.$have_min, older than 0.12"
step "  specification version read as UPC++ reads it: $have_maj.$have_min"

# 2. Chapel: ./Bootstrap -T in the source tree.
run "$work/bootstrap.log" sh -c "cd '$gex_dir' && ./Bootstrap -T"

# 3. UPC++'s do-gasnet-configure, in bld/gasnet.opt.
cc=${CC:-cc} cxx=${CXX:-c++}
GASNET_CONFIGURE_ARGS="--with-ibv-max-hcas=2 --enable-smp --enable-udp --disable-hwloc --disable-ibv-odp"
gb=$work/bld/gasnet.opt
cmd="$gex_dir/configure $GASNET_CONFIGURE_ARGS --disable-parsync --enable-seq --enable-par"
cmd="$cmd --enable-pthreads --disable-segment-everything --enable-ibv --disable-ibv-rcv-thread"
cmd="$cmd --disable-debug --with-cc='$cc' --with-cflags='' --with-cxx='$cxx' --with-cxxflags=''"
step "$cmd"
[ ! -f "$gb/gasnet_config.h" ] || fail "$gb is configured already"
(mkdir -p "$gb" && cd "$gb" && eval "$cmd") >"$work/configure.log" 2>&1 ||
    fail "configure with UPC++'s options failed" "$work/configure.log"
no_warnings "$work/configure.log"
[ -f "$gb/gasnet_config.h" ] || fail "no gasnet_config.h in $gb (UPC++ tests for it)"
grep -q 'GASNETI_EX_SPEC_VERSION_MAJOR [0-9]' "$gb/gasnet_config.h" ||
    fail "$gb/gasnet_config.h has no GASNETI_EX_SPEC_VERSION_MAJOR"
# The headers at the top of the source tree (first on the path here) are the
# installed ones, with the build tree's include flags.
cat >"$work/top.c" <<'EOF'
#include <gasnet.h>
#include <gasnet_coll.h>
#include <gasnet_mk.h>
#include <gasnet_portable_platform.h>
#include <gasnet_ratomic.h>
#include <gasnet_tools.h>
#include <gasnet_vis.h>
int main(void) { return GEX_SPEC_VERSION_MAJOR + GASNETT_MAX_THREADS; }
EOF
run "$work/top.log" "$cc" -fsyntax-only -DGASNET_PAR -I"$gex_dir" -I"$gex_dir/other" -I"$gb" \
    -I"$gex_dir/include" -I"$gb/include" -I"$gex_dir/include/ibv-conduit" "$work/top.c"

# 4. What UPC++ reads back (bld/gasnet.mak's GASNET_VAR, run from the make
#    that bin/upcxx starts with -s, whose MAKEFLAGS it passes on).
gasnet_var() { MAKEFLAGS=s make -C "$gb" echovar VARNAME="$1" | cut -d'"' -f2; }
[ "$(gasnet_var CONDUITS)" = ibv ] || fail "echovar VARNAME=CONDUITS printed '$(gasnet_var CONDUITS)'"
for v in CC_FAMILY CXX_FAMILY CC_SUBFAMILY CXX_SUBFAMILY; do
    [ -n "$(gasnet_var $v)" ] || fail "echovar VARNAME=$v printed nothing"
done
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

# 5. UPC++'s gasnet-single: the fragments, then make seq and make par.
step "make -C ibv-conduit ibv-seq.mak ibv-par.mak"
run "$work/make-mak.log" make -C "$gb/ibv-conduit" ibv-seq.mak ibv-par.mak
for mode in seq par; do
    [ -r "$gb/ibv-conduit/ibv-$mode.mak" ] || fail "make ibv-$mode.mak did not write it"
    [ ! -e "$gb/libgasnet-ibv-$mode.a" ] || fail "make ibv-$mode.mak built the library too"
done
start=$(date +%s)
for mode in seq par; do
    step "make -C ibv-conduit $mode"
    run "$work/make-$mode.log" make -j2 -C "$gb/ibv-conduit" $mode \
        MANUAL_CFLAGS=-fdiagnostics-color=never MANUAL_CXXFLAGS=-fdiagnostics-color=never
done
step "  built in $(($(date +%s) - start)) s"
no_warnings "$work/make-mak.log" "$work/make-seq.log" "$work/make-par.log"
for mode in seq par; do
    for v in GASNET_CC GASNET_CFLAGS GASNET_OPT_CFLAGS GASNET_MISC_CFLAGS GASNET_CXX \
        GASNET_CXXFLAGS GASNET_OPT_CXXFLAGS GASNET_MISC_CXXFLAGS GASNET_CPPFLAGS \
        GASNET_MISC_CPPFLAGS GASNET_CXXCPPFLAGS GASNET_MISC_CXXCPPFLAGS GASNET_DEFINES \
        GASNET_INCLUDES GASNET_LD GASNET_LDFLAGS GASNET_LIBS GASNET_LD_REQUIRES_MPI; do
        grep -q "^$v *=" "$gb/ibv-conduit/ibv-$mode.mak" || fail "ibv-$mode.mak does not define $v"
    done
done
[ ! -e "$gb/libgasnet-ibv-parsync.a" ] || fail "--disable-parsync: the PARSYNC library was built"
[ -x "$gb/ibv-conduit/contrib/gasnetrun_ibv" ] || fail "no ibv-conduit/contrib/gasnetrun_ibv after make seq"

# 6. A libupcxx stand-in per backend, an application linked as upcxx-meta says.
# build_client MAK DIR: archive runtime-client.o and runtime-lite.o, link.
build_client() {
    mkdir -p "$2"
    cat >"$2/Makefile" <<EOF
include $1
COMPILE = \$(GASNET_CXX) \$(GASNET_CXXCPPFLAGS) \$(GASNET_CXXFLAGS) -std=c++11
runtime-client: libruntime.a
	\$(GASNET_CXX) \$(GASNET_LDFLAGS) -o runtime-client -L. -lruntime \$(GASNET_LIBS)
libruntime.a: runtime-client.o runtime-lite.o
	ar rcs libruntime.a runtime-client.o runtime-lite.o
%.o: $srcdir/tests/install/%.cc
	\$(COMPILE) -c -o \$@ \$<
EOF
    run "$2/build.log" make -C "$2"
    if nm -u "$2/runtime-lite.o" | grep -Eq 'idiotcheck_(SEQ|PAR|PARSYNC)$|THREADMODEL'; then
        fail "the tools-lite object references a thread-model link-check symbol" "$2/build.log"
    fi
    grep -qaF "\$RuntimeLiteGASNetVersion: $version \$" "$2/runtime-client" ||
        fail "$2/runtime-client lacks the tools-lite unit's ident string"
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
for mode in seq par; do
    step "C++ client with ibv-conduit/ibv-$mode.mak (and a tools-lite unit) on $nprocs processes"
    build_client "$gb/ibv-conduit/ibv-$mode.mak" "$work/client-$mode"
    run_client "$gb/ibv-conduit/contrib/gasnetrun_ibv" "$work/client-$mode" $mode
done

# 7. UPC++'s do-gasnet-install-opt.
inst=$work/upcxx/gasnet.opt
step "make -C gasnet.opt all; make -C gasnet.opt install prefix=$inst"
run "$work/all.log" make -C "$gb" all
run "$work/install.log" make -C "$gb" install prefix="$inst"
no_warnings "$work/all.log" "$work/install.log"
for f in bin/gasnetrun_ibv include/gasnet.h include/gasnetex.h include/gasnet_config.h \
    include/ibv-conduit/ibv-seq.mak include/ibv-conduit/ibv-par.mak include/gasnet_tools-seq.mak \
    include/gasnet_tools-par.mak lib/libgasnet-ibv-seq.a lib/libgasnet-ibv-par.a \
    lib/libgasnet_tools-seq.a lib/libgasnet_tools-par.a lib/pkgconfig/gasnet-ibv-par.pc; do
    [ -e "$inst/$f" ] || fail "make install prefix=$inst did not install $f"
done
for f in lib/libgasnet-ibv-parsync.a include/ibv-conduit/ibv-parsync.mak \
    lib/pkgconfig/gasnet-ibv-parsync.pc; do
    [ ! -e "$inst/$f" ] || fail "--disable-parsync: $f was installed"
done
if grep -q "$gb" "$inst/include/ibv-conduit/ibv-par.mak"; then
    fail "the installed ibv-par.mak points into the build tree" "$inst/include/ibv-conduit/ibv-par.mak"
fi
step "C++ client with the installed ibv-par.mak on $nprocs processes"
build_client "$inst/include/ibv-conduit/ibv-par.mak" "$work/client-installed"
run_client "$inst/bin/gasnetrun_ibv" "$work/client-installed" par

ok=1
step "PASS"
