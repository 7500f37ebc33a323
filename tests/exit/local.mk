# tests/exit/local.mk: the exit test suite (issue 7), included by Makefile.am.
#
# tests/exit/exit-cases is one program with a mode per way a job can end
# (exit-cases-par: the same source on the PAR library, for thread cases);
# tests/exit/run-case.sh runs it as a job and checks the wall time against
# the exit timeout and that no process is left.  The cases are listed in
# tests/integration/manifest.d/exit.manifest (run by `make check` through
# tests/harness/run-tests), over verbs in tests/softroce/verbs.d/
# exitcodes.manifest.  See tests/exit/README.
INTEGRATION_TESTS += tests/exit/exit-cases tests/exit/exit-cases-par
EXTRA_DIST += \
	tests/exit/run-case.sh \
	tests/exit/README \
	tests/integration/manifest.d/exit.manifest \
	tests/softroce/verbs.d/exitcodes.manifest

tests_exit_exit_cases_SOURCES = tests/exit/exit-cases.c
tests_exit_exit_cases_CPPFLAGS = $(IT_SEQ_CPPFLAGS)
tests_exit_exit_cases_CFLAGS = $(IT_CFLAGS)
tests_exit_exit_cases_LDADD = $(TEST_SEQ_LIBS)

tests_exit_exit_cases_par_SOURCES = tests/exit/exit-cases.c
tests_exit_exit_cases_par_CPPFLAGS = $(IT_PAR_CPPFLAGS)
tests_exit_exit_cases_par_CFLAGS = $(IT_CFLAGS) -pthread
tests_exit_exit_cases_par_LDADD = $(TEST_PAR_LIBS)
