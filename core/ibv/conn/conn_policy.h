/* core/ibv/conn/conn_policy.h: the decisions of on-demand connection setup and
 * of XRC, as pure functions (no verbs, no clock) so that the unit tests
 * (tests/unit/test-ibv-conn.c) check them.  Protocol: core/ibv/conn/README
 * "On-demand connections". */
#ifndef GASNETC_IBV_CONN_POLICY_H
#define GASNETC_IBV_CONN_POLICY_H

#include <stddef.h>
#include <stdint.h>

/* Retransmission (GASNET_CONNECT_RETRANS_MIN/MAX, microseconds): the first
 * interval is min; each retransmission doubles it; an interval that would
 * exceed max means the setup has failed.  Returns the interval after cur
 * (cur == 0: the first one), or 0 for "give up". */
uint64_t gasnetc_conn_next_interval(uint64_t cur, uint64_t min, uint64_t max);
/* Sum of all intervals before giving up: how long a setup may take. */
uint64_t gasnetc_conn_total_wait(uint64_t min, uint64_t max);

/* Two ranks sent each other a connection request at the same time: the
 * request of the lower rank wins.  Returns 1 when `me` must answer the
 * request that `peer` sent (abandoning its own, whose queue pairs it reuses
 * as the accepting side), 0 when `me` ignores it (the peer will accept
 * mine). */
int gasnetc_conn_accept_crossed(uint32_t me, uint32_t peer);

/* Default of GASNET_CONNECT_RCVS (seed README):
 * MAX(6, 4 + 2*ceil(log2(n_remote))). */
int gasnetc_conn_default_rcvs(uint32_t n_remote);

/* GASNET_USE_XRC: whether XRC is used.  requested: the parameter's value;
 * explicit: the user set it; dev_xrc: the HCA reports XRC
 * (IBV_DEVICE_XRC); srq: a shared receive queue is in use (XRC needs it);
 * impl: this build carries traffic over XRC (not yet: 0).  Checked in that
 * order, the device first.  Returns 1 or 0; when it is 0 although the user explicitly asked for XRC,
 * why gets one line saying why (the HCA named hca); else why is "". */
int gasnetc_xrc_decide(int requested, int explicit_set, int dev_xrc, int srq, int impl,
                       const char *hca, char *why, size_t n);

#endif /* GASNETC_IBV_CONN_POLICY_H */
