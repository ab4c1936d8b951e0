/* test_stackcount.c: stacks counted per (command, frames): equal stacks
 * add up, any difference is a new entry, entries come back in the order
 * first counted; the allocator's sizes add up to zero after the free, and
 * a refusal counts nothing. Stacks kept for a weight known later (keys),
 * and joined stacks of a blocked task and its waker. */
#include "check.h"
#include "counted_alloc.h"
#include "stackcount.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const struct ltap_stackcount_entry *entry(struct ltap_stackcount *sc, size_t i)
{
	size_t it = 0;
	const struct ltap_stackcount_entry *e;

	while ((e = ltap_stackcount_next(sc, &it)) != NULL)
		if (it == i + 1)
			return e;
	return NULL;
}

int main(void)
{
	static int mod_a, mod_b, proc;
	struct ltap_frame f1[3] = {{&mod_a, NULL, 0x10, 0}, {&mod_a, NULL, 0x20, 0}, {&mod_b, NULL, 0x30, 0}};
	struct ltap_frame f2[3] = {{&mod_a, NULL, 0x10, 1}, {&mod_a, NULL, 0x20, 0}, {&mod_b, NULL, 0x30, 0}};
	struct ltap_frame f3[2] = {{NULL, &proc, 0x7f00, 0}, {&mod_b, NULL, 0x30, 0}};
	struct ltap_stackcount *sc = ltap_stackcount_new(counted_alloc, NULL);
	const struct ltap_stackcount_entry *e;

	CHECK(sc && ltap_stackcount_size(sc) == 0 && ltap_stackcount_total(sc) == 0);
	CHECK(ltap_stackcount_add(sc, "hot", 3, f1, 3, 0x5555000010, 1) == 0);
	CHECK(ltap_stackcount_add(sc, "hot", 3, f1, 3, 0x6666000010, 2) == 0);  /* same stack, another process */
	CHECK(ltap_stackcount_add(sc, "hot2", 4, f1, 3, 0x5555000010, 1) == 0); /* another command */
	CHECK(ltap_stackcount_add(sc, "hot", 3, f2, 3, 0x10, 1) == 0);          /* the leaf a kernel frame */
	CHECK(ltap_stackcount_add(sc, "hot", 3, f1, 2, 0x5555000010, 1) == 0);  /* shorter */
	CHECK(ltap_stackcount_add(sc, "jit", 3, f3, 2, 0x7f00, 4) == 0);
	CHECK(ltap_stackcount_add(sc, "", 0, NULL, 0, 0, 1) == 0);               /* no frames, no command */
	CHECK(ltap_stackcount_size(sc) == 6 && ltap_stackcount_total(sc) == 11);
	e = entry(sc, 0);
	CHECK(e && e->count == 3 && e->n == 3 && e->commlen == 3 && memcmp(e->comm, "hot", 3) == 0 &&
	      e->leaf_raw == 0x5555000010 && memcmp(e->frames, f1, sizeof f1) == 0);
	CHECK((e = entry(sc, 1)) && e->count == 1 && e->commlen == 4);
	CHECK((e = entry(sc, 2)) && e->frames[0].kernel == 1);
	CHECK((e = entry(sc, 3)) && e->n == 2);
	CHECK((e = entry(sc, 4)) && e->count == 4 && e->frames[0].proc == &proc);
	CHECK((e = entry(sc, 5)) && e->n == 0 && e->commlen == 0);
	CHECK(entry(sc, 6) == NULL);

	/* past the first table size: 5000 stacks, each counted twice */
	for (int round = 0; round < 2; round++)
		for (uint64_t i = 0; i < 5000; i++) {
			struct ltap_frame f = {&mod_a, NULL, 0x1000 + i, 0};
			CHECK(ltap_stackcount_add(sc, "many", 4, &f, 1, i, 1) == 0);
		}
	CHECK(ltap_stackcount_size(sc) == 5006 && ltap_stackcount_total(sc) == 10011);
	CHECK((e = entry(sc, 5006 - 1)) && e->count == 2 && e->frames[0].addr == 0x1000 + 4999);

	/* a refusal: nothing counted, the rest intact */
	limit = used;
	{
		struct ltap_frame f = {&mod_b, NULL, 0x99, 0};
		CHECK(ltap_stackcount_add(sc, "new", 3, &f, 1, 0, 1) == -ENOMEM);
		CHECK(ltap_stackcount_add(sc, "hot", 3, f1, 3, 0, 1) == 0); /* an existing one still counts */
	}
	CHECK(ltap_stackcount_size(sc) == 5006 && ltap_stackcount_total(sc) == 10012);
	limit = (size_t)-1;
	ltap_stackcount_free(sc);
	CHECK(used == 0);
	ltap_stackcount_free(NULL);

	/* weights after the event: a stack kept without a count is in none of
	 * the results until one is added; the same stack, the same key; joined
	 * stacks (blocked, waker) are entries of their own, by the pair */
	sc = ltap_stackcount_new(counted_alloc, NULL);
	{
		long a = ltap_stackcount_intern(sc, "sleeper", 7, f1, 3, 0x10);
		long w = ltap_stackcount_intern(sc, "irq", 3, f3, 2, 0x7f00);
		long j;
		size_t it = 0;

		CHECK(a == 0 && w == 1 && ltap_stackcount_intern(sc, "sleeper", 7, f1, 3, 0x99) == a);
		CHECK(ltap_stackcount_keys(sc) == 2 && ltap_stackcount_size(sc) == 0 && ltap_stackcount_total(sc) == 0);
		CHECK(ltap_stackcount_next(sc, &it) == NULL);
		ltap_stackcount_add_at(sc, a, 10000);
		ltap_stackcount_add_at(sc, a, 30000);
		CHECK(ltap_stackcount_size(sc) == 1 && ltap_stackcount_total(sc) == 40000);
		CHECK((e = entry(sc, 0)) && e->count == 40000 && e->leaf_raw == 0x10 && !e->blocked);
		CHECK(ltap_stackcount_add(sc, "sleeper", 7, f1, 3, 0, 5) == 0); /* add() finds the kept one */
		CHECK(ltap_stackcount_size(sc) == 1 && entry(sc, 0)->count == 40005);
		CHECK(ltap_stackcount_join(sc, a, w, 7) == 0 && ltap_stackcount_join(sc, a, w, 3) == 0);
		CHECK(ltap_stackcount_join(sc, w, a, 1) == 0); /* the other way round: another joined stack */
		CHECK(ltap_stackcount_size(sc) == 3 && ltap_stackcount_total(sc) == 40016);
		it = 0;
		CHECK(ltap_stackcount_next(sc, &it) == entry(sc, 0)); /* w has no count of its own */
		e = ltap_stackcount_next(sc, &it);
		CHECK(e && e->count == 10 && e->blocked == entry(sc, 0) && e->waker && e->waker->commlen == 3 &&
		      e->commlen == 7 && memcmp(e->comm, "sleeper", 7) == 0 && e->n == 0);
		e = ltap_stackcount_next(sc, &it);
		CHECK(e && e->count == 1 && e->waker == entry(sc, 0) && ltap_stackcount_next(sc, &it) == NULL);
		/* many keys: the order array moves, joined entries still point right */
		for (uint64_t i = 0; i < 3000; i++) {
			struct ltap_frame f = {&mod_b, NULL, 0x5000 + i, 0};
			CHECK(ltap_stackcount_intern(sc, "k", 1, &f, 1, i) == (long)(4 + i));
		}
		CHECK((j = ltap_stackcount_intern(sc, "k", 1, &(struct ltap_frame){&mod_b, NULL, 0x5000, 0}, 1, 0)) == 4);
		CHECK(ltap_stackcount_join(sc, a, w, 1) == 0 && ltap_stackcount_size(sc) == 3);
		it = 0;
		ltap_stackcount_next(sc, &it);
		CHECK((e = ltap_stackcount_next(sc, &it)) && e->count == 11 && e->blocked->count == 40005);
		/* out of memory: nothing kept */
		limit = used;
		CHECK(ltap_stackcount_intern(sc, "nomem", 5, f2, 3, 0) == -ENOMEM);
		CHECK(ltap_stackcount_join(sc, j, w, 1) == -ENOMEM && ltap_stackcount_total(sc) == 40017);
		limit = (size_t)-1;
	}
	ltap_stackcount_free(sc);
	CHECK(used == 0);
	printf("%d checks, %d failed\n", checks, failures);
	return failures != 0;
}
