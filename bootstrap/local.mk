# bootstrap/local.mk: job setup (the bootstrap ops table and its plugins) and
# the launcher gasnetrun_ibv (contrib/launcher), which is the other end of
# the local plugin.  Design: bootstrap/README.
libgasnet_sources += \
	bootstrap/bootstrap.c \
	bootstrap/local/proto.c \
	bootstrap/local/channel.c \
	bootstrap/local/local.c
noinst_HEADERS += \
	bootstrap/bootstrap.h \
	bootstrap/bootstrap_private.h \
	bootstrap/local/proto.h \
	bootstrap/local/channel.h \
	contrib/launcher/launcher.h \
	tests/unit/test-bootstrap.h
EXTRA_DIST += bootstrap/README

# The launcher takes the frame codec, parameters and logging from the SEQ
# library (only those objects are linked in).
bin_PROGRAMS += gasnetrun_ibv
gasnetrun_ibv_SOURCES = \
	contrib/launcher/main.c \
	contrib/launcher/spawn_local.c \
	contrib/launcher/hub.c \
	contrib/launcher/hub_coll.c
gasnetrun_ibv_CPPFLAGS = $(AM_CPPFLAGS) -DGASNET_SEQ -D_GNU_SOURCE
gasnetrun_ibv_CFLAGS = $(GASNETI_WARN_CFLAGS)
gasnetrun_ibv_LDADD = libgasnet-ibv-seq.a $(LIBS)

# A rank program for the end-to-end test: bootstrap + param + log only.
check_PROGRAMS += tests/unit/bootstrap-child
tests_unit_bootstrap_child_SOURCES = tests/unit/bootstrap-child.c
tests_unit_bootstrap_child_CPPFLAGS = $(TEST_SEQ_CPPFLAGS) -D_GNU_SOURCE
tests_unit_bootstrap_child_CFLAGS = $(GASNETI_WARN_CFLAGS)
tests_unit_bootstrap_child_LDADD = libgasnet-ibv-seq.a $(LIBS)

# Frame codec, host ids and selection in-process; then real jobs through
# gasnetrun_ibv running bootstrap-child (collectives, exit codes, signals).
UNIT_TESTS += tests/unit/test-bootstrap
tests_unit_test_bootstrap_SOURCES = tests/unit/test-bootstrap.c tests/unit/test-bootstrap-jobs.c
tests_unit_test_bootstrap_CPPFLAGS = $(TEST_SEQ_CPPFLAGS) -D_GNU_SOURCE
tests_unit_test_bootstrap_CFLAGS = $(GASNETI_WARN_CFLAGS)
tests_unit_test_bootstrap_LDADD = libgasnet-ibv-seq.a $(LIBS)
EXTRA_tests_unit_test_bootstrap_DEPENDENCIES = gasnetrun_ibv$(EXEEXT) \
	tests/unit/bootstrap-child$(EXEEXT)
