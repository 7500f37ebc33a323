# tests/integration/firehose/local.mk: integration tests of dynamic
# registration (firehose over verbs): out-of-segment churn, pinning limits.
# Owned by the firehose/dynreg work (issue 6).
