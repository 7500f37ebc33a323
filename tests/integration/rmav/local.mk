# tests/integration/rmav/local.mk: integration tests of RMA over verbs
# (sizes, alignments, completion forms, non-bulk source reuse).  Owned by
# the verbs RMA work (issue 5).
