/* other/param/param-doc.c: gasnet-param-doc, prints the Markdown variable
 * reference of README.md from params.def.
 *
 *   other/param/gasnet-param-doc        the section body (between the markers)
 *
 * `make readme-params` puts the output between the README markers and
 * tests/unit/check-readme-params.sh fails when they differ.  The output must
 * not depend on how the tree was configured, so the two configure-chosen
 * defaults are shown as configure's own defaults (see params.def).
 */
#define GASNETI_PARAM_DEFAULT_SPAWNER "auto"
#define GASNETI_PARAM_DEFAULT_IBV_PORTS ""

#include "other/param/param-table.h"

#include <stdio.h>
#include <string.h>

/* The table with group headings (name == NULL, doc = title) in order. */
static const gasneti_param_row_t doc_rows[] = {
#define GASNETI_PARAM_GROUP(title) {NULL, GASNETI_PT_STRING, "", "", "", 0, title},
#define GASNETI_PARAM(name, type, def, min, max, flags, doc) \
    GASNETI_PARAM_ROW_INIT(name, type, def, min, max, flags, doc),
#include "other/param/params.def"
#undef GASNETI_PARAM
#undef GASNETI_PARAM_GROUP
};

/* Prints text for a Markdown table cell: '|' escaped, never empty. */
static void cell(const char *text)
{
    const char *p;
    if (!text || !*text) {
        fputs(" ", stdout);
        return;
    }
    for (p = text; *p; p++) {
        if (*p == '|') putchar('\\');
        putchar(*p);
    }
}

/* Code-formatted cell (backquotes), or the placeholder in italics. */
static void code_cell(const char *text, const char *placeholder)
{
    if (text && *text) {
        putchar('`');
        cell(text);
        putchar('`');
    } else if (placeholder) {
        printf("_%s_", placeholder);
    } else {
        cell("");
    }
}

static void print_row(const gasneti_param_row_t *row)
{
    char range[128];
    printf("| `%s` | %s | ", row->name, gasneti_param_type_name(row->type));
    code_cell(row->def, (row->flags & GASNETI_PF_INTERNAL) ? "set by launcher"
                        : row->type == GASNETI_PT_STRING ? "unset" : "computed");
    printf(" | ");
    code_cell(gasneti_param_range_str(row, range, sizeof range), NULL);
    printf(" | ");
    cell(row->doc);
    if (row->flags & GASNETI_PF_FAMILY) printf(" Per-process variants: `%s_<n>`.", row->name);
    printf(" |\n");
}

int main(int argc, char **argv)
{
    size_t i, n = sizeof doc_rows / sizeof doc_rows[0];
    int in_table = 0;
    (void)argv;
    if (argc > 1) {
        fprintf(stderr, "usage: gasnet-param-doc (no arguments): prints the Markdown "
                        "variable reference built from other/param/params.def\n");
        return 2;
    }
    printf("\n%d variables, generated from `other/param/params.def`. Sizes take K, M, G or T "
           "suffixes (powers of 1024); booleans take 1/0, yes/no, true/false or on/off. "
           "An invalid value stops the job at startup with a message naming the variable.\n",
           (int)GASNETI_PARAM_COUNT);
    for (i = 0; i < n; i++) {
        const gasneti_param_row_t *row = &doc_rows[i];
        if (!row->name) {
            printf("\n### %s\n\n", row->doc);
            in_table = 0;
            continue;
        }
        if (!in_table) {
            printf("| Variable | Type | Default | Range | Description |\n");
            printf("|---|---|---|---|---|\n");
            in_table = 1;
        }
        print_row(row);
    }
    printf("\n");
    return 0;
}
