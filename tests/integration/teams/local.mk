# tests/integration/teams/local.mk: teams, the GASNet-1 collectives,
# endpoints and segments (issue 14).  Listed in
# tests/integration/manifest.d/teams.manifest (PSHM) and
# tests/softroce/verbs.d/teams.manifest (verbs).
INTEGRATION_TESTS += tests/integration/teams/teams
tests_integration_teams_teams_SOURCES = tests/integration/teams/teams.c
tests_integration_teams_teams_CPPFLAGS = $(IT_SEQ_CPPFLAGS)
tests_integration_teams_teams_CFLAGS = $(IT_CFLAGS)
tests_integration_teams_teams_LDADD = $(TEST_SEQ_LIBS)

EXTRA_DIST += tests/integration/manifest.d/teams.manifest tests/softroce/verbs.d/teams.manifest

# GASNet-1 collectives (gasnet_coll_*), every op and sync-flag combination.
INTEGRATION_TESTS += tests/integration/teams/coll1
tests_integration_teams_coll1_SOURCES = tests/integration/teams/coll1.c
tests_integration_teams_coll1_CPPFLAGS = $(IT_SEQ_CPPFLAGS)
tests_integration_teams_coll1_CFLAGS = $(IT_CFLAGS)
tests_integration_teams_coll1_LDADD = $(TEST_SEQ_LIBS)

# Cost of a barrier and a broadcast on a split team beside the primordial team.
INTEGRATION_TESTS += tests/integration/teams/teamperf
tests_integration_teams_teamperf_SOURCES = tests/integration/teams/teamperf.c
tests_integration_teams_teamperf_CPPFLAGS = $(IT_SEQ_CPPFLAGS)
tests_integration_teams_teamperf_CFLAGS = $(IT_CFLAGS)
tests_integration_teams_teamperf_LDADD = $(TEST_SEQ_LIBS)

# VIS peer completion (gex_VIS_SetPeerCompletionHandler).
INTEGRATION_TESTS += tests/integration/teams/vispc
tests_integration_teams_vispc_SOURCES = tests/integration/teams/vispc.c
tests_integration_teams_vispc_CPPFLAGS = $(IT_SEQ_CPPFLAGS)
tests_integration_teams_vispc_CFLAGS = $(IT_CFLAGS)
tests_integration_teams_vispc_LDADD = $(TEST_SEQ_LIBS)

# Endpoints, created segments, memory kinds.
INTEGRATION_TESTS += tests/integration/teams/eps
tests_integration_teams_eps_SOURCES = tests/integration/teams/eps.c
tests_integration_teams_eps_CPPFLAGS = $(IT_SEQ_CPPFLAGS)
tests_integration_teams_eps_CFLAGS = $(IT_CFLAGS)
tests_integration_teams_eps_LDADD = $(TEST_SEQ_LIBS)

# Specification details (issue 33): gex_TM_Destroy's return value,
# gex_EP_BindSegment (refusals, a created segment on the primordial
# endpoint), gex_is_req in Reply handlers.
INTEGRATION_TESTS += tests/integration/teams/tmdestroy tests/integration/teams/bindseg \
	tests/integration/teams/isreq
tests_integration_teams_tmdestroy_SOURCES = tests/integration/teams/tmdestroy.c
tests_integration_teams_tmdestroy_CPPFLAGS = $(IT_SEQ_CPPFLAGS)
tests_integration_teams_tmdestroy_CFLAGS = $(IT_CFLAGS)
tests_integration_teams_tmdestroy_LDADD = $(TEST_SEQ_LIBS)
tests_integration_teams_bindseg_SOURCES = tests/integration/teams/bindseg.c
tests_integration_teams_bindseg_CPPFLAGS = $(IT_SEQ_CPPFLAGS)
tests_integration_teams_bindseg_CFLAGS = $(IT_CFLAGS)
tests_integration_teams_bindseg_LDADD = $(TEST_SEQ_LIBS)
tests_integration_teams_isreq_SOURCES = tests/integration/teams/isreq.c
tests_integration_teams_isreq_CPPFLAGS = $(IT_SEQ_CPPFLAGS)
tests_integration_teams_isreq_CFLAGS = $(IT_CFLAGS)
tests_integration_teams_isreq_LDADD = $(TEST_SEQ_LIBS)
