# bootstrap/local.mk: job setup (the bootstrap ops table and its plugins) and
# the launcher gasnetrun_ibv (contrib/launcher), which is the other end of
# the local and ssh plugins.  Design: bootstrap/README.
libgasnet_sources += \
	bootstrap/bootstrap.c \
	bootstrap/select.c \
	bootstrap/local/proto.c \
	bootstrap/local/channel.c \
	bootstrap/local/local.c \
	bootstrap/relay.c
noinst_HEADERS += \
	bootstrap/bootstrap.h \
	bootstrap/bootstrap_private.h \
	bootstrap/local/proto.h \
	bootstrap/local/channel.h \
	contrib/launcher/launcher.h \
	contrib/launcher/setup.h \
	tests/unit/test-bootstrap.h
EXTRA_DIST += bootstrap/README bootstrap/mpi/mpi.c bootstrap/pmi/pmi.c

# pmi plugin: libpmix is a plain C library, so the plugin is part of the
# main libraries and every client links libpmix (GASNET_DEPLIBS also feeds
# the installed .mak/.pc files).
if HAVE_PMIX
libgasnet_sources += bootstrap/pmi/pmi.c
endif
LIB_CPPFLAGS += $(PMIX_CPPFLAGS)
GASNET_DEPLIBS += $(PMIX_LIBS)

# mpi plugin: compiled with $(MPICC) into its own library, so that the main
# libraries never depend on MPI.  A program that wants the mpi spawner links
# with $(MPICC) and adds
#   -Wl,-u,gasneti_bootstrap_mpi -lgasnet-ibv-mpi-spawner
# before the main library (bootstrap/README, "The mpi plugin and MPI
# linkage").  One library serves SEQ and PAR clients: the plugin uses only
# thread-model-neutral internals.  GASNet's MPI_CFLAGS (--with-mpi-cflags),
# when given, replace CFLAGS for this object (other/m4/gasneti_flags.m4).
if HAVE_MPI
lib_LIBRARIES += libgasnet-ibv-mpi-spawner.a
libgasnet_ibv_mpi_spawner_a_SOURCES =
libgasnet_ibv_mpi_spawner_a_LIBADD = bootstrap/mpi/mpi-spawner.$(OBJEXT)
libgasnet_ibv_mpi_spawner_a_DEPENDENCIES = bootstrap/mpi/mpi-spawner.$(OBJEXT)
BOOTSTRAP_MPI_DEPS = $(srcdir)/bootstrap/mpi/mpi.c $(srcdir)/bootstrap/bootstrap.h \
	$(srcdir)/bootstrap/bootstrap_private.h $(srcdir)/other/log/log.h \
	$(srcdir)/other/param/param.h $(srcdir)/other/param/params.def \
	$(srcdir)/other/param/params-spawn.def
bootstrap/mpi/mpi-spawner.$(OBJEXT): $(BOOTSTRAP_MPI_DEPS)
	@$(MKDIR_P) bootstrap/mpi
	$(AM_V_CC)$(MPICC) $(LIB_CPPFLAGS) -DGASNET_SEQ $(CPPFLAGS) $(LIB_CFLAGS) $(GASNETI_MPI_CFLAGS) \
	    -c -o $@ $(srcdir)/bootstrap/mpi/mpi.c
CLEANFILES += bootstrap/mpi/mpi-spawner.$(OBJEXT)
endif

# The launcher takes the frame codec, parameters, logging and the shared
# bootstrap services from a conduit library (only those objects are linked
# in: it never references the plugin table, so no plugin library is needed):
# the SEQ one, or the first thread mode configure enabled (--disable-seq),
# compiled for that mode so that both agree on the headers' types.
if BUILD_SEQ
GASNETI_LAUNCHER_MODE = -DGASNET_SEQ
GASNETI_LAUNCHER_LIB = libgasnet-ibv-seq.a
else
if BUILD_PAR
GASNETI_LAUNCHER_MODE = -DGASNET_PAR
GASNETI_LAUNCHER_LIB = libgasnet-ibv-par.a
else
GASNETI_LAUNCHER_MODE = -DGASNET_PARSYNC
GASNETI_LAUNCHER_LIB = libgasnet-ibv-parsync.a
endif
endif
bin_PROGRAMS += gasnetrun_ibv
gasnetrun_ibv_SOURCES = \
	contrib/launcher/main.c \
	contrib/launcher/conn.c \
	contrib/launcher/spawn_local.c \
	contrib/launcher/spawn_ssh.c \
	contrib/launcher/spawn_mpi.c \
	contrib/launcher/alloc.c \
	contrib/launcher/exit_relay.c \
	contrib/launcher/link.c \
	contrib/launcher/node.c \
	contrib/launcher/setup.c \
	contrib/launcher/hub.c \
	contrib/launcher/hub_coll.c
gasnetrun_ibv_CPPFLAGS = $(AM_CPPFLAGS) $(GASNETI_LAUNCHER_MODE) -D_GNU_SOURCE
gasnetrun_ibv_CFLAGS = $(GASNETI_WARN_CFLAGS)
gasnetrun_ibv_LDADD = $(GASNETI_LAUNCHER_LIB) $(LIBS)

# The launcher built with AddressSanitizer (leak detection on) for
# tests/spawn/launcher-leaks.sh: every allocation freed at exit.
check_PROGRAMS += tests/spawn/gasnetrun_ibv-asan
tests_spawn_gasnetrun_ibv_asan_SOURCES = $(gasnetrun_ibv_SOURCES)
tests_spawn_gasnetrun_ibv_asan_CPPFLAGS = $(gasnetrun_ibv_CPPFLAGS)
tests_spawn_gasnetrun_ibv_asan_CFLAGS = $(GASNETI_WARN_CFLAGS) -fsanitize=address -fno-omit-frame-pointer
tests_spawn_gasnetrun_ibv_asan_LDFLAGS = -fsanitize=address
tests_spawn_gasnetrun_ibv_asan_LDADD = $(GASNETI_LAUNCHER_LIB) $(LIBS)

# A rank program for the end-to-end test: bootstrap + param + log only.
check_PROGRAMS += tests/unit/bootstrap-child
tests_unit_bootstrap_child_SOURCES = tests/unit/bootstrap-child.c
tests_unit_bootstrap_child_CPPFLAGS = $(TEST_SEQ_CPPFLAGS) -D_GNU_SOURCE
tests_unit_bootstrap_child_CFLAGS = $(GASNETI_WARN_CFLAGS)
tests_unit_bootstrap_child_LDADD = libgasnet-ibv-seq.a $(PMIX_LIBS) $(LIBS)

# Frame codec, host ids and selection in-process; then real jobs through
# gasnetrun_ibv running bootstrap-child (collectives, exit codes, signals).
UNIT_TESTS += tests/unit/test-bootstrap
tests_unit_test_bootstrap_SOURCES = tests/unit/test-bootstrap.c tests/unit/test-bootstrap-jobs.c
tests_unit_test_bootstrap_CPPFLAGS = $(TEST_SEQ_CPPFLAGS) -D_GNU_SOURCE
tests_unit_test_bootstrap_CFLAGS = $(GASNETI_WARN_CFLAGS)
tests_unit_test_bootstrap_LDADD = libgasnet-ibv-seq.a $(PMIX_LIBS) $(LIBS)
EXTRA_tests_unit_test_bootstrap_DEPENDENCIES = gasnetrun_ibv$(EXEEXT) \
	tests/unit/bootstrap-child$(EXEEXT)
