/* other/param/param-table.h: the rows of params.def as data.
 *
 * For the loader (param.c), the README generator (param-doc.c) and the unit
 * tests, which walk the table.  Not used by the rest of the library: it goes
 * through the accessors in param.h.
 */
#ifndef GASNETI_PARAM_TABLE_H
#define GASNETI_PARAM_TABLE_H

#include "other/param/param.h"

typedef struct {
    const char *name;          /* "GASNET_AM_CREDITS_PP"; NULL for a group heading */
    gasneti_param_type_t type;
    const char *def;           /* default text; "" = unset/computed */
    const char *min, *max;     /* limits as text; "" = unbounded */
    unsigned flags;            /* GASNETI_PF_* */
    const char *doc;           /* one line; for a group heading, its title */
} gasneti_param_row_t;

/* Initializer of one row from the params.def columns. */
#define GASNETI_PARAM_ROW_INIT(name, type, def, min, max, flags, doc) \
    {#name, type, def, min, max, flags, doc}

/* The row of a parameter (never NULL for a valid id).  Thread-safe. */
const gasneti_param_row_t *gasneti_param_row(gasneti_param_id_t id);

/* Short name of a type for messages and the README ("int", "size", ...). */
const char *gasneti_param_type_name(gasneti_param_type_t type);

/* Writes the allowed range of a row as text ("1..256", ">= 0", "<= 7") into
 * buf; empty when unbounded or not applicable.  Returns buf. */
char *gasneti_param_range_str(const gasneti_param_row_t *row, char *buf, size_t len);

#endif /* GASNETI_PARAM_TABLE_H */
