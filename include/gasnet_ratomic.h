/* gasnet_ratomic.h: GASNet-EX remote atomics (atomic domains).
 *
 * The data-type and operation codes (GEX_DT_*, GEX_OP_*, GEX_OP_TO_FETCHING,
 * GEX_OP_TO_NONFETCHING) are in gasnet_fwd.h.  Supported: GEX_DT_I32, U32,
 * I64, U64, FLT, DBL with every built-in operation (bitwise ones for
 * integers only); GEX_OP_USER / GEX_DT_USER are not.
 */
#ifndef GASNET_RATOMIC_H
#define GASNET_RATOMIC_H

#include <gasnetex.h>

GASNETI_BEGIN_EXTERNC

/* Collective over tm: creates a domain for type dt and the operations in
 * ops (a mask of GEX_OP_*). */
extern void gex_AD_Create(gex_AD_t *ad_p, gex_TM_t tm, gex_DT_t dt, gex_OP_t ops,
                          gex_Flags_t flags);
/* Collective: destroys a domain once every member stopped using it. */
extern void gex_AD_Destroy(gex_AD_t ad);
extern gex_Flags_t gex_AD_QueryFlags(gex_AD_t ad);
extern gex_TM_t gex_AD_QueryTM(gex_AD_t ad);
extern gex_DT_t gex_AD_QueryDT(gex_AD_t ad);
extern gex_OP_t gex_AD_QueryOps(gex_AD_t ad);
extern void gex_AD_SetCData(gex_AD_t ad, const void *val);
extern void *gex_AD_QueryCData(gex_AD_t ad);

/* Operation opcode on the T at (tgt_rank, tgt_addr): fetching operations
 * store the previous value in *result_p when the operation completes
 * (the returned event, or the NBI set's GEX_EC_RMW category). */
#define GASNETI_AD_DECL(TY, T)                                                                  \
    extern gex_Event_t gex_AD_OpNB_##TY(gex_AD_t ad, T *result_p, gex_Rank_t tgt_rank,          \
                                        void *tgt_addr, gex_OP_t opcode, T operand1, T operand2, \
                                        gex_Flags_t flags);                                     \
    extern int gex_AD_OpNBI_##TY(gex_AD_t ad, T *result_p, gex_Rank_t tgt_rank, void *tgt_addr,  \
                                 gex_OP_t opcode, T operand1, T operand2, gex_Flags_t flags);
GASNETI_AD_DECL(I32, int32_t)
GASNETI_AD_DECL(U32, uint32_t)
GASNETI_AD_DECL(I64, int64_t)
GASNETI_AD_DECL(U64, uint64_t)
GASNETI_AD_DECL(FLT, float)
GASNETI_AD_DECL(DBL, double)
#undef GASNETI_AD_DECL

GASNETI_END_EXTERNC

#endif /* GASNET_RATOMIC_H */
