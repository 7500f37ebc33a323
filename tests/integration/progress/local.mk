# tests/integration/progress/local.mk: tests of the verbs progress threads
# and of asynchronous AM local completion (core/ibv/wr/README "Progress
# threads", "Asynchronous local completion"); included from
# core/ibv/local.mk.  PAR builds: the threads exist only there.  They run
# over verbs in the Soft-RoCE tier (tests/softroce/verbs.d/threads.manifest);
# am-lc also runs over PSHM in make check.
INTEGRATION_TESTS += tests/integration/progress/rcv-spin
tests_integration_progress_rcv_spin_SOURCES = tests/integration/progress/rcv-spin.c
tests_integration_progress_rcv_spin_CPPFLAGS = $(IT_PAR_CPPFLAGS)
tests_integration_progress_rcv_spin_CFLAGS = $(IT_CFLAGS) -pthread
tests_integration_progress_rcv_spin_LDADD = $(TEST_PAR_LIBS)

INTEGRATION_TESTS += tests/integration/progress/defer-threads
tests_integration_progress_defer_threads_SOURCES = tests/integration/progress/defer-threads.c
tests_integration_progress_defer_threads_CPPFLAGS = $(IT_PAR_CPPFLAGS)
tests_integration_progress_defer_threads_CFLAGS = $(IT_CFLAGS) -pthread
tests_integration_progress_defer_threads_LDADD = $(TEST_PAR_LIBS)

INTEGRATION_TESTS += tests/integration/progress/am-lc
tests_integration_progress_am_lc_SOURCES = tests/integration/progress/am-lc.c
tests_integration_progress_am_lc_CPPFLAGS = $(IT_PAR_CPPFLAGS)
tests_integration_progress_am_lc_CFLAGS = $(IT_CFLAGS) -pthread
tests_integration_progress_am_lc_LDADD = $(TEST_PAR_LIBS)

# PAR builds of the AM suites, to run them with both progress threads on.
INTEGRATION_TESTS += tests/integration/progress/am-payload-par
tests_integration_progress_am_payload_par_SOURCES = tests/integration/am-payload.c
tests_integration_progress_am_payload_par_CPPFLAGS = $(IT_PAR_CPPFLAGS)
tests_integration_progress_am_payload_par_CFLAGS = $(IT_CFLAGS) -pthread
tests_integration_progress_am_payload_par_LDADD = $(TEST_PAR_LIBS)

INTEGRATION_TESTS += tests/integration/progress/am-args-par
tests_integration_progress_am_args_par_SOURCES = tests/integration/am-args.c
tests_integration_progress_am_args_par_CPPFLAGS = $(IT_PAR_CPPFLAGS)
tests_integration_progress_am_args_par_CFLAGS = $(IT_CFLAGS) -pthread
tests_integration_progress_am_args_par_LDADD = $(TEST_PAR_LIBS)

EXTRA_DIST += tests/integration/manifest.d/progress.manifest \
	tests/softroce/verbs.d/threads.manifest \
	tests/softroce/verbs.d/defer.manifest
