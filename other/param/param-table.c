/* other/param/param-table.c: params.def expanded into an array, plus the
 * small helpers that describe a row (type name, range text). */
#include "build-config.h"

/* Defaults that configure chooses (see the comment at the top of params.def). */
#define GASNETI_PARAM_DEFAULT_SPAWNER GASNETI_DEFAULT_SPAWNER
#define GASNETI_PARAM_DEFAULT_IBV_PORTS GASNETC_IBV_PORTS_DEFAULT

#include "other/param/param-table.h"

#include <stdio.h>

static const gasneti_param_row_t gasneti_param_rows[GASNETI_PARAM_COUNT] = {
#define GASNETI_PARAM(name, type, def, min, max, flags, doc) \
    GASNETI_PARAM_ROW_INIT(name, type, def, min, max, flags, doc),
#include "other/param/params.def"
#undef GASNETI_PARAM
};

const gasneti_param_row_t *gasneti_param_row(gasneti_param_id_t id)
{
    return &gasneti_param_rows[id];
}

const char *gasneti_param_type_name(gasneti_param_type_t type)
{
    switch (type) {
    case GASNETI_PT_INT: return "int";
    case GASNETI_PT_SSIZE: return "size or -1";
    case GASNETI_PT_SIZE: return "size";
    case GASNETI_PT_SIZE_K: return "size (KiB)";
    case GASNETI_PT_SIZE_M: return "size (MiB)";
    case GASNETI_PT_MEMFRAC: return "fraction or size";
    case GASNETI_PT_MEMSCOPE: return "fraction or size [/P or /H]";
    case GASNETI_PT_DOUBLE: return "number";
    case GASNETI_PT_BOOL: return "bool";
    case GASNETI_PT_STRING: return "string";
    }
    return "?";
}

char *gasneti_param_range_str(const gasneti_param_row_t *row, char *buf, size_t len)
{
    int has_min = row->min && row->min[0], has_max = row->max && row->max[0];
    if (!len) return buf;
    buf[0] = '\0';
    if (row->type == GASNETI_PT_BOOL || row->type == GASNETI_PT_STRING) return buf;
    if (has_min && has_max)
        snprintf(buf, len, "%s..%s", row->min, row->max);
    else if (has_min)
        snprintf(buf, len, ">= %s", row->min);
    else if (has_max)
        snprintf(buf, len, "<= %s", row->max);
    return buf;
}
