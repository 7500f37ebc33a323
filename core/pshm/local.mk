# core/pshm/local.mk: the same-host transport (PSHM): lock-free AM queues in
# shared memory, cross-mapped segments, the neighbourhood exit word.
libgasnet_sources += \
	core/pshm/queue.c \
	core/pshm/nbrhd.c \
	core/pshm/shmobj.c \
	core/pshm/pshm.c \
	core/pshm/segment.c

noinst_HEADERS += core/pshm/pshm.h core/pshm/pshm_internal.h core/pshm/queue.h
EXTRA_DIST += core/pshm/README
# Neighbour RMA inlined into clients (gasnetex.h includes it).
include_HEADERS += include/gasnet_pshm_inline.h

# The queue and the neighbourhood rule are pure code: this test builds them
# directly, so it does not need the rest of the library.
UNIT_TESTS += tests/unit/test-pshm-queue
tests_unit_test_pshm_queue_SOURCES = tests/unit/test-pshm-queue.c core/pshm/queue.c \
	core/pshm/nbrhd.c
tests_unit_test_pshm_queue_CPPFLAGS = $(TEST_SEQ_CPPFLAGS) -D_GNU_SOURCE
tests_unit_test_pshm_queue_CFLAGS = $(GASNETI_WARN_CFLAGS)

# init/attach/AM/exit word over a fake in-process bootstrap with fork()ed ranks.
UNIT_TESTS += tests/unit/test-pshm-attach
tests_unit_test_pshm_attach_SOURCES = tests/unit/test-pshm-attach.c
tests_unit_test_pshm_attach_CPPFLAGS = $(TEST_SEQ_CPPFLAGS) -D_GNU_SOURCE
tests_unit_test_pshm_attach_CFLAGS = $(GASNETI_WARN_CFLAGS)
tests_unit_test_pshm_attach_LDADD = $(TEST_SEQ_LIBS)
