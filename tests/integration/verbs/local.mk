# tests/integration/verbs/local.mk: integration tests written for the verbs
# AM transport (included from core/ibv/local.mk).  Public API only; they run
# over PSHM on any host (tests/integration/manifest.d/softroce.manifest
# lists none of them directly) and over verbs in the Soft-RoCE tier
# (tests/softroce/verbs.manifest).
INTEGRATION_TESTS += tests/integration/verbs/am-flood
tests_integration_verbs_am_flood_SOURCES = tests/integration/verbs/am-flood.c
tests_integration_verbs_am_flood_CPPFLAGS = $(IT_SEQ_CPPFLAGS)
tests_integration_verbs_am_flood_CFLAGS = $(IT_CFLAGS)
tests_integration_verbs_am_flood_LDADD = $(TEST_SEQ_LIBS)

# The same test in the PAR library, several sender threads (am-flood [N [T]]).
INTEGRATION_TESTS += tests/integration/verbs/am-flood-par
tests_integration_verbs_am_flood_par_SOURCES = tests/integration/verbs/am-flood.c
tests_integration_verbs_am_flood_par_CPPFLAGS = $(IT_PAR_CPPFLAGS)
tests_integration_verbs_am_flood_par_CFLAGS = $(IT_CFLAGS) -pthread
tests_integration_verbs_am_flood_par_LDADD = $(TEST_PAR_LIBS)

# What the AM transport pins (VmPin) at start and after traffic: the
# measured points of core/ibv/mem/README "Memory and start-up model" (srq16).
INTEGRATION_TESTS += tests/integration/verbs/srq-mem
tests_integration_verbs_srq_mem_SOURCES = tests/integration/verbs/srq-mem.c
tests_integration_verbs_srq_mem_CPPFLAGS = $(IT_SEQ_CPPFLAGS)
tests_integration_verbs_srq_mem_CFLAGS = $(IT_CFLAGS)
tests_integration_verbs_srq_mem_LDADD = $(TEST_SEQ_LIBS)

# Every pair of ranks first talks at the same instant (on-demand connections:
# tests/softroce/verbs.d/ondemand.manifest).
INTEGRATION_TESTS += tests/integration/verbs/conn-race
tests_integration_verbs_conn_race_SOURCES = tests/integration/verbs/conn-race.c
tests_integration_verbs_conn_race_CPPFLAGS = $(IT_SEQ_CPPFLAGS)
tests_integration_verbs_conn_race_CFLAGS = $(IT_CFLAGS)
tests_integration_verbs_conn_race_LDADD = $(TEST_SEQ_LIBS)

# The primordial team's barrier under the RDMA mailbox and mixed with AMs
# (tests/softroce/verbs.d/rdmabar.manifest).
INTEGRATION_TESTS += tests/integration/verbs/rdmabar
tests_integration_verbs_rdmabar_SOURCES = tests/integration/verbs/rdmabar.c
tests_integration_verbs_rdmabar_CPPFLAGS = $(IT_SEQ_CPPFLAGS)
tests_integration_verbs_rdmabar_CFLAGS = $(IT_CFLAGS)
tests_integration_verbs_rdmabar_LDADD = $(TEST_SEQ_LIBS)
