# core/am/local.mk: AM credit flow control (pure logic, no verbs) and its
# tests.  The wire format (core/am/wire.*) is built from core/local.mk.
libgasnet_sources += \
	core/am/credit.c \
	core/am/credit_policy.c
noinst_HEADERS += core/am/credit.h
EXTRA_DIST += core/am/README

# Simulation of 2..8 endpoints with random schedules (SEQ build).
UNIT_TESTS += tests/unit/test-credit-sim
tests_unit_test_credit_sim_SOURCES = tests/unit/test-credit-sim.c core/am/credit.c core/am/credit_policy.c
tests_unit_test_credit_sim_CPPFLAGS = $(TEST_SEQ_CPPFLAGS)
tests_unit_test_credit_sim_CFLAGS = $(LIB_CFLAGS)

# The same code built for PAR, driven by 4 threads at once.
UNIT_TESTS += tests/unit/test-credit-par
tests_unit_test_credit_par_SOURCES = tests/unit/test-credit-par.c core/am/credit.c core/am/credit_policy.c
tests_unit_test_credit_par_CPPFLAGS = $(TEST_PAR_CPPFLAGS)
tests_unit_test_credit_par_CFLAGS = $(LIB_CFLAGS)
