/* test_blocked.c: the table of blocked tasks against a plain array of
 * every tid: random blocks, wake-ups and switches in (many tids colliding
 * in a small table, so removals shift long runs), and the limit. */
#include "blocked.h"
#include "check.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define TIDS 5000

int main(void)
{
	static struct { int on; struct ltap_blocked_task t; } ref[TIDS];
	struct ltap_blocked *b = ltap_blocked_new(1000);
	struct ltap_blocked_task t;
	size_t n = 0;
	unsigned seed = 7;

	CHECK(b && ltap_blocked_count(b) == 0);
	CHECK(ltap_blocked_in(b, 42, &t) == 0 && ltap_blocked_woken(b, 42, 1) == -ENOENT);
	for (int step = 0; step < 200000; step++) {
		int tid = (int)(rand_r(&seed) % TIDS) * 4096; /* tids that hash alike in runs */
		int r = (int)(rand_r(&seed) % 3), k = tid / 4096;
		if (r == 0 && n < 1024) {
			CHECK(ltap_blocked_out(b, tid, (uint64_t)step, step) == 0);
			n += !ref[k].on;
			ref[k].on = 1;
			ref[k].t = (struct ltap_blocked_task){(uint64_t)step, step, -1};
		} else if (r == 1) {
			CHECK(ltap_blocked_woken(b, tid, step) == (ref[k].on ? 0 : -ENOENT));
			if (ref[k].on)
				ref[k].t.waker = step;
		} else {
			int got = ltap_blocked_in(b, tid, &t);
			CHECK(got == ref[k].on);
			if (got)
				CHECK(t.since == ref[k].t.since && t.key == ref[k].t.key && t.waker == ref[k].t.waker);
			n -= (size_t)got;
			ref[k].on = 0;
		}
		CHECK(ltap_blocked_count(b) == n);
	}
	for (int k = 0; k < TIDS; k++)
		CHECK(ltap_blocked_has(b, k * 4096) == ref[k].on);
	ltap_blocked_free(b);

	/* the limit: the 65th task is not kept, and counted; a known one still is */
	b = ltap_blocked_new(10);
	for (int tid = 1; tid <= 64; tid++)
		CHECK(ltap_blocked_out(b, tid, 1, 1) == 0);
	CHECK(ltap_blocked_out(b, 65, 1, 1) == -ENOSPC && ltap_blocked_dropped(b) == 1);
	CHECK(ltap_blocked_out(b, 64, 2, 2) == 0 && ltap_blocked_in(b, 64, &t) == 1 && t.since == 2);
	CHECK(ltap_blocked_out(b, 65, 1, 1) == 0 && ltap_blocked_count(b) == 64);
	ltap_blocked_free(b);
	ltap_blocked_free(NULL);
	printf("%d checks, %d failed\n", checks, failures);
	return failures != 0;
}
