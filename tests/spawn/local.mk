# tests/spawn/local.mk: tests of the spawners (bootstrap/README).
#   tests/spawn/test-spawn-units    unit test of the launcher's pure helpers
#                                   (layout, spawn tree, words, templates,
#                                   host lists, SETUP)
#   tests/spawn/ssh-spawn.sh        ssh spawner over a throw-away sshd
#   tests/spawn/mpi-spawn.sh mpi    mpi spawner through Open MPI's mpirun
#   tests/spawn/mpi-spawn.sh pmi    pmi spawner through mpirun's PMIx server
#   tests/spawn/startup-time.sh     launch-to-attach times (not run by make check)
#   tests/spawn/launcher-leaks.sh   the launcher under AddressSanitizer: no leak
# The scripts run from tests/integration/manifest.d/spawn.manifest.
UNIT_TESTS += tests/spawn/test-spawn-units
tests_spawn_test_spawn_units_SOURCES = tests/spawn/test-spawn-units.c contrib/launcher/setup.c
tests_spawn_test_spawn_units_CPPFLAGS = $(AM_CPPFLAGS) -D_GNU_SOURCE
tests_spawn_test_spawn_units_CFLAGS = $(GASNETI_WARN_CFLAGS)

check_PROGRAMS += tests/spawn/attach-time
tests_spawn_attach_time_SOURCES = tests/spawn/attach-time.c
tests_spawn_attach_time_CPPFLAGS = $(TEST_SEQ_CPPFLAGS) -D_GNU_SOURCE
tests_spawn_attach_time_CFLAGS = $(GASNETI_WARN_CFLAGS)
tests_spawn_attach_time_LDADD = $(TEST_SEQ_LIBS)

EXTRA_DIST += tests/spawn/README tests/spawn/sshd.sh tests/spawn/ssh-spawn.sh \
	tests/spawn/mpi-spawn.sh tests/spawn/signal-check.sh tests/spawn/ssh-verbs.sh tests/spawn/startup-time.sh tests/spawn/launcher-leaks.sh \
	tests/integration/manifest.d/spawn.manifest

# The install-list check (contrib/check-deps.py), run from deps.manifest.
EXTRA_DIST += contrib/check-deps.py tests/deps/check-deps-test.sh \
	tests/integration/manifest.d/deps.manifest

# The same integration programs linked with the mpi spawner: built with
# $(MPICC), the spawner library forced in with -u (bootstrap/README).
if HAVE_MPI
SPAWN_MPI_TESTPROGS = tests/spawn/am-args-mpi tests/spawn/rma-mpi tests/spawn/exitcode-mpi \
	tests/spawn/attach-time-mpi
check_PROGRAMS += $(SPAWN_MPI_TESTPROGS)
SPAWN_MPI_LIBS = libgasnet-ibv-mpi-spawner.a $(TEST_SEQ_LIBS)
SPAWN_MPI_LINK = $(MPICC) $(GASNETI_WARN_CFLAGS) $(CFLAGS) -Wl,-u,gasneti_bootstrap_mpi $(LDFLAGS) -o $@

tests_spawn_am_args_mpi_SOURCES = tests/integration/am-args.c
tests_spawn_am_args_mpi_CPPFLAGS = $(TEST_SEQ_CPPFLAGS) -D_GNU_SOURCE
tests_spawn_am_args_mpi_CFLAGS = $(GASNETI_WARN_CFLAGS)
tests_spawn_am_args_mpi_LDADD = $(SPAWN_MPI_LIBS)
tests_spawn_am_args_mpi_LINK = $(SPAWN_MPI_LINK)
EXTRA_tests_spawn_am_args_mpi_DEPENDENCIES = libgasnet-ibv-mpi-spawner.a

tests_spawn_rma_mpi_SOURCES = tests/integration/rma-forms.c
tests_spawn_rma_mpi_CPPFLAGS = $(TEST_SEQ_CPPFLAGS) -D_GNU_SOURCE
tests_spawn_rma_mpi_CFLAGS = $(GASNETI_WARN_CFLAGS)
tests_spawn_rma_mpi_LDADD = $(SPAWN_MPI_LIBS)
tests_spawn_rma_mpi_LINK = $(SPAWN_MPI_LINK)
EXTRA_tests_spawn_rma_mpi_DEPENDENCIES = libgasnet-ibv-mpi-spawner.a

tests_spawn_exitcode_mpi_SOURCES = tests/integration/exitcode.c
tests_spawn_exitcode_mpi_CPPFLAGS = $(TEST_SEQ_CPPFLAGS) -D_GNU_SOURCE
tests_spawn_exitcode_mpi_CFLAGS = $(GASNETI_WARN_CFLAGS)
tests_spawn_exitcode_mpi_LDADD = $(SPAWN_MPI_LIBS)
tests_spawn_exitcode_mpi_LINK = $(SPAWN_MPI_LINK)
EXTRA_tests_spawn_exitcode_mpi_DEPENDENCIES = libgasnet-ibv-mpi-spawner.a

tests_spawn_attach_time_mpi_SOURCES = tests/spawn/attach-time.c
tests_spawn_attach_time_mpi_CPPFLAGS = $(TEST_SEQ_CPPFLAGS) -D_GNU_SOURCE
tests_spawn_attach_time_mpi_CFLAGS = $(GASNETI_WARN_CFLAGS)
tests_spawn_attach_time_mpi_LDADD = $(SPAWN_MPI_LIBS)
tests_spawn_attach_time_mpi_LINK = $(SPAWN_MPI_LINK)
EXTRA_tests_spawn_attach_time_mpi_DEPENDENCIES = libgasnet-ibv-mpi-spawner.a
endif
