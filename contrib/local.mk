# contrib/local.mk: installed makefile fragments (ibv-{seq,par}.mak),
# pkg-config files (gasnet-ibv-{seq,par}.pc), and the AM macro generator.
# Both templates are filled at build time so that prefix/libdir/includedir
# are the final install locations.  With --with-ibv-spawner=mpi (mpi the
# default spawner) clients link with the MPI compiler and pull in
# libgasnet-ibv-mpi-spawner (GASNETI_CLIENT_LD / _SPAWNER_LIBS, from
# other/m4/gasneti_mpi.m4); otherwise with plain $(CC) and no MPI.
EXTRA_DIST += contrib/ibv.mak.in contrib/gasnet-ibv.pc.in contrib/gen-am-macros.py
nodist_ibvconduit_HEADERS += include/ibv-conduit/ibv-seq.mak include/ibv-conduit/ibv-par.mak
nodist_pkgconfig_DATA += gasnet-ibv-seq.pc gasnet-ibv-par.pc
CLEANFILES += include/ibv-conduit/ibv-seq.mak include/ibv-conduit/ibv-par.mak \
	gasnet-ibv-seq.pc gasnet-ibv-par.pc
noinst_DATA += include/ibv-conduit/ibv-seq.mak include/ibv-conduit/ibv-par.mak \
	gasnet-ibv-seq.pc gasnet-ibv-par.pc

fill_template = $(SED) -e 's|[@]prefix[@]|$(prefix)|g' -e 's|[@]includedir[@]|$(includedir)|g' \
	-e 's|[@]libdir[@]|$(libdir)|g' -e 's|[@]CC[@]|$(CC)|g' -e 's|[@]CXX[@]|$(CXX)|g' \
	-e 's|[@]VERSION[@]|$(PACKAGE_VERSION)|g' -e 's|[@]DEPLIBS[@]|$(GASNET_DEPLIBS)|g' \
	-e 's|[@]CLIENT_LD[@]|$(GASNETI_CLIENT_LD)|g' \
	-e 's|[@]SPAWNER_LIBS[@]|$(GASNETI_CLIENT_SPAWNER_LIBS)|g'
fill_seq = $(fill_template) -e 's|[@]THREAD[@]|SEQ|g' -e 's|[@]thread[@]|seq|g' -e 's|[@]THREADFLAGS[@]||g'
fill_par = $(fill_template) -e 's|[@]THREAD[@]|PAR|g' -e 's|[@]thread[@]|par|g' -e 's|[@]THREADFLAGS[@]|-pthread|g'

include/ibv-conduit/ibv-seq.mak: $(srcdir)/contrib/ibv.mak.in Makefile
	$(AM_V_GEN)$(MKDIR_P) include/ibv-conduit && $(fill_seq) $(srcdir)/contrib/ibv.mak.in >$@
include/ibv-conduit/ibv-par.mak: $(srcdir)/contrib/ibv.mak.in Makefile
	$(AM_V_GEN)$(MKDIR_P) include/ibv-conduit && $(fill_par) $(srcdir)/contrib/ibv.mak.in >$@
gasnet-ibv-seq.pc: $(srcdir)/contrib/gasnet-ibv.pc.in Makefile
	$(AM_V_GEN)$(fill_seq) $(srcdir)/contrib/gasnet-ibv.pc.in >$@
gasnet-ibv-par.pc: $(srcdir)/contrib/gasnet-ibv.pc.in Makefile
	$(AM_V_GEN)$(fill_par) $(srcdir)/contrib/gasnet-ibv.pc.in >$@

# Regenerates include/gasnet_am_macros.h (committed) from its script.
am-macros:
	cd $(srcdir) && python3 contrib/gen-am-macros.py
.PHONY: am-macros

# The README's first command ends with `make demo`: a real 4-process job.
demo: gasnetrun_ibv$(EXEEXT) tests/integration/demo$(EXEEXT)
	./gasnetrun_ibv -n 4 tests/integration/demo
.PHONY: demo
