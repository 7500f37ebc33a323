#!/usr/bin/env bash
# tests/install/check-legion-build.sh: build this library from its `make
# dist` tarball as Legion's GASNet helper (StanfordLegion/gasnet: Makefile
# and configs/config.ibv.release) builds GASNet, and use it as Realm does.
#
#  1. The tarball unpacked, `configure --prefix=PREFIX --with-cflags=-fPIC
#     --with-mpi-cflags=-fPIC --with-cxxflags=-fPIC` followed by the lines
#     of config.ibv.release, in a build directory of its own: no warning,
#     no unrecognised option.
#  2. `make install` (no warning): the PAR library only (--disable-seq --disable-parsync
#     honoured; the tools libraries and the mpi spawner library are what
#     GASNet installs too), ibv-par.mak's compilers carry -fPIC as GASNet's
#     do, and no installed library object has a relocation a shared object
#     cannot hold (x86-64: absolute 32-bit addresses, static-model TLS).
#  3. Realm's shape: tests/install/legion-wrapper.c compiled -fPIC with the
#     installed ibv-par.mak and linked -shared (with -z text) against
#     libgasnet-ibv-par.a; tests/install/legion-host.c, built without
#     GASNet, loads it with dlopen; 4 processes under the installed
#     gasnetrun_ibv.
# Prints "check-legion-build: PASS" or the failing step with its log.
# Run by the test harness (tests/integration/manifest.d/build.manifest).
# Environment: TEST_SRCDIR, TEST_BUILDDIR (default: the current directory),
# TEST_DIST_TARBALL, KEEP_RUNTIME_TMP=1 keeps the temporary directory.
set -euo pipefail

srcdir=${TEST_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
# shellcheck source=tests/install/common.sh
. "$srcdir/tests/install/common.sh"
runtime_setup check-legion-build legion

# 1. Legion's configure line.
step "unpacking $(basename "$tarball")"
mkdir -p "$work/src"
tar -zxf "$tarball" --strip-components=1 -C "$work/src"
prefix=$work/release
cat >"$work/config.ibv.release" <<'EOF'
--enable-segment-fast
--enable-par
--disable-seq
--disable-parsync
--enable-pthreads

--disable-auto-conduit-detect
--enable-ibv

--enable-pshm
--enable-mpi-compat

--with-ibv-max-hcas=4
--enable-kind-cuda-uva=probe
EOF
mkdir -p "$work/build"
step "configure --prefix=$prefix --with-cflags=-fPIC --with-mpi-cflags=-fPIC --with-cxxflags=-fPIC" \
    "$(tr '\n' ' ' <"$work/config.ibv.release")"
# shellcheck disable=SC2046 # the config file is a word list, as Legion uses it
(cd "$work/build" && "$work/src/configure" --prefix="$prefix" --with-cflags="-fPIC" \
    --with-mpi-cflags="-fPIC" --with-cxxflags="-fPIC" $(cat "$work/config.ibv.release")) \
    >"$work/configure.log" 2>&1 || fail "configure with Legion's options failed" "$work/configure.log"
no_warnings "$work/configure.log"

# 2. make install (-j2: Legion's own make -j passes its jobs down): what is
#    installed, and how.
step "make install"
start=$(date +%s)
run "$work/install.log" make -j2 -C "$work/build" install
no_warnings "$work/install.log"
step "  built and installed in $(($(date +%s) - start)) s"
[ -e "$prefix/lib/libgasnet-ibv-par.a" ] || fail "libgasnet-ibv-par.a was not installed"
for mode in seq parsync; do
    [ ! -e "$work/build/libgasnet-ibv-$mode.a" ] || fail "--disable-$mode: make built libgasnet-ibv-$mode.a"
done
for f in lib/libgasnet-ibv-seq.a lib/libgasnet-ibv-parsync.a include/ibv-conduit/ibv-seq.mak \
    include/ibv-conduit/ibv-parsync.mak lib/pkgconfig/gasnet-ibv-seq.pc \
    lib/pkgconfig/gasnet-ibv-parsync.pc; do
    [ ! -e "$prefix/$f" ] || fail "--disable-seq --disable-parsync: $f was installed"
done
for lib in "$prefix"/lib/*.a; do
    case $(basename "$lib") in
    libgasnet-ibv-par.a | libgasnet_tools-seq.a | libgasnet_tools-par.a | libgasnet-ibv-mpi-spawner.a) ;;
    *) fail "a library beyond the PAR one and what GASNet installs too: $lib" ;;
    esac
done
mak=$prefix/include/ibv-conduit/ibv-par.mak
for v in GASNET_CC GASNET_CXX; do
    grep -q "^$v = .* -fPIC" "$mak" || fail "$v in ibv-par.mak lacks --with-*flags' -fPIC" "$mak"
done
if [ "$(uname -m)" = x86_64 ]; then
    # Relocations outside debug sections that a shared object cannot take, or
    # that make a dlopen'ed one need static TLS.
    for lib in "$prefix"/lib/*.a; do
        bad=$(readelf -rW "$lib" | awk '/^Relocation section/ { dbg = ($3 ~ /debug/) }
            !dbg && $3 ~ /^R_X86_64_(32|32S|TPOFF32|TPOFF64|GOTTPOFF)$/ { n++ } END { print n + 0 }')
        [ "$bad" = 0 ] || fail "$(basename "$lib"): $bad non-PIC relocations after --with-cflags=-fPIC"
    done
    step "  no non-PIC relocation in $(cd "$prefix/lib" && echo ./*.a)"
else
    step "  relocation check skipped on $(uname -m) (the -shared link below still checks)"
fi

# 3. A shared module with the PAR library, loaded by a GASNet-free host.
step "shared module (-fPIC object + libgasnet-ibv-par.a, -shared) loaded by dlopen"
mkdir -p "$work/realm"
cat >"$work/realm/Makefile" <<EOF
include $mak
all: libwrapper.so legion-host
libwrapper.so: $srcdir/tests/install/legion-wrapper.c
	\$(GASNET_CC) \$(GASNET_CPPFLAGS) \$(GASNET_CFLAGS) -fPIC -c -o wrapper.o $srcdir/tests/install/legion-wrapper.c
	\$(GASNET_LD) -shared -Wl,-z,text -o libwrapper.so wrapper.o \$(GASNET_LDFLAGS) \$(GASNET_LIBS)
legion-host: $srcdir/tests/install/legion-host.c
	${CC:-cc} -o legion-host $srcdir/tests/install/legion-host.c -ldl
EOF
run "$work/realm/build.log" make -C "$work/realm"
out=$work/realm/run.out
timeout --kill-after=5 90 "$prefix/bin/gasnetrun_ibv" -n $nprocs "$work/realm/legion-host" \
    "$work/realm/libwrapper.so" </dev/null >"$out" 2>&1 ||
    fail "gasnetrun_ibv -n $nprocs legion-host libwrapper.so failed" "$out"
grep -q "legion-wrapper: PASS PAR on $nprocs processes" "$out" || fail "legion-wrapper did not report PASS" "$out"

ok=1
step "PASS"
