# core/local.mk: core API (init/attach, AM entry points, handlers, progress,
# exit) and the transport-independent AM protocol (core/am).
libgasnet_sources += \
	core/am/wire.c \
	core/objects.c \
	core/init.c \
	core/handlers.c \
	core/am_fpam.c \
	core/am_npam.c \
	core/poll.c \
	core/exit.c \
	core/exit_signal.c \
	core/phases.c
noinst_HEADERS += core/gasnet_core_internal.h core/gasnet_core_private.h core/am/wire.h \
	core/exit_signal.h
EXTRA_DIST += core/README
UNIT_TESTS += tests/unit/test-am-wire
tests_unit_test_am_wire_SOURCES = tests/unit/test-am-wire.c core/am/wire.c
tests_unit_test_am_wire_CPPFLAGS = $(TEST_SEQ_CPPFLAGS)
