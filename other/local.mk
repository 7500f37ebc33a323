# other/local.mk: parameters, logging, host utilities and gasnet_tools.h.
libgasnet_sources += \
	other/param/param.c \
	other/param/param-parse.c \
	other/param/param-table.c \
	other/log/log.c \
	other/util/sysinfo.c \
	other/util/strbuf.c \
	$(gasnet_tools_sources) \
	other/tools/tools-conduit.c \
	other/tools/tools-format.c
# The gasnet_tools.h implementation usable without a conduit (also the
# sources of the tools-only libraries libgasnet_tools-{seq,par}.a).
gasnet_tools_sources = \
	other/tools/tools-sys.c \
	other/tools/tools-timer.c \
	other/tools/tools-env.c \
	other/tools/tools-misc.c

include_HEADERS += include/gasnet_tools.h include/gasnet_portable_platform.h \
	include/gasnet_tools_basic.h include/gasnet_tools_membar.h include/gasnet_tools_timer.h \
	include/gasnet_tools_atomic.h include/gasnet_tools_thread.h include/gasnet_tools_sys.h \
	include/gasnet_tools_trace.h include/gasnet_tools_conduit.h
noinst_HEADERS += \
	other/param/param.h \
	other/param/param-parse.h \
	other/param/param-table.h \
	other/log/log.h \
	other/util/sysinfo.h \
	other/util/strbuf.h \
	other/tools/tools-timer.h
EXTRA_DIST += \
	other/param/params.def other/param/params-general.def other/param/params-spawn.def \
	other/param/params-ibv.def other/param/params-firehose.def other/param/params-compat.def other/param/params-foreign.def \
	other/param/README.md \
	other/log/README.md \
	tests/unit/check-readme-params.sh

# gasnet-param-doc prints the README variable reference from params.def.
noinst_PROGRAMS += other/param/gasnet-param-doc
other_param_gasnet_param_doc_SOURCES = other/param/param-doc.c other/param/param-table.c
other_param_gasnet_param_doc_CPPFLAGS = $(AM_CPPFLAGS) -DGASNET_SEQ
other_param_gasnet_param_doc_CFLAGS = $(LIB_CFLAGS)

# `make readme-params` rewrites README.md's generated section.
readme-params: other/param/gasnet-param-doc$(EXEEXT)
	$(SHELL) $(top_srcdir)/tests/unit/check-readme-params.sh --update \
	    $(top_srcdir)/README.md other/param/gasnet-param-doc$(EXEEXT)
.PHONY: readme-params

# Unit tests.
UNIT_TESTS += tests/unit/test-param tests/unit/test-param-readme tests/unit/test-tools \
	tests/unit/test-timer
tests_unit_test_param_SOURCES = tests/unit/test-param.c
tests_unit_test_param_CPPFLAGS = $(TEST_SEQ_CPPFLAGS) -D_GNU_SOURCE
tests_unit_test_param_LDADD = $(TEST_SEQ_LIBS)
tests_unit_test_param_readme_SOURCES = tests/unit/test-param-readme.c
tests_unit_test_param_readme_CPPFLAGS = $(AM_CPPFLAGS) \
	-DTOP_SRCDIR='"$(abs_top_srcdir)"' -DTOP_BUILDDIR='"$(abs_top_builddir)"'
EXTRA_tests_unit_test_param_readme_DEPENDENCIES = other/param/gasnet-param-doc$(EXEEXT)
tests_unit_test_tools_SOURCES = tests/unit/test-tools.c
tests_unit_test_tools_CPPFLAGS = $(TEST_PAR_CPPFLAGS) -D_GNU_SOURCE
tests_unit_test_tools_LDADD = $(TEST_PAR_LIBS)
tests_unit_test_timer_SOURCES = tests/unit/test-timer.c
tests_unit_test_timer_CPPFLAGS = $(TEST_PAR_CPPFLAGS) -D_GNU_SOURCE
tests_unit_test_timer_LDADD = $(TEST_PAR_LIBS)
