/* contrib/launcher/setup.h: the pure pieces of gasnetrun_ibv's ssh and
 * mpi/pmi spawners (setup.c): process layout over hosts, the spawn tree,
 * shell-like word splitting, MPIRUN_CMD-style templates, host lists, and
 * the SETUP message a parent launcher sends to a node.  No I/O except
 * reading a node file; no globals; every function is thread-safe.
 * Unit-tested by tests/spawn/test-spawn-units.
 */
#ifndef GASNETRUN_SETUP_H
#define GASNETRUN_SETUP_H

#include <stddef.h>
#include <stdint.h>

/* Blocked layout: host h of nhosts runs ranks [*first, *first + *count);
 * the first nranks % nhosts hosts get one rank more than the others. */
void gasnetrun_layout(uint32_t nranks, uint32_t nhosts, uint32_t h, uint32_t *first,
                      uint32_t *count);

/* The spawn tree: splits hosts [start, end) into at most `degree` (0 = no
 * limit) contiguous, balanced chunks [lo[i], hi[i]).  The node started on
 * host lo[i] starts the rest of its chunk, [lo[i] + 1, hi[i]), the same
 * way, so the depth is about log_degree(hosts).  lo and hi hold end - start
 * entries.  Returns the number of chunks. */
uint32_t gasnetrun_tree_split(uint32_t start, uint32_t end, uint32_t degree, uint32_t *lo,
                              uint32_t *hi);

/* Splits text into words like a POSIX shell (no expansions): blanks
 * separate, '...' is literal, "..." keeps blanks and honours \" \\ \$ \`,
 * a backslash outside quotes escapes the next character.  Sets *words to a
 * malloc'd NULL-terminated array (free with gasnetrun_words_free).  Returns
 * the number of words, or -1 with a message in err (unbalanced quote). */
int gasnetrun_split_words(const char *text, char ***words, char *err, size_t errlen);

/* Frees an array from gasnetrun_split_words or gasnetrun_expand_template. */
void gasnetrun_words_free(char **words);

/* Values of an MPIRUN_CMD-style template.  prog (the program as launched,
 * possibly several words such as "env VAR=x prog") and args are
 * NULL-terminated; nodefile may be NULL (then %H is an error). */
typedef struct {
    long nprocs, nnodes;
    char *const *prog;
    char *const *args;
    const char *nodefile;
    const char *cwd;
} gasnetrun_template_t;

/* Expands a template into an argv: words split as above; %N, %M, %H, %D and
 * %% are replaced anywhere in a word; %P, %A and %C (= %P %A) must be whole
 * words and become zero or more words.  Returns the word count, or -1 with
 * a message in err. */
int gasnetrun_expand_template(const char *tmpl, const gasnetrun_template_t *v, char ***argv,
                              char *err, size_t errlen);

/* Host list from GASNET_SSH_SERVERS-style text (commas or blanks) appended
 * to *hosts and *n (a malloc'd array of malloc'd names). */
int gasnetrun_hosts_parse(const char *text, char ***hosts, uint32_t *n, char *err, size_t errlen);

/* Host list from a node file: one host per line, '#' starts a comment,
 * blank lines ignored; only the first word of a line counts.  Returns 0,
 * or -1 with a message in err. */
int gasnetrun_hosts_read(const char *path, char ***hosts, uint32_t *n, char *err, size_t errlen);

/* 0 if host can be given to a remote shell as a host name; else -1 with
 * the reason in err (empty, starts with '-' so it would be an option, or a
 * character outside letters, digits and ._-:@[]%). */
int gasnetrun_host_check(const char *host, char *err, size_t errlen);

/* Host list from a Slurm node list ("a,b[1-3,07-08],c"; brackets expand to
 * the numbers, zero padding as written) appended to *hosts and *n.  Returns
 * 0, or -1 with a message in err.  Each of the host-list readers above
 * refuses a list of more than GASNETRUN_MAX_HOSTS hosts (a product of
 * brackets such as n[0-9999]r[0-9999] names 10^8) and says so when memory
 * runs out, rather than return fewer hosts; they append only to lists
 * they built (they grow the array by doubling).  The fuzz build lowers the
 * limit (tests/fuzz/run-fuzz.sh): a million hosts per input would starve it. */
#ifndef GASNETRUN_MAX_HOSTS
#define GASNETRUN_MAX_HOSTS (1u << 20)
#endif
int gasnetrun_hosts_slurm(const char *list, char ***hosts, uint32_t *n, char *err, size_t errlen);

/* Most ranks a SETUP may describe (GASNETRUN_SSH_MAX_PROCS, launcher.h). */
#define GASNETRUN_SETUP_MAX_RANKS (1L << 24)

/* What a node needs to know (the SETUP frame). */
typedef struct {
    char *jobid;
    uint32_t nranks, nhosts;   /* the whole job */
    uint32_t host_lo, host_hi; /* this node runs on host_lo and starts (host_lo, host_hi) */
    uint32_t degree;           /* GASNET_SSH_OUT_DEGREE */
    int verbose, keep;
    char *launcher;            /* gasnetrun_ibv's absolute path (same on every host) */
    char *cwd;                 /* working directory of the ranks */
    char **hosts;              /* nhosts slots; [host_lo, host_hi) are set */
    char **ssh_argv;           /* remote shell command and options, NULL-terminated */
    char **prog_argv;          /* the program and its arguments, NULL-terminated */
    char **env;                /* "NAME=value" to set in the ranks, NULL-terminated */
} gasnetrun_setup_t;

/* Encodes s (only hosts [host_lo, host_hi)) as a sequence of "key=value\0"
 * strings ending with "end=".  Returns a malloc'd block and sets *len, or
 * NULL (no memory). */
unsigned char *gasnetrun_setup_pack(const gasnetrun_setup_t *s, size_t *len);

/* Decodes a SETUP payload into *s (everything malloc'd).  Returns 0, or -1
 * with a message in err (malformed, unknown key, out of range). */
int gasnetrun_setup_unpack(const unsigned char *p, size_t len, gasnetrun_setup_t *s, char *err,
                           size_t errlen);

/* Frees what _unpack allocated (also fine on a zeroed struct). */
void gasnetrun_setup_free(gasnetrun_setup_t *s);

#endif /* GASNETRUN_SETUP_H */
