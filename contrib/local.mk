# contrib/local.mk: makefile fragments and pkg-config files, as GASNet
# installs them, and the AM macro generator.
#
#   conduit: ibv-{seq,par,parsync}.mak  gasnet-ibv-{seq,par,parsync}.pc
#   tools:   gasnet_tools-{seq,par}.mak gasnet_tools-{seq,par}.pc
#
# Each fragment exists twice: the build tree's (ibv-conduit/ibv-MODE.mak and
# gasnet_tools-MODE.mak at the top of the build directory, where runtimes
# that build GASNet include them; they point into the build tree) and the
# installed one, written by `make install` with the install directories of
# that make (so `make install prefix=DIR` is right).  The .pc files are
# made from the installed .mak (contrib/echovars.mk), so both agree.  Conduit
# fragments for the thread modes configure enabled (--disable-seq, ...);
# GASNET_CC, GASNET_CXX and GASNET_LD carry the user's CFLAGS / CXXFLAGS
# (--with-cflags=-fPIC: other/m4/gasneti_flags.m4).  With MPI found at configure,
# clients link with the MPI compiler and the mpi spawner library
# (other/m4/gasneti_mpi.m4); otherwise with $(CC) and no MPI.
EXTRA_DIST += contrib/ibv.mak.in contrib/gasnet-ibv.pc.in contrib/gen-am-macros.py \
	contrib/gasnet_tools.mak.in contrib/gasnet_tools.pc.in contrib/echovars.mk \
	contrib/conduit-Makefile.in

GASNETI_CONDUIT_MODES = $(GASNETI_THREAD_MODES)
GASNETI_TOOLS_MODES = seq par
if HAVE_MPI
GASNETI_MPI_SPAWNER_LIB = libgasnet-ibv-mpi-spawner.a
endif

# Values common to every fragment; the caller adds the directory ones.
fill_common = $(SED) -e 's|[@]CC[@]|$(strip $(CC) $(GASNETI_USER_CFLAGS))|g' \
	-e 's|[@]CXX[@]|$(strip $(CXX) $(GASNETI_USER_CXXFLAGS))|g' \
	-e 's|[@]USER_LDFLAGS[@]|$(GASNETI_USER_LDFLAGS)|g' \
	-e 's|[@]CLIENT_LDFLAGS[@]|$(GASNETI_CLIENT_LDFLAGS)|g' \
	-e 's|[@]VERSION[@]|$(PACKAGE_VERSION)|g' -e 's|[@]DEPLIBS[@]|$(GASNET_DEPLIBS)|g' \
	-e 's|[@]CLIENT_LD[@]|$(strip $(GASNETI_CLIENT_LD))|g' \
	-e 's|[@]SPAWNER_LIBS[@]|$(GASNETI_CLIENT_SPAWNER_LIBS)|g' \
	-e 's|[@]LD_REQUIRES_MPI[@]|$(GASNETI_LD_REQUIRES_MPI)|g' \
	-e 's|[@]MPI_LINK_LIBS[@]|$(GASNETI_MPI_LINK_LIBS)|g' \
	-e 's|[@]OPT_CFLAGS[@]|$(GASNETI_CLIENT_OPT_CFLAGS)|g' \
	-e 's|[@]OPT_CXXFLAGS[@]|$(GASNETI_CLIENT_OPT_CXXFLAGS)|g' \
	-e 's|[@]THREAD_DEFINES[@]|$(GASNET_THREAD_DEFINES)|g' \
	-e 's|[@]THREAD_LIBS[@]|$(GASNET_THREAD_LIBS)|g' \
	-e 's|[@]SPAWNER_DEFAULT[@]|$(GASNETI_DEFAULT_SPAWNER)|g' \
	-e 's|[@]SPAWNER_MPI[@]|$(GASNETI_LD_REQUIRES_MPI)|g' \
	-e 's|[@]SPAWNER_PMI[@]|$(GASNETI_HAVE_PMIX_01)|g' \
	-e 's|[@]TOOLS_DEBUGFLAGS[@]|$(GASNETI_TOOLS_DEBUGFLAGS)|g' \
	-e 's|[@]TOOLS_DEPLIBS[@]|$(LIBS) -lm|g'
# fill_mode MODE: the thread-mode placeholders.
fill_mode = -e "s|[@]thread[@]|$$m|g" -e "s|[@]THREAD[@]|`echo $$m | tr a-z A-Z`|g" \
	-e "s|[@]MISC_CFLAGS[@]|`test $$m = seq || echo -pthread`|g"
if HAVE_PMIX
GASNETI_HAVE_PMIX_01 = 1
else
GASNETI_HAVE_PMIX_01 = 0
endif
if BUILD_DEBUG
GASNETI_TOOLS_DEBUGFLAGS =
else
GASNETI_TOOLS_DEBUGFLAGS = -DNDEBUG
endif

# Directories in the build tree and in the installation.
fill_build_dirs = -e 's|[@]prefix[@]|$(abs_top_builddir)|g' \
	-e 's|[@]INCLUDES[@]|-I$(abs_top_srcdir)/include -I$(abs_top_builddir)/include -I$(abs_top_srcdir)/include/ibv-conduit|g' \
	-e 's|[@]LIBDIRS[@]|-L$(abs_top_builddir)|g' \
	-e 's|[@]TOOLS_INCLUDES[@]|-I$(abs_top_srcdir)/include -I$(abs_top_builddir)/include|g' \
	-e 's|[@]TOOLS_LIBDIR[@]|$(abs_top_builddir)|g'
fill_install_dirs = -e 's|[@]prefix[@]|$(prefix)|g' \
	-e 's|[@]INCLUDES[@]|-I$(includedir) -I$(includedir)/ibv-conduit|g' \
	-e 's|[@]LIBDIRS[@]|-L$(libdir)|g' \
	-e 's|[@]TOOLS_INCLUDES[@]|-I$(includedir)|g' \
	-e 's|[@]TOOLS_LIBDIR[@]|$(libdir)|g'

# Variables the .pc files carry (GASNet's list, plus the aliases).
GASNETI_PC_VARS = GASNET_CC GASNET_OPT_CFLAGS GASNET_MISC_CFLAGS GASNET_MISC_CPPFLAGS \
	GASNET_DEFINES GASNET_INCLUDES GASNET_CXX GASNET_OPT_CXXFLAGS GASNET_MISC_CXXFLAGS \
	GASNET_MISC_CXXCPPFLAGS GASNET_LD GASNET_LDFLAGS GASNET_LIBS GASNET_LD_REQUIRES_MPI \
	GASNET_CFLAGS GASNET_CPPFLAGS GASNET_CXXFLAGS GASNET_CXXCPPFLAGS
GASNETI_TOOLS_PC_VARS = GASNETTOOLS_CC GASNETTOOLS_CPPFLAGS GASNETTOOLS_CFLAGS \
	GASNETTOOLS_CXX GASNETTOOLS_CXXFLAGS GASNETTOOLS_LD GASNETTOOLS_LDFLAGS GASNETTOOLS_LIBS

# Build-tree fragments (`make`, and `make seq|par|parsync` in ibv-conduit/).
GASNETI_BUILD_FRAGMENTS = $(GASNETI_CONDUIT_MODES:%=ibv-conduit/ibv-%.mak) \
	$(GASNETI_TOOLS_MODES:%=gasnet_tools-%.mak)
noinst_DATA += $(GASNETI_BUILD_FRAGMENTS)
CLEANFILES += ibv-conduit/ibv-*.mak gasnet_tools-*.mak ibv-conduit/contrib/gasnetrun_ibv$(EXEEXT)
ibv-conduit/ibv-%.mak: $(srcdir)/contrib/ibv.mak.in Makefile
	$(AM_V_GEN)$(MKDIR_P) ibv-conduit && m=$*; \
	$(fill_common) $(fill_build_dirs) $(fill_mode) $(srcdir)/contrib/ibv.mak.in >$@
gasnet_tools-%.mak: $(srcdir)/contrib/gasnet_tools.mak.in Makefile
	$(AM_V_GEN)m=$*; $(fill_common) $(fill_build_dirs) $(fill_mode) \
	    $(srcdir)/contrib/gasnet_tools.mak.in >$@

# Installed fragments and .pc files, written with this make's directories.
install-data-local: install-fragments
install-fragments:
	$(MKDIR_P) '$(DESTDIR)$(includedir)/ibv-conduit' '$(DESTDIR)$(pkgconfigdir)'
	@for m in $(GASNETI_CONDUIT_MODES); do \
	  mak='$(DESTDIR)$(includedir)'/ibv-conduit/ibv-$$m.mak; \
	  pc='$(DESTDIR)$(pkgconfigdir)'/gasnet-ibv-$$m.pc; \
	  echo " writing $$mak $$pc"; \
	  $(fill_common) $(fill_install_dirs) $(fill_mode) $(srcdir)/contrib/ibv.mak.in >"$$mak" && \
	  $(MAKE) -s --no-print-directory -f $(srcdir)/contrib/echovars.mk FRAGMENT="$$mak" \
	      VARS='$(GASNETI_PC_VARS)' echovars >"$$pc" && \
	  $(fill_common) $(fill_mode) $(srcdir)/contrib/gasnet-ibv.pc.in >>"$$pc" || exit 1; \
	done
	@for m in $(GASNETI_TOOLS_MODES); do \
	  mak='$(DESTDIR)$(includedir)'/gasnet_tools-$$m.mak; \
	  pc='$(DESTDIR)$(pkgconfigdir)'/gasnet_tools-$$m.pc; \
	  echo " writing $$mak $$pc"; \
	  $(fill_common) $(fill_install_dirs) $(fill_mode) $(srcdir)/contrib/gasnet_tools.mak.in >"$$mak" && \
	  $(MAKE) -s --no-print-directory -f $(srcdir)/contrib/echovars.mk FRAGMENT="$$mak" \
	      VARS='$(GASNETI_TOOLS_PC_VARS)' echovars >"$$pc" && \
	  $(fill_common) $(fill_mode) $(srcdir)/contrib/gasnet_tools.pc.in >>"$$pc" || exit 1; \
	done
uninstall-local:
	rm -f '$(DESTDIR)$(includedir)'/ibv-conduit/ibv-*.mak '$(DESTDIR)$(pkgconfigdir)'/gasnet-ibv-*.pc \
	    '$(DESTDIR)$(includedir)'/gasnet_tools-*.mak '$(DESTDIR)$(pkgconfigdir)'/gasnet_tools-*.pc
.PHONY: install-fragments

# GASNet's build-tree interface, for runtimes that build GASNet from source:
# `make echovar VARNAME=CONDUITS` at the top, and ibv-conduit/Makefile
# (contrib/conduit-Makefile.in) whose `make seq|par|parsync` runs these.
echovar:
	@echo $(VARNAME)=\"$($(VARNAME))\"
conduit-seq conduit-par conduit-parsync: conduit-%: libgasnet-ibv-%.a ibv-conduit/ibv-%.mak \
	    gasnet_tools-seq.mak gasnet_tools-par.mak libgasnet_tools-seq.a libgasnet_tools-par.a \
	    gasnetrun_ibv$(EXEEXT) $(GASNETI_MPI_SPAWNER_LIB)
	@$(MKDIR_P) ibv-conduit/contrib && ln -sf ../../gasnetrun_ibv$(EXEEXT) ibv-conduit/contrib/
.PHONY: echovar conduit-seq conduit-par conduit-parsync

# Regenerates include/gasnet_am_macros.h (committed) from its script.
am-macros:
	cd $(srcdir) && python3 contrib/gen-am-macros.py
.PHONY: am-macros

# The README's first command ends with `make demo`: a real 4-process job.
demo: gasnetrun_ibv$(EXEEXT) tests/integration/demo$(EXEEXT)
	./gasnetrun_ibv -n 4 tests/integration/demo
.PHONY: demo
