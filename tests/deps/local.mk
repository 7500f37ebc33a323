# tests/deps/local.mk: the layering check (tests/deps/README).
#
# make check-layers runs tests/deps/check-layers.py over the objects of the
# SEQ library (PAR and PARSYNC compile the same sources) and, with MPI, the
# mpi spawner's: it fails when an object references a symbol defined in a
# higher layer of tests/deps/layers.  make check runs it (deps.manifest,
# layers: tests/deps/check-layers-lib.sh) beside the script's self-test
# (layers-tool).
#   make check-layers CHECK_LAYERS_FLAGS=--list             counts per folder pair
#   make check-layers CHECK_LAYERS_FLAGS='--list --symbols' with the symbols
CHECK_LAYERS_OBJECTS = $(libgasnet_ibv_seq_a_OBJECTS)
if HAVE_MPI
CHECK_LAYERS_OBJECTS += bootstrap/mpi/mpi-spawner.$(OBJEXT)
endif
CHECK_LAYERS_FLAGS =
check-layers: $(CHECK_LAYERS_OBJECTS)
	python3 $(srcdir)/tests/deps/check-layers.py --layers $(srcdir)/tests/deps/layers \
	  $(CHECK_LAYERS_FLAGS) $(CHECK_LAYERS_OBJECTS)
.PHONY: check-layers
EXTRA_DIST += tests/deps/README tests/deps/layers tests/deps/check-layers.py \
	tests/deps/check-layers-test.sh tests/deps/check-layers-lib.sh
