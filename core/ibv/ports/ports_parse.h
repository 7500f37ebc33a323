/* core/ibv/ports/ports_parse.h: pure parsers and small pure helpers used by HCA and
 * port selection.  No verbs, no environment, no logging: every function takes
 * text or numbers and reports problems in a caller-supplied buffer, so all of
 * them are unit-tested on any machine (tests/unit/test-ibv-parse.c).
 *
 * Thread safety: none needed; every function works only on its arguments.
 * None of them is meant for AM handlers (control path only).
 */
#ifndef GASNETC_IBV_PORTS_PARSE_H
#define GASNETC_IBV_PORTS_PARSE_H

#include <stddef.h>
#include <stdint.h>

#define GASNETC_IBV_HCA_NAME_MAX 64 /* = IBV_SYSFS_NAME_MAX */
#define GASNETC_IBV_PORT_NUM_MAX 254 /* highest port number a filter may name */

/* ---- GASNET_IBV_PORTS filter: "mlx5_0+mlx5_1:2" / "hca:1,2+other" ---------- */
typedef struct {
    char hca[GASNETC_IBV_HCA_NAME_MAX];
    int any_port;      /* an entry named the HCA without ports: first active port */
    uint64_t ports[4]; /* bit p: port p was listed explicitly (1..254) */
} gasnetc_ibv_portspec_entry_t;

typedef struct {
    int count; /* 0 = no filter: every HCA, first active port of each */
    gasnetc_ibv_portspec_entry_t *entries;
} gasnetc_ibv_portspec_t;

/* Parses a GASNET_IBV_PORTS value into *spec (duplicates merged).  NULL, ""
 * or blanks give an empty filter.  Returns 0, or -1 with a one-line reason in
 * err (the caller adds the variable name) and *spec left empty. */
int gasnetc_ibv_portspec_parse(const char *text, gasnetc_ibv_portspec_t *spec, char *err,
                               size_t errlen);

/* Releases what gasnetc_ibv_portspec_parse allocated; *spec becomes empty. */
void gasnetc_ibv_portspec_free(gasnetc_ibv_portspec_t *spec);

/* The entry naming hca, or NULL (also for an empty filter). */
const gasnetc_ibv_portspec_entry_t *gasnetc_ibv_portspec_find(const gasnetc_ibv_portspec_t *spec,
                                                              const char *hca);

/* 1 if port was listed explicitly for this entry. */
int gasnetc_ibv_portspec_lists(const gasnetc_ibv_portspec_entry_t *e, int port);

/* ---- GASNET_IBV_LIST_PORTS_NODES: "0,2-4,6", "*", "" ---------------------- */
/* Returns 1 if rank is in the list (NULL, "", blanks and "*" mean every
 * rank), 0 if not, -1 on a syntax error (one-line reason in err).  The whole
 * text is checked, so every rank reports the same error. */
int gasnetc_ibv_nodelist_match(const char *text, uint32_t rank, char *err, size_t errlen);

/* ---- GASNET_MAX_MTU and MTU codes ----------------------------------------- */
/* Checks a GASNET_MAX_MTU value: -1 (port's active MTU), 0 (automatic), or
 * 256, 512, 1024, 2048, 4096.  Returns 0, or -1 with a reason in err. */
int gasnetc_ibv_mtu_check(int64_t value, char *err, size_t errlen);

/* Verbs MTU code (IBV_MTU_256 = 1 .. IBV_MTU_4096 = 5) of a byte count, or 0
 * if bytes is not one of the five sizes. */
int gasnetc_ibv_mtu_code(int bytes);

/* Byte count of a verbs MTU code, or 0 for an unknown code. */
int gasnetc_ibv_mtu_bytes(int code);

/* The MTU code a port uses: the active code capped by GASNET_MAX_MTU
 * (max_mtu_value as checked above; -1 and 0 both keep the active code). */
int gasnetc_ibv_mtu_choose(int active_code, int64_t max_mtu_value);

/* ---- GASNET_IBV_PKEY ---------------------------------------------------------- */
/* Checks a GASNET_IBV_PKEY value (membership bit 0x8000 ignored; the rest
 * must be 2..0x7fff).  Returns the 15-bit key, or -1 with a reason in err. */
int gasnetc_ibv_pkey_check(int64_t value, char *err, size_t errlen);

/* Index in a port's P_Key table (n entries) of the 15-bit key `key`,
 * preferring a full-member entry (bit 0x8000 set); -1 if absent. */
int gasnetc_ibv_pkey_find(const uint16_t *table, int n, int key);

/* ---- GIDs ------------------------------------------------------------------- */
/* GID types, as the selection code sees them (mapped from the verbs enum). */
#define GASNETC_IBV_GID_TYPE_IB 0
#define GASNETC_IBV_GID_TYPE_ROCE_V1 1
#define GASNETC_IBV_GID_TYPE_ROCE_V2 2

/* How much we want a GID table entry for RoCE addressing: higher is better,
 * 0 = never (all-zero GID).  RoCE v2 beats v1; within a type, IPv4-mapped
 * (::ffff:a.b.c.d) beats global IPv6, which beats link-local (fe80::/10).
 * See core/ibv/ports/README, "GID choice". */
int gasnetc_ibv_gid_preference(const uint8_t gid[16], int gid_type);

/* Writes the GID in IPv6 text form (e.g. "fe80::1" or "::ffff:10.0.0.1"). */
void gasnetc_ibv_gid_format(const uint8_t gid[16], char *buf, size_t len);

/* "IB", "RoCEv1" or "RoCEv2". */
const char *gasnetc_ibv_gid_type_name(int gid_type);

#endif /* GASNETC_IBV_PORTS_PARSE_H */
