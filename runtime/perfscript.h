/* perfscript.h: the text of `perf script` (samples with call chains)
 * folded into stacks by the rules of FlameGraph's stackcollapse-perf.pl,
 * as stdlib/perfscript.lua (the Lua face) documents them: a sample is a
 * header line ("comm [pid/]tid [cpu] time: [period] event:"), its frames
 * leaf first ("addr sym+off (module)"), a blank line; its stack is the
 * command, then the frames root first, its count the period (1 without
 * one). */
#ifndef LTAP_PERFSCRIPT_H
#define LTAP_PERFSCRIPT_H

#include "lines.h"

#include <stddef.h>

struct ltap_perfscript_opts {
	int pid, tid;       /* the command named comm-PID, comm-PID/TID */
	int addrs;          /* "[module <addr>]" for frames without a symbol */
	int kernel, jit;    /* "_[k]", "_[j]" after kernel and JIT frames */
	int srcline;        /* the source line under each frame appended */
	const char *event;  /* only samples of this event; NULL: the first seen */
};

struct ltap_perfscript_info {
	size_t lines;
	size_t unrecognized, first_unrecognized; /* lines that are no perf script, the first's number */
	char event[256];    /* the event kept ("" when none was seen; cut at 255 bytes) */
	char left_out[256]; /* the first other event seen, when the event was not chosen */
};

/* A sample: its stack's number (0, 1, ... in the order stacks first come),
 * the stack (len bytes) the first time it comes, NULL after, and the
 * sample's period (digits, NULL for 1). */
typedef int (*ltap_perfscript_fn)(void *ud, size_t id, const char *stack, size_t len, const char *period,
				  size_t plen);

/* Folds the lines of r, calling fn per sample in input order; stops at the
 * first non-zero return of fn and returns it. 0, or -errno. */
int ltap_perfscript_fold(struct ltap_lines *r, const struct ltap_perfscript_opts *o, ltap_perfscript_fn fn,
			 void *ud, struct ltap_perfscript_info *info);

#endif
