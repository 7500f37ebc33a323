/* contrib/launcher/setup.c: layout, spawn tree, word splitting, command
 * templates, host lists and the SETUP message (setup.h).  Pure functions;
 * unit-tested by tests/spawn/test-spawn-units. */
#include "contrib/launcher/setup.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void seterr(char *err, size_t len, const char *fmt, ...)
    __attribute__((__format__(__printf__, 3, 4)));
static void seterr(char *err, size_t len, const char *fmt, ...)
{
    if (!err || !len) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, len, fmt, ap);
    va_end(ap);
    /* One line: a control character quoted from the input shows as '?'. */
    for (char *c = err; *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f) *c = '?';
}

/* ---- layout and tree --------------------------------------------------------- */
void gasnetrun_layout(uint32_t nranks, uint32_t nhosts, uint32_t h, uint32_t *first,
                      uint32_t *count)
{
    uint32_t base = nranks / nhosts, extra = nranks % nhosts;
    *count = base + (h < extra);
    *first = h * base + (h < extra ? h : extra);
}

uint32_t gasnetrun_tree_split(uint32_t start, uint32_t end, uint32_t degree, uint32_t *lo,
                              uint32_t *hi)
{
    if (end <= start) return 0;
    uint32_t k = end - start;
    uint32_t n = degree == 0 || degree > k ? k : degree;
    uint32_t at = start;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t size = k / n + (i < k % n);
        lo[i] = at;
        hi[i] = at + size;
        at += size;
    }
    return n;
}

/* ---- words ------------------------------------------------------------------- */
typedef struct {
    char **v;
    size_t n, cap;
} wordvec_t;

static int wv_push(wordvec_t *w, char *s)
{
    if (!s) return -1;
    if (w->n + 2 > w->cap) {
        size_t cap = w->cap ? 2 * w->cap : 8;
        char **v = realloc(w->v, cap * sizeof(*v));
        if (!v) {
            free(s);
            return -1;
        }
        w->v = v;
        w->cap = cap;
    }
    w->v[w->n++] = s;
    w->v[w->n] = NULL;
    return 0;
}

/* The NULL-terminated array (an empty one when nothing was pushed). */
static char **wv_finish(wordvec_t *w)
{
    if (!w->v) w->v = calloc(1, sizeof(char *));
    return w->v;
}

void gasnetrun_words_free(char **words)
{
    for (size_t i = 0; words && words[i]; i++) free(words[i]);
    free(words);
}

int gasnetrun_split_words(const char *text, char ***words, char *err, size_t errlen)
{
    wordvec_t w = {0};
    size_t len = text ? strlen(text) : 0;
    char *cur = malloc(len + 1);
    if (!cur) {
        seterr(err, errlen, "out of memory");
        return -1;
    }
    size_t c = 0;
    int inword = 0;
    for (size_t i = 0; i < len; i++) {
        char ch = text[i];
        if (ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r') {
            if (inword && wv_push(&w, strndup(cur, c)) != 0) goto nomem;
            inword = 0;
            c = 0;
            continue;
        }
        inword = 1;
        if (ch == '\\') {
            if (i + 1 < len) cur[c++] = text[++i];
            continue;
        }
        if (ch == '\'') {
            const char *end = strchr(text + i + 1, '\'');
            if (!end) {
                seterr(err, errlen, "unbalanced ' in \"%s\"", text);
                goto fail;
            }
            size_t n = (size_t)(end - (text + i + 1));
            memcpy(cur + c, text + i + 1, n);
            c += n;
            i += n + 1;
            continue;
        }
        if (ch == '"') {
            size_t j = i + 1;
            for (; j < len && text[j] != '"'; j++) {
                if (text[j] == '\\' && j + 1 < len && strchr("\"\\$`", text[j + 1])) j++;
                cur[c++] = text[j];
            }
            if (j >= len) {
                seterr(err, errlen, "unbalanced \" in \"%s\"", text);
                goto fail;
            }
            i = j;
            continue;
        }
        cur[c++] = ch;
    }
    if (inword && wv_push(&w, strndup(cur, c)) != 0) goto nomem;
    free(cur);
    *words = wv_finish(&w);
    return *words ? (int)w.n : -1;
nomem:
    seterr(err, errlen, "out of memory");
fail:
    free(cur);
    gasnetrun_words_free(w.v);
    return -1;
}

/* ---- templates --------------------------------------------------------------- */
static int push_all(wordvec_t *w, char *const *list)
{
    for (size_t i = 0; list && list[i]; i++)
        if (wv_push(w, strdup(list[i])) != 0) return -1;
    return 0;
}

int gasnetrun_expand_template(const char *tmpl, const gasnetrun_template_t *v, char ***argv,
                              char *err, size_t errlen)
{
    char **words = NULL;
    if (gasnetrun_split_words(tmpl, &words, err, errlen) < 0) return -1;
    wordvec_t out = {0};
    for (size_t i = 0; words[i]; i++) {
        const char *wd = words[i];
        int rc = 0;
        if (!strcmp(wd, "%C")) {
            rc = push_all(&out, v->prog) | push_all(&out, v->args);
        } else if (!strcmp(wd, "%P")) {
            rc = push_all(&out, v->prog);
        } else if (!strcmp(wd, "%A")) {
            rc = push_all(&out, v->args);
        } else {
            /* In-word substitutions. */
            char num[2][24];
            snprintf(num[0], sizeof(num[0]), "%ld", v->nprocs);
            snprintf(num[1], sizeof(num[1]), "%ld", v->nnodes);
            size_t cap = strlen(wd) + 1;
            for (const char *p = wd; *p; p++)
                if (*p == '%')
                    cap += strlen(num[0]) + strlen(num[1]) + (v->cwd ? strlen(v->cwd) : 1) +
                           (v->nodefile ? strlen(v->nodefile) : 0);
            char *s = malloc(cap), *o = s;
            if (!s) goto nomem;
            for (const char *p = wd; *p; p++) {
                if (*p != '%') {
                    *o++ = *p;
                    continue;
                }
                char k = p[1];
                const char *val = NULL;
                switch (k) {
                case 'N': val = num[0]; break;
                case 'M': val = num[1]; break;
                case '%': val = "%"; break;
                case 'D': val = v->cwd ? v->cwd : "."; break;
                case 'H':
                    val = v->nodefile;
                    if (!val) {
                        seterr(err, errlen, "'%s' uses %%H but GASNET_NODEFILE is not set", tmpl);
                        free(s);
                        goto fail;
                    }
                    break;
                case 'C':
                case 'P':
                case 'A':
                    seterr(err, errlen, "'%s': %%%c must be a word of its own", tmpl, k);
                    free(s);
                    goto fail;
                default:
                    seterr(err, errlen, "'%s': unknown substitution %%%c (known: %%N %%M %%P %%A "
                                        "%%C %%H %%D %%%%)", tmpl, k ? k : ' ');
                    free(s);
                    goto fail;
                }
                size_t vl = strlen(val);
                memcpy(o, val, vl);
                o += vl;
                p++;
            }
            *o = '\0';
            rc = wv_push(&out, s);
        }
        if (rc != 0) goto nomem;
    }
    gasnetrun_words_free(words);
    if (out.n == 0) {
        seterr(err, errlen, "'%s' expands to no command", tmpl);
        gasnetrun_words_free(out.v);
        return -1;
    }
    *argv = out.v;
    return (int)out.n;
nomem:
    seterr(err, errlen, "out of memory");
fail:
    gasnetrun_words_free(words);
    gasnetrun_words_free(out.v);
    return -1;
}

/* ---- hosts ------------------------------------------------------------------- */
/* Appends the first len bytes of name; -1 with the reason in err when the
 * list would pass GASNETRUN_MAX_HOSTS or memory runs out. */
static int host_add(char ***hosts, uint32_t *n, const char *name, size_t len, char *err,
                    size_t errlen)
{
    if (*n >= GASNETRUN_MAX_HOSTS) {
        seterr(err, errlen, "the host list names more than %u hosts: give a shorter one",
               GASNETRUN_MAX_HOSTS);
        return -1;
    }
    char **v = *hosts;
    if ((*n & (*n - 1)) == 0) { /* 0, 1, 2, 4 ...: room doubles */
        v = realloc(*hosts, (*n ? 2 * (size_t)*n : 1) * sizeof(char *));
        if (!v) goto nomem;
        *hosts = v;
    }
    if (!(v[*n] = strndup(name, len))) goto nomem;
    (*n)++;
    return 0;
nomem:
    seterr(err, errlen, "out of memory after %u hosts", *n);
    return -1;
}

int gasnetrun_hosts_parse(const char *text, char ***hosts, uint32_t *n, char *err, size_t errlen)
{
    const char *seps = ", \t\r\n";
    for (const char *p = text; p && *p;) {
        p += strspn(p, seps);
        size_t len = strcspn(p, seps);
        if (len && host_add(hosts, n, p, len, err, errlen)) return -1;
        p += len;
    }
    return 0;
}

int gasnetrun_hosts_read(const char *path, char ***hosts, uint32_t *n, char *err, size_t errlen)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        seterr(err, errlen, "cannot read host file '%s': %s", path, strerror(errno));
        return -1;
    }
    char line[4096];
    while (fgets(line, sizeof(line), f)) {
        char *hash = strchr(line, '#');
        if (hash) *hash = '\0';
        char *p = line;
        while (*p && isspace((unsigned char)*p)) p++;
        size_t len = 0;
        while (p[len] && !isspace((unsigned char)p[len])) len++;
        if (len && host_add(hosts, n, p, len, err, errlen)) {
            fclose(f);
            return -1;
        }
    }
    fclose(f);
    return 0;
}

int gasnetrun_host_check(const char *host, char *err, size_t errlen)
{
    if (!*host || host[0] == '-') {
        seterr(err, errlen, "'%s' is not a host name (it %s)", host,
               *host ? "starts with '-' and would be read as an option of the remote shell"
                     : "is empty");
        return -1;
    }
    for (const char *c = host; *c; c++) {
        if (isalnum((unsigned char)*c) || strchr("._-:@[]%", *c)) continue;
        seterr(err, errlen, "'%s' is not a host name (character '%c' is not allowed)", host, *c);
        return -1;
    }
    return 0;
}

/* Appends prefix + every value of one "[lo-hi,n,...]" range list (zero
 * padding kept as written) + the expansion of rest (which may hold further
 * brackets). */
static int slurm_expand(const char *prefix, size_t plen, const char *text, char ***hosts,
                        uint32_t *n, char *err, size_t errlen);

/* Bracket groups one word may hold ("rack[1-4]node[01-16]" has two): each
 * group multiplies the work of the ones before it. */
#define SLURM_MAX_GROUPS 16

static int slurm_one(const char *word, size_t len, char ***hosts, uint32_t *n, char *err,
                     size_t errlen)
{
    size_t groups = 0;
    for (size_t i = 0; i < len; i++) groups += word[i] == '[';
    if (groups > SLURM_MAX_GROUPS) {
        seterr(err, errlen, "'%.*s' has %zu bracket groups, more than %d", (int)len, word, groups,
               SLURM_MAX_GROUPS);
        return -1;
    }
    char *w = strndup(word, len);
    if (!w) return -1;
    int rc = slurm_expand("", 0, w, hosts, n, err, errlen);
    free(w);
    return rc;
}

static int slurm_expand(const char *prefix, size_t plen, const char *text, char ***hosts,
                        uint32_t *n, char *err, size_t errlen)
{
    const char *open = strchr(text, '[');
    if (!open) {
        size_t tl = strlen(text);
        char *h = malloc(plen + tl + 1);
        if (!h) return -1;
        memcpy(h, prefix, plen);
        memcpy(h + plen, text, tl + 1);
        int rc = host_add(hosts, n, h, plen + tl, err, errlen);
        free(h);
        return rc;
    }
    const char *close = strchr(open, ']');
    if (!close) {
        seterr(err, errlen, "unbalanced '[' in '%s'", text);
        return -1;
    }
    if (close == open + 1) { /* nothing to expand: no host, while the groups before it multiply */
        seterr(err, errlen, "empty brackets in '%s'", text);
        return -1;
    }
    size_t head = (size_t)(open - text);
    for (const char *p = open + 1; p < close;) {
        size_t rl = strcspn(p, ",]");
        char *dash = memchr(p, '-', rl), *end;
        /* Numbers of at most 18 digits: no overflow, and the zero-padded
         * text fits num below. */
        unsigned long lo = strtoul(p, &end, 10), hi = lo;
        int ok = isdigit((unsigned char)*p) && end - p <= 18 &&
                 (dash ? end == dash : end == p + rl);
        if (ok && dash) {
            hi = strtoul(dash + 1, &end, 10);
            ok = isdigit((unsigned char)dash[1]) && end - (dash + 1) <= 18 && end == p + rl &&
                 hi >= lo && hi - lo < 65536;
        }
        if (!ok) {
            seterr(err, errlen, "bad range '%.*s' in '%s'", (int)rl, p, text);
            return -1;
        }
        int width = (int)(dash ? (size_t)(dash - p) : rl);
        for (unsigned long v = lo; v <= hi; v++) {
            char num[32];
            int nl = snprintf(num, sizeof(num), "%0*lu", width, v);
            size_t cap = plen + head + (size_t)nl + 1;
            char *pre = malloc(cap);
            if (!pre) return -1;
            memcpy(pre, prefix, plen);
            memcpy(pre + plen, text, head);
            memcpy(pre + plen + head, num, (size_t)nl);
            int rc = slurm_expand(pre, cap - 1, close + 1, hosts, n, err, errlen);
            free(pre);
            if (rc != 0) return rc;
        }
        p += rl + (p[rl] == ',');
    }
    return 0;
}

int gasnetrun_hosts_slurm(const char *list, char ***hosts, uint32_t *n, char *err, size_t errlen)
{
    /* Words are separated by commas outside brackets. */
    for (const char *p = list; p && *p;) {
        size_t len = 0;
        int depth = 0;
        while (p[len] && (depth || p[len] != ',')) {
            depth += p[len] == '[' ? 1 : p[len] == ']' ? -1 : 0;
            if (depth < 0) {
                seterr(err, errlen, "unbalanced ']' in '%.*s'", (int)len + 1, p);
                return -1;
            }
            len++;
        }
        if (len && slurm_one(p, len, hosts, n, err, errlen) != 0) {
            if (!err[0]) seterr(err, errlen, "out of memory");
            return -1;
        }
        p += len + (p[len] == ',');
    }
    return 0;
}

/* ---- SETUP ------------------------------------------------------------------- */
typedef struct {
    unsigned char *p;
    size_t len, cap;
    int bad;
} sbuf_t;

static void sb_add(sbuf_t *b, const char *key, const char *val)
{
    size_t kl = strlen(key), vl = strlen(val ? val : "");
    if (b->bad) return;
    if (b->len + kl + vl + 2 > b->cap) {
        size_t cap = (b->cap ? 2 * b->cap : 1024) + kl + vl + 2;
        unsigned char *p = realloc(b->p, cap);
        if (!p) {
            b->bad = 1;
            return;
        }
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->len, key, kl);
    b->p[b->len + kl] = '=';
    memcpy(b->p + b->len + kl + 1, val ? val : "", vl);
    b->p[b->len + kl + 1 + vl] = '\0';
    b->len += kl + vl + 2;
}

static void sb_num(sbuf_t *b, const char *key, unsigned long v)
{
    char num[32];
    snprintf(num, sizeof(num), "%lu", v);
    sb_add(b, key, num);
}

unsigned char *gasnetrun_setup_pack(const gasnetrun_setup_t *s, size_t *len)
{
    sbuf_t b = {0};
    sb_add(&b, "version", "1");
    sb_add(&b, "jobid", s->jobid);
    sb_num(&b, "nranks", s->nranks);
    sb_num(&b, "nhosts", s->nhosts);
    sb_num(&b, "host_lo", s->host_lo);
    sb_num(&b, "host_hi", s->host_hi);
    sb_num(&b, "degree", s->degree);
    sb_num(&b, "verbose", s->verbose != 0);
    sb_num(&b, "keep", s->keep != 0);
    sb_add(&b, "launcher", s->launcher);
    sb_add(&b, "cwd", s->cwd);
    for (uint32_t h = s->host_lo; h < s->host_hi; h++) sb_add(&b, "host", s->hosts[h]);
    for (size_t i = 0; s->ssh_argv && s->ssh_argv[i]; i++) sb_add(&b, "ssh", s->ssh_argv[i]);
    for (size_t i = 0; s->prog_argv && s->prog_argv[i]; i++) sb_add(&b, "arg", s->prog_argv[i]);
    for (size_t i = 0; s->env && s->env[i]; i++) sb_add(&b, "env", s->env[i]);
    sb_add(&b, "end", "");
    if (b.bad) {
        free(b.p);
        return NULL;
    }
    *len = b.len;
    return b.p;
}

void gasnetrun_setup_free(gasnetrun_setup_t *s)
{
    free(s->jobid);
    free(s->launcher);
    free(s->cwd);
    for (uint32_t h = 0; s->hosts && h < s->nhosts; h++) free(s->hosts[h]);
    free(s->hosts);
    gasnetrun_words_free(s->ssh_argv);
    gasnetrun_words_free(s->prog_argv);
    gasnetrun_words_free(s->env);
    memset(s, 0, sizeof(*s));
}

static int parse_u32(const char *v, uint32_t *out)
{
    char *end;
    errno = 0;
    unsigned long x = strtoul(v, &end, 10);
    if (!*v || *end || errno || x > UINT32_MAX) return -1;
    *out = (uint32_t)x;
    return 0;
}

/* A flag: exactly "0" or "1".  Returns 1 on error. */
static int parse_flag(const char *v, int *out)
{
    if ((v[0] != '0' && v[0] != '1') || v[1]) return 1;
    *out = v[0] - '0';
    return 0;
}

/* A string entry given once: a second one (which would leak the first) is
 * malformed.  Returns 1 on error. */
static int set_once(char **dst, const char *v)
{
    return *dst != NULL || (*dst = strdup(v)) == NULL;
}

int gasnetrun_setup_unpack(const unsigned char *p, size_t len, gasnetrun_setup_t *s, char *err,
                           size_t errlen)
{
    memset(s, 0, sizeof(*s));
    wordvec_t ssh = {0}, arg = {0}, env = {0}, host = {0};
    uint32_t version = 0;
    int ended = 0;
    if (len == 0 || p[len - 1] != '\0') {
        seterr(err, errlen, "SETUP is not a list of NUL-terminated strings");
        return -1;
    }
    for (size_t off = 0; off < len;) {
        const char *kv = (const char *)p + off;
        off += strlen(kv) + 1;
        const char *eq = strchr(kv, '=');
        if (!eq) {
            seterr(err, errlen, "SETUP entry without '=': %.40s", kv);
            goto fail;
        }
        size_t kl = (size_t)(eq - kv);
        const char *v = eq + 1;
#define KEY(k) (kl == strlen(k) && !strncmp(kv, k, kl))
        int bad = 0;
        if (ended) {
            seterr(err, errlen, "SETUP continues after its end");
            goto fail;
        }
        if (KEY("end")) ended = 1;
        else if (KEY("version")) bad = parse_u32(v, &version);
        else if (KEY("jobid")) bad = set_once(&s->jobid, v);
        else if (KEY("nranks")) bad = parse_u32(v, &s->nranks);
        else if (KEY("nhosts")) bad = parse_u32(v, &s->nhosts);
        else if (KEY("host_lo")) bad = parse_u32(v, &s->host_lo);
        else if (KEY("host_hi")) bad = parse_u32(v, &s->host_hi);
        else if (KEY("degree")) bad = parse_u32(v, &s->degree);
        else if (KEY("verbose")) bad = parse_flag(v, &s->verbose);
        else if (KEY("keep")) bad = parse_flag(v, &s->keep);
        else if (KEY("launcher")) bad = set_once(&s->launcher, v);
        else if (KEY("cwd")) bad = set_once(&s->cwd, v);
        else if (KEY("host")) bad = wv_push(&host, strdup(v));
        else if (KEY("ssh")) bad = wv_push(&ssh, strdup(v));
        else if (KEY("arg")) bad = wv_push(&arg, strdup(v));
        else if (KEY("env")) bad = wv_push(&env, strdup(v));
        else {
            seterr(err, errlen, "SETUP has an unknown entry '%.*s' (a different gasnetrun_ibv "
                                "version on this host?)", (int)kl, kv);
            goto fail;
        }
#undef KEY
        if (bad) {
            seterr(err, errlen, "SETUP entry '%.60s' is malformed", kv);
            goto fail;
        }
    }
    if (!ended) {
        seterr(err, errlen, "SETUP is truncated (no end entry)");
        goto fail;
    }
    if (version != 1) {
        seterr(err, errlen, "SETUP version %u, expected 1 (a different gasnetrun_ibv version "
                            "on this host?)", (unsigned)version);
        goto fail;
    }
    /* nranks <= GASNETRUN_SETUP_MAX_RANKS also bounds the hosts array. */
    if (!s->jobid || !s->launcher || !s->cwd || !arg.n || s->nhosts == 0 ||
        s->nranks < s->nhosts || s->nranks > GASNETRUN_SETUP_MAX_RANKS || s->host_lo >= s->host_hi || s->host_hi > s->nhosts ||
        host.n != s->host_hi - s->host_lo) {
        seterr(err, errlen, "SETUP is incomplete or inconsistent (%u ranks, %u hosts, hosts "
                            "%u..%u, %zu names)", (unsigned)s->nranks, (unsigned)s->nhosts,
               (unsigned)s->host_lo, (unsigned)s->host_hi, host.n);
        goto fail;
    }
    s->hosts = calloc(s->nhosts, sizeof(char *));
    if (!s->hosts) {
        seterr(err, errlen, "out of memory");
        goto fail;
    }
    for (uint32_t h = s->host_lo; h < s->host_hi; h++) {
        s->hosts[h] = host.v[h - s->host_lo];
        host.v[h - s->host_lo] = NULL;
    }
    free(host.v);
    s->ssh_argv = wv_finish(&ssh);
    s->prog_argv = wv_finish(&arg);
    s->env = wv_finish(&env);
    if (!s->ssh_argv[0]) {
        seterr(err, errlen, "SETUP names no remote shell command");
        gasnetrun_setup_free(s);
        return -1;
    }
    return 0;
fail:
    for (size_t i = 0; i < host.n; i++) free(host.v[i]);
    free(host.v);
    gasnetrun_words_free(ssh.v);
    gasnetrun_words_free(arg.v);
    gasnetrun_words_free(env.v);
    gasnetrun_setup_free(s);
    return -1;
}
