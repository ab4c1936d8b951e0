/* blocked.h: the tasks blocked now, for off-CPU time: what is known when a
 * task leaves the CPU (when, its stack's key) and when something wakes it
 * (the waker's stack's key), until it runs again and the time is known.
 * Bounded: a task that would go over the limit is not kept, and counted. */
#ifndef LTAP_BLOCKED_H
#define LTAP_BLOCKED_H

#include <stddef.h>
#include <stdint.h>

struct ltap_blocked;

struct ltap_blocked_task {
	uint64_t since; /* ns, when it left the CPU */
	long key;       /* its stack (a stack count's key) */
	long waker;     /* the stack of what woke it, or -1 */
};

/* At most max tasks at once (rounded up to a power of two, at least 64).
 * NULL when out of memory. */
struct ltap_blocked *ltap_blocked_new(size_t max);
void ltap_blocked_free(struct ltap_blocked *b);

/* tid left the CPU blocked at since, its stack key (a later block of the
 * same task, never switched back in, replaces it). 0, or -ENOSPC when the
 * table is full (counted). */
int ltap_blocked_out(struct ltap_blocked *b, int tid, uint64_t since, long key);
/* Something woke tid (blocked or not): keeps the waker's key on it; 0 when
 * tid is blocked, -ENOENT otherwise. */
int ltap_blocked_woken(struct ltap_blocked *b, int tid, long waker);
/* Whether tid is blocked (a waker's stack is worth taking). */
int ltap_blocked_has(const struct ltap_blocked *b, int tid);
/* tid runs again: 1 and what was kept (then forgotten), or 0 when it was
 * not blocked. */
int ltap_blocked_in(struct ltap_blocked *b, int tid, struct ltap_blocked_task *out);
/* tasks blocked now; blocks not kept because the table was full */
size_t ltap_blocked_count(const struct ltap_blocked *b);
uint64_t ltap_blocked_dropped(const struct ltap_blocked *b);

#endif
