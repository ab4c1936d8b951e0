/* blocked.c: an open-addressing table of tids, linear probing, removal by
 * backward shift (no tombstones: a long run of blocks and wake-ups leaves
 * no debris that lengthens probes). */
#include "blocked.h"

#include <errno.h>
#include <stdlib.h>

struct slot {
	int tid;
	int used;
	struct ltap_blocked_task t;
};

struct ltap_blocked {
	struct slot *slots;
	size_t mask, n, max;
	uint64_t dropped;
};

struct ltap_blocked *ltap_blocked_new(size_t max)
{
	struct ltap_blocked *b = calloc(1, sizeof *b);
	size_t cap = 64;

	if (!b)
		return NULL;
	while (cap < max)
		cap *= 2;
	b->max = cap;
	b->mask = cap * 2 - 1; /* at most half full */
	b->slots = calloc(cap * 2, sizeof *b->slots);
	if (!b->slots) {
		free(b);
		return NULL;
	}
	return b;
}

void ltap_blocked_free(struct ltap_blocked *b)
{
	if (!b)
		return;
	free(b->slots);
	free(b);
}

static size_t blocked_hash(int tid)
{
	return (size_t)((uint32_t)tid * 2654435761u);
}

/* tid's slot, or the empty one ending its probe */
static struct slot *blocked_slot(const struct ltap_blocked *b, int tid)
{
	size_t i = blocked_hash(tid) & b->mask;

	while (b->slots[i].used && b->slots[i].tid != tid)
		i = (i + 1) & b->mask;
	return &b->slots[i];
}

int ltap_blocked_out(struct ltap_blocked *b, int tid, uint64_t since, long key)
{
	struct slot *s = blocked_slot(b, tid);

	if (!s->used) {
		if (b->n == b->max) {
			b->dropped++;
			return -ENOSPC;
		}
		s->used = 1;
		s->tid = tid;
		b->n++;
	}
	s->t = (struct ltap_blocked_task){since, key, -1};
	return 0;
}

int ltap_blocked_woken(struct ltap_blocked *b, int tid, long waker)
{
	struct slot *s = blocked_slot(b, tid);

	if (!s->used)
		return -ENOENT;
	s->t.waker = waker;
	return 0;
}

int ltap_blocked_has(const struct ltap_blocked *b, int tid)
{
	return blocked_slot(b, tid)->used;
}

int ltap_blocked_in(struct ltap_blocked *b, int tid, struct ltap_blocked_task *out)
{
	struct slot *s = blocked_slot(b, tid);
	size_t i, j;

	if (!s->used)
		return 0;
	*out = s->t;
	/* backward shift: move up each later entry of the run whose home slot
	 * is not between the hole and it */
	i = (size_t)(s - b->slots);
	s->used = 0;
	for (j = (i + 1) & b->mask; b->slots[j].used; j = (j + 1) & b->mask) {
		size_t home = blocked_hash(b->slots[j].tid) & b->mask;
		if (((j - home) & b->mask) >= ((j - i) & b->mask)) {
			b->slots[i] = b->slots[j];
			b->slots[j].used = 0;
			i = j;
		}
	}
	b->n--;
	return 1;
}

size_t ltap_blocked_count(const struct ltap_blocked *b)
{
	return b->n;
}

uint64_t ltap_blocked_dropped(const struct ltap_blocked *b)
{
	return b->dropped;
}
