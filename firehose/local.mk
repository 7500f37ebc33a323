# firehose/local.mk: build fragment included by the top Makefile.am.
# Dynamic registration (firehose): transport-independent, reaches the HCA and
# the network only through firehose_ops_t (firehose/README).
libgasnet_sources += \
	firehose/fh_config.c \
	firehose/fh_init.c \
	firehose/fh_local.c \
	firehose/fh_move.c \
	firehose/fh_remote.c \
	firehose/fh_table.c
noinst_HEADERS += \
	firehose/firehose.h \
	firehose/fh_internal.h \
	firehose/fh_move.h
EXTRA_DIST += firehose/README

# Unit tests with fake ops (no verbs), SEQ library unless named otherwise.
UNIT_TESTS += \
	tests/unit/test-firehose-local \
	tests/unit/test-firehose-remote \
	tests/unit/test-firehose-config \
	tests/unit/test-firehose-par
tests_unit_test_firehose_local_SOURCES = tests/unit/test-firehose-local.c
tests_unit_test_firehose_local_CPPFLAGS = $(TEST_SEQ_CPPFLAGS)
tests_unit_test_firehose_local_CFLAGS = $(LIB_CFLAGS)
tests_unit_test_firehose_local_LDADD = $(TEST_SEQ_LIBS)
tests_unit_test_firehose_remote_SOURCES = tests/unit/test-firehose-remote.c
tests_unit_test_firehose_remote_CPPFLAGS = $(TEST_SEQ_CPPFLAGS)
tests_unit_test_firehose_remote_CFLAGS = $(LIB_CFLAGS)
tests_unit_test_firehose_remote_LDADD = $(TEST_SEQ_LIBS)
tests_unit_test_firehose_config_SOURCES = tests/unit/test-firehose-config.c
tests_unit_test_firehose_config_CPPFLAGS = $(TEST_SEQ_CPPFLAGS) -D_GNU_SOURCE
tests_unit_test_firehose_config_CFLAGS = $(LIB_CFLAGS)
tests_unit_test_firehose_config_LDADD = $(TEST_SEQ_LIBS)
# The PAR build, 4 threads on 2 fake nodes.
tests_unit_test_firehose_par_SOURCES = tests/unit/test-firehose-par.c
tests_unit_test_firehose_par_CPPFLAGS = $(TEST_PAR_CPPFLAGS) -D_GNU_SOURCE
tests_unit_test_firehose_par_CFLAGS = $(LIB_CFLAGS)
tests_unit_test_firehose_par_LDADD = $(TEST_PAR_LIBS)
