# tests/surface/local.mk: the public-name surface test (tests/surface/README.md).
#
# `make check` runs check-surface.sh against the build tree for SEQ, PAR and
# PARSYNC (PARSYNC links only once libgasnet-ibv-parsync.a is built) and as
# a tools-only client (linked when libgasnet_tools-seq.a is built).
EXTRA_DIST += \
	tests/surface/README.md \
	tests/surface/check-surface.sh \
	tests/surface/common.sh \
	tests/surface/gasnet-public-names.tsv \
	tests/surface/excluded.tsv

SURFACE_CHECK = $(SHELL) $(top_srcdir)/tests/surface/check-surface.sh --cc "$(CC)"
# What an installed client gets: the two include directories only.
SURFACE_CFLAGS = -I$(top_srcdir)/include -I$(top_builddir)/include $(CPPFLAGS) $(CFLAGS)
SURFACE_LIBS = $(AM_LDFLAGS) $(LDFLAGS)

check-surface: libgasnet-ibv-seq.a libgasnet-ibv-par.a
	@echo "surface: SEQ"; $(SURFACE_CHECK) --cflags "$(SURFACE_CFLAGS) -DGASNET_SEQ" \
	    --ld "$(CC)" --libs "$(SURFACE_LIBS) libgasnet-ibv-seq.a $(GASNET_DEPLIBS)"
	@echo "surface: PAR"; $(SURFACE_CHECK) --cflags "$(SURFACE_CFLAGS) -DGASNET_PAR" \
	    --ld "$(CC)" --libs "$(SURFACE_LIBS) libgasnet-ibv-par.a $(GASNET_DEPLIBS)"
	@echo "surface: PARSYNC"; if test -f libgasnet-ibv-parsync.a; then \
	    ld='$(CC)'; else ld=; echo "(compile only: no libgasnet-ibv-parsync.a)"; fi; \
	    $(SURFACE_CHECK) --cflags "$(SURFACE_CFLAGS) -DGASNET_PARSYNC" \
	    --ld "$$ld" --libs "$(SURFACE_LIBS) libgasnet-ibv-parsync.a $(GASNET_DEPLIBS)"
	@echo "surface: tools only"; if test -f libgasnet_tools-seq.a; then \
	    ld='$(CC)'; else ld=; echo "(compile only: no libgasnet_tools-seq.a)"; fi; \
	    $(SURFACE_CHECK) --tools --cflags "$(SURFACE_CFLAGS) -DGASNETT_THREAD_SINGLE" \
	    --ld "$$ld" --libs "$(SURFACE_LIBS) libgasnet_tools-seq.a $(LIBS) -lm"
	@echo "surface: self-test (an empty gasnet_tools.h must fail every name)"; \
	    rm -rf tests/surface/empty && mkdir -p tests/surface/empty && \
	    : > tests/surface/empty/gasnet_tools.h && \
	    if $(SURFACE_CHECK) --tools --cflags "-Itests/surface/empty" --ld "" --libs "" \
	        > tests/surface/empty/out.log 2>&1; then \
	        echo "FAIL: check-surface.sh passed an empty header"; exit 1; fi; \
	    tail -n 1 tests/surface/empty/out.log; \
	    grep -q "^0 passed, 349 failed" tests/surface/empty/out.log || exit 1; \
	    rm -rf tests/surface/empty
check-local: check-surface
.PHONY: check-surface

# GASNet-EX's constant values and type sizes (README.md), as a SEQ client
# sees them; then a self-test: a header that changes GEX_OP_ADD must fail
# exactly that row.
EXTRA_DIST += \
	tests/surface/check-constants.sh \
	tests/surface/gasnet-constant-values.tsv \
	tests/surface/constants-excluded.tsv
CONSTANTS_CHECK = $(SHELL) $(top_srcdir)/tests/surface/check-constants.sh --cc "$(CC)" \
	--libs "$(SURFACE_LIBS) libgasnet-ibv-seq.a $(GASNET_DEPLIBS)"
check-constants: libgasnet-ibv-seq.a
	@echo "constants: SEQ"; $(CONSTANTS_CHECK) --cflags "$(SURFACE_CFLAGS) -DGASNET_SEQ"
	@echo "constants: self-test (GEX_OP_ADD changed must fail that row only)"; \
	    rm -rf tests/surface/cshim && mkdir -p tests/surface/cshim && \
	    printf '#include_next <gasnetex.h>\n#undef GEX_OP_ADD\n#define GEX_OP_ADD 99\n' \
	        > tests/surface/cshim/gasnetex.h && \
	    if $(CONSTANTS_CHECK) --cflags "-Itests/surface/cshim $(SURFACE_CFLAGS) -DGASNET_SEQ" \
	        > tests/surface/cshim/out.log 2>&1; then \
	        echo "FAIL: check-constants.sh passed a wrong GEX_OP_ADD"; exit 1; fi; \
	    tail -n 1 tests/surface/cshim/out.log; \
	    grep -q "^DIFFERS: GEX_OP_ADD GASNet 8, ours 99$$" tests/surface/cshim/out.log && \
	    grep -q " 1 failed" tests/surface/cshim/out.log || exit 1; \
	    rm -rf tests/surface/cshim
check-local: check-constants
.PHONY: check-constants

# The acceptance client (README.md), SEQ and PAR; run by
# tests/integration/manifest.d/surface.manifest.
INTEGRATION_TESTS += tests/surface/gex-tools-client tests/surface/gex-tools-client-par
EXTRA_DIST += tests/integration/manifest.d/surface.manifest
tests_surface_gex_tools_client_SOURCES = tests/surface/gex-tools-client.c
tests_surface_gex_tools_client_CPPFLAGS = $(TEST_SEQ_CPPFLAGS)
tests_surface_gex_tools_client_CFLAGS = $(GASNETI_WARN_CFLAGS)
tests_surface_gex_tools_client_LDADD = $(TEST_SEQ_LIBS)
tests_surface_gex_tools_client_par_SOURCES = tests/surface/gex-tools-client.c
tests_surface_gex_tools_client_par_CPPFLAGS = $(TEST_PAR_CPPFLAGS)
tests_surface_gex_tools_client_par_CFLAGS = $(GASNETI_WARN_CFLAGS) -pthread
tests_surface_gex_tools_client_par_LDADD = $(TEST_PAR_LIBS)
