/* stackcount.h: samples counted per distinct stack, (command, frames) ->
 * count, with frames as symbols.c's ltap_frame: the same code run by two
 * processes is one frame, so a profile of many short-lived processes keeps
 * few entries, and each distinct stack is named once, when it is shown,
 * instead of once per sample.
 *
 * Memory comes from an allocator with lua_Alloc's contract, so a script's
 * stack counts are held to its memory limit. */
#ifndef LTAP_STACKCOUNT_H
#define LTAP_STACKCOUNT_H

#include "alloc.h"
#include "symbols.h"

#include <stddef.h>
#include <stdint.h>

struct ltap_stackcount;

struct ltap_stackcount_entry {
	const char *comm; /* not 0-terminated: commlen bytes */
	size_t commlen;
	int n;            /* frames, leaf first */
	const struct ltap_frame *frames;
	uint64_t leaf_raw; /* the leaf's address in the first sample counted */
	uint64_t count;
	/* a joined stack (ltap_stackcount_join): a blocked task's stack and the
	 * stack of the task that woke it, two entries of the same count (comm
	 * is the blocked one's, n 0); NULL for a stack of its own */
	const struct ltap_stackcount_entry *blocked, *waker;
};

/* NULL when the allocator refuses. */
struct ltap_stackcount *ltap_stackcount_new(ltap_alloc_fn alloc, void *ud);
void ltap_stackcount_free(struct ltap_stackcount *sc);

/* Adds count samples of frames[0..n) (leaf first; leaf_raw: frames[0]'s
 * address) run by comm. 0, or -ENOMEM (nothing counted). */
int ltap_stackcount_add(struct ltap_stackcount *sc, const char *comm, size_t commlen, const struct ltap_frame *frames,
			int n, uint64_t leaf_raw, uint64_t count);

/* A weight known after the event (off-CPU time, known when the blocked
 * task runs again): the stack is kept now, its count added later. intern
 * gives the key of the stack (the entry, made with a count of 0 if new):
 * 0 or more, or -ENOMEM. add_at adds count to the entry of a key; join adds
 * count to the joined stack of two keys (blocked, waker), an entry of its
 * own. 0, or -ENOMEM (nothing counted). */
long ltap_stackcount_intern(struct ltap_stackcount *sc, const char *comm, size_t commlen,
			    const struct ltap_frame *frames, int n, uint64_t leaf_raw);
void ltap_stackcount_add_at(struct ltap_stackcount *sc, long key, uint64_t count);
int ltap_stackcount_join(struct ltap_stackcount *sc, long blocked, long waker, uint64_t count);
/* The number of keys given so far: keys are 0 .. keys - 1. */
size_t ltap_stackcount_keys(const struct ltap_stackcount *sc);

/* The entries with a count, in the order they were first counted (or
 * interned): *it starts at 0. NULL after the last. */
const struct ltap_stackcount_entry *ltap_stackcount_next(const struct ltap_stackcount *sc, size_t *it);
size_t ltap_stackcount_size(const struct ltap_stackcount *sc);  /* distinct stacks with a count */
uint64_t ltap_stackcount_total(const struct ltap_stackcount *sc); /* samples */

#endif
