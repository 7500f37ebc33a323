# tests/integration/relia/local.mk: reliability and GASNet-compatibility
# tests of issues 13 (items 7, 8) and 19 (items 1, 4, 5, 6, 8, 9, 10),
# included by Makefile.am.  Cases: tests/integration/manifest.d/relia.manifest.
INTEGRATION_TESTS += tests/integration/relia/loopback tests/integration/relia/loopback-par
EXTRA_DIST += tests/integration/manifest.d/relia.manifest tests/softroce/verbs.d/relia.manifest \
	tests/integration/relia/valgrind-job.sh tests/integration/relia/shm-kill.sh \
	tests/integration/relia/shm-symlink.sh tests/integration/relia/shm-private.sh \
	tests/integration/relia/shm-full.sh

tests_integration_relia_loopback_SOURCES = tests/integration/relia/loopback.c
tests_integration_relia_loopback_CPPFLAGS = $(IT_SEQ_CPPFLAGS)
tests_integration_relia_loopback_CFLAGS = $(IT_CFLAGS)
tests_integration_relia_loopback_LDADD = $(TEST_SEQ_LIBS)

tests_integration_relia_loopback_par_SOURCES = tests/integration/relia/loopback.c
tests_integration_relia_loopback_par_CPPFLAGS = $(IT_PAR_CPPFLAGS)
tests_integration_relia_loopback_par_CFLAGS = $(IT_CFLAGS) -pthread
tests_integration_relia_loopback_par_LDADD = $(TEST_PAR_LIBS)

INTEGRATION_TESTS += tests/integration/relia/segsize
tests_integration_relia_segsize_SOURCES = tests/integration/relia/segsize.c
tests_integration_relia_segsize_CPPFLAGS = $(IT_SEQ_CPPFLAGS)
tests_integration_relia_segsize_CFLAGS = $(IT_CFLAGS)
tests_integration_relia_segsize_LDADD = $(TEST_SEQ_LIBS)

# A job's whole life in shared memory, for shm-kill.sh and shm-symlink.sh.
INTEGRATION_TESTS += tests/integration/relia/shm-life
tests_integration_relia_shm_life_SOURCES = tests/integration/relia/shm-life.c
tests_integration_relia_shm_life_CPPFLAGS = $(IT_SEQ_CPPFLAGS)
tests_integration_relia_shm_life_CFLAGS = $(IT_CFLAGS)
tests_integration_relia_shm_life_LDADD = $(TEST_SEQ_LIBS)

# /dev/shm filling up under a job, for shm-full.sh.
INTEGRATION_TESTS += tests/integration/relia/shm-full
tests_integration_relia_shm_full_SOURCES = tests/integration/relia/shm-full.c
tests_integration_relia_shm_full_CPPFLAGS = $(IT_SEQ_CPPFLAGS)
tests_integration_relia_shm_full_CFLAGS = $(IT_CFLAGS)
tests_integration_relia_shm_full_LDADD = $(TEST_SEQ_LIBS)

INTEGRATION_TESTS += tests/integration/relia/sigint
tests_integration_relia_sigint_SOURCES = tests/integration/relia/sigint.c
tests_integration_relia_sigint_CPPFLAGS = $(IT_SEQ_CPPFLAGS)
tests_integration_relia_sigint_CFLAGS = $(IT_CFLAGS)
tests_integration_relia_sigint_LDADD = $(TEST_SEQ_LIBS)

# Root and leaf events mixed in the array forms (no job).
UNIT_TESTS += tests/unit/test-event-array
tests_unit_test_event_array_SOURCES = tests/unit/test-event-array.c
tests_unit_test_event_array_CPPFLAGS = $(TEST_SEQ_CPPFLAGS)
tests_unit_test_event_array_LDADD = $(TEST_SEQ_LIBS)

INTEGRATION_TESTS += tests/integration/relia/events
tests_integration_relia_events_SOURCES = tests/integration/relia/events.c
tests_integration_relia_events_CPPFLAGS = $(IT_SEQ_CPPFLAGS)
tests_integration_relia_events_CFLAGS = $(IT_CFLAGS)
tests_integration_relia_events_LDADD = $(TEST_SEQ_LIBS)

# Victims of the wire-fault cases of tests/softroce/faults.sh (idle phase for
# a port flap, back-to-back 16 MiB puts for a peer SIGKILL).
INTEGRATION_TESTS += tests/integration/relia/wirefault
tests_integration_relia_wirefault_SOURCES = tests/integration/relia/wirefault.c
tests_integration_relia_wirefault_CPPFLAGS = $(IT_SEQ_CPPFLAGS)
tests_integration_relia_wirefault_CFLAGS = $(IT_CFLAGS)
tests_integration_relia_wirefault_LDADD = $(TEST_SEQ_LIBS)
