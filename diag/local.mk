# diag/local.mk: gasnett_run_diagnostics, the top layer (diag/README).
libgasnet_sources += diag/diagnostic.c
EXTRA_DIST += diag/README
