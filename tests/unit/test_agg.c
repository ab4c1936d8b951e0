/* test_agg.c: the aggregate's store (runtime/agg.c, aggorder.c, sort.c):
 * keys of every kind found again after the index grows, a string shared by
 * the keys of several parts, counts widened to full figures exactly, keys
 * removed (their slots reused, the arena compacted), the key bound, a
 * refusing allocator (nothing changed), the order against a plain sort of
 * every slot, and the allocator's sizes back to zero after the free. */
#include "agg.h"
#include "check.h"
#include "counted_alloc.h"
#include "sort.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static struct ltap_agg *agg_new(size_t max_keys, int drop, int hist)
{
	struct ltap_agg_config cfg = {.max_keys = max_keys, .drop_when_full = drop, .hist = hist};
	return ltap_agg_new(&cfg, counted_alloc, NULL);
}

static struct ltap_agg_part str_part(const char *s)
{
	return LTAP_AGG_STR_PART(s, strlen(s));
}

static int key_is_str(const struct ltap_agg *a, long slot, int p, const char *want)
{
	struct ltap_agg_part key[LTAP_AGG_MAX_PARTS];
	ltap_agg_key(a, slot, key);
	return key[p].kind == LTAP_AGG_STR && key[p].v.s.len == strlen(want) && memcmp(key[p].v.s.p, want, key[p].v.s.len) == 0;
}

static int64_t fig_int(const struct ltap_agg *a, long slot, int fig)
{
	struct ltap_agg_num v = ltap_agg_figure(a, slot, fig);
	return v.is_int ? v.i : -999999;
}

static double fig_float(const struct ltap_agg *a, long slot, int fig)
{
	struct ltap_agg_num v = ltap_agg_figure(a, slot, fig);
	return v.is_int ? -999999 : v.d;
}

/* key i: short (in the slot) or long (in the arena) */
static void key_name(char *name, size_t n, int i)
{
	snprintf(name, n, i % 3 ? "a-longer-key-name-%d" : "k%d", i);
}

/* the slot of key i, or LTAP_AGG_ABSENT */
static long slot_of(struct ltap_agg *a, char *name, size_t n, int i)
{
	struct ltap_agg_part k;

	key_name(name, n, i);
	k = str_part(name);
	return ltap_agg_slot(a, &k, 1, 0);
}

/* many string keys, counted i % 7 + 1 times; found again; removed */
static void test_strings(void)
{
	struct ltap_agg *a = agg_new(1000000, 0, 0);
	char name[32];
	int bad = 0, n = 20000;
	unsigned gen;
	size_t bytes;

	for (int r = 1; r <= 7; r++)
		for (int i = 0; i < n; i++) {
			struct ltap_agg_part k;
			if (i % 7 + 1 < r)
				continue;
			key_name(name, sizeof name, i);
			k = str_part(name);
			bad += ltap_agg_add_int(a, &k, 1, 1) != 0;
		}
	CHECK(bad == 0);
	CHECK(ltap_agg_size(a) == (size_t)n);
	CHECK(ltap_agg_arity(a) == 1);
	for (int i = 0; i < n; i++) {
		long slot = slot_of(a, name, sizeof name, i);
		bad += slot < 0 || fig_int(a, slot, LTAP_AGG_COUNT) != i % 7 + 1 || !key_is_str(a, slot, 0, name);
		/* a count's other figures are known without being kept */
		bad += slot < 0 || fig_int(a, slot, LTAP_AGG_SUM) != i % 7 + 1 || fig_int(a, slot, LTAP_AGG_MAX) != 1 ||
		       fig_float(a, slot, LTAP_AGG_AVG) != 1 || fig_float(a, slot, LTAP_AGG_VAR) != 0;
	}
	CHECK(bad == 0);
	{
		struct ltap_agg_part k = str_part("a-longer-key-name-20000"), k2 = LTAP_AGG_INT_PART(7);
		CHECK(ltap_agg_slot(a, &k, 1, 0) == LTAP_AGG_ABSENT);
		CHECK(ltap_agg_slot(a, &k2, 1, 0) == LTAP_AGG_ABSENT); /* an integer is no string */
		CHECK(ltap_agg_add_int(a, NULL, 0, 1) == -EINVAL);       /* every key has one part */
	}
	/* three keys in four removed: the rest found, the arena compacted */
	gen = ltap_agg_generation(a);
	bytes = ltap_agg_bytes(a);
	for (int i = 0; i < n; i++)
		if (i % 4 != 3)
			ltap_agg_remove(a, slot_of(a, name, sizeof name, i));
	CHECK(ltap_agg_generation(a) != gen);
	CHECK(ltap_agg_size(a) == (size_t)n / 4);
	CHECK(ltap_agg_bytes(a) < bytes); /* the dead strings let go */
	for (int i = 0; i < n; i++) {
		long slot = slot_of(a, name, sizeof name, i);
		if (i % 4 != 3)
			bad += slot != LTAP_AGG_ABSENT;
		else
			bad += slot < 0 || fig_int(a, slot, LTAP_AGG_COUNT) != i % 7 + 1 || !key_is_str(a, slot, 0, name);
	}
	CHECK(bad == 0);
	/* new keys take the free slots: no slot past the old ones */
	for (int i = 0; i < n - n / 4; i++) {
		struct ltap_agg_part k;
		snprintf(name, sizeof name, "new-%d", i);
		k = str_part(name);
		bad += ltap_agg_add_int(a, &k, 1, 1) != 0;
	}
	CHECK(bad == 0);
	CHECK(ltap_agg_slots(a) == (size_t)n);
	CHECK(ltap_agg_size(a) == (size_t)n);
	ltap_agg_clear(a);
	CHECK(ltap_agg_size(a) == 0);
	{
		struct ltap_agg_part k = str_part("a-longer-key-name-1");
		CHECK(ltap_agg_slot(a, &k, 1, 0) == LTAP_AGG_ABSENT);
		CHECK(ltap_agg_add_int(a, &k, 1, 1) == 0 && ltap_agg_size(a) == 1);
	}
	ltap_agg_free(a);
}

/* (comm, pid, flag, float) keys: a comm's bytes kept once */
static void test_parts(void)
{
	struct ltap_agg *a = agg_new(1000000, 0, 0), *b = agg_new(1000000, 0, 0);
	char comm[64];
	int bad = 0, n = 30000;
	size_t shared, single;

	for (int i = 0; i < n; i++) {
		struct ltap_agg_part k[4], one;
		snprintf(comm, sizeof comm, "a-rather-long-command-name-%d", i % 10);
		k[0] = str_part(comm);
		k[1] = LTAP_AGG_INT_PART(i);
		k[2] = (struct ltap_agg_part){.kind = LTAP_AGG_BOOL, .v.b = i & 1};
		CHECK(ltap_agg_number_part(&k[3], i + 0.5) == 0 && k[3].kind == LTAP_AGG_FLOAT);
		bad += ltap_agg_add_int(a, k, 4, i) != 0;
		snprintf(comm, sizeof comm, "a-rather-long-command-name-%d-%d", i % 10, i);
		one = str_part(comm);
		bad += ltap_agg_add_int(b, &one, 1, i) != 0;
	}
	CHECK(bad == 0);
	shared = ltap_agg_bytes(a);
	single = ltap_agg_bytes(b);
	CHECK(shared < single); /* 4 parts and figures, against 1 part with its string each */
	for (int i = 0; i < n; i++) {
		struct ltap_agg_part k[4];
		long slot;
		snprintf(comm, sizeof comm, "a-rather-long-command-name-%d", i % 10);
		k[0] = str_part(comm);
		k[1] = LTAP_AGG_INT_PART(i);
		k[2] = (struct ltap_agg_part){.kind = LTAP_AGG_BOOL, .v.b = i & 1};
		ltap_agg_number_part(&k[3], i + 0.5);
		slot = ltap_agg_slot(a, k, 4, 0);
		bad += slot < 0 || fig_int(a, slot, LTAP_AGG_SUM) != i || !key_is_str(a, slot, 0, comm);
		k[2].v.b = !k[2].v.b;
		bad += ltap_agg_slot(a, k, 4, 0) != LTAP_AGG_ABSENT;
	}
	CHECK(bad == 0);
	/* removing every key of one comm: the others keep their string */
	for (int i = 0; i < n; i += 10) {
		struct ltap_agg_part k[4];
		k[0] = str_part("a-rather-long-command-name-0");
		k[1] = LTAP_AGG_INT_PART(i);
		k[2] = (struct ltap_agg_part){.kind = LTAP_AGG_BOOL, .v.b = i & 1};
		ltap_agg_number_part(&k[3], i + 0.5);
		ltap_agg_remove(a, ltap_agg_slot(a, k, 4, 0));
	}
	{
		struct ltap_agg_part k[4] = {str_part("a-rather-long-command-name-1"), LTAP_AGG_INT_PART(1),
					     {.kind = LTAP_AGG_BOOL, .v.b = 1}};
		ltap_agg_number_part(&k[3], 1.5);
		CHECK(ltap_agg_slot(a, k, 4, 0) >= 0);
		CHECK(ltap_agg_size(a) == (size_t)n - n / 10);
	}
	/* numbers: an integer value is an integer; NaN is no key */
	{
		struct ltap_agg_part p;
		CHECK(ltap_agg_number_part(&p, 2.0) == 0 && p.kind == LTAP_AGG_INT && p.v.i == 2);
		CHECK(ltap_agg_number_part(&p, -0.0) == 0 && p.kind == LTAP_AGG_INT && p.v.i == 0);
		CHECK(ltap_agg_number_part(&p, 1e300) == 0 && p.kind == LTAP_AGG_FLOAT);
		CHECK(ltap_agg_number_part(&p, NAN) == -EINVAL);
		p = (struct ltap_agg_part){.kind = LTAP_AGG_FLOAT, .v.d = 3.0};
		CHECK(ltap_agg_add_int(b, &p, 1, 1) == -EINVAL);
	}
	ltap_agg_free(a);
	ltap_agg_free(b);
}

/* strings of every length up to past two words, in a part two words wide
 * (the first key a string) and one word wide (the first key an integer):
 * read back byte for byte, found again, not found as a prefix */
static void test_lengths(void)
{
	struct ltap_agg *two = agg_new(1000, 0, 0), *one = agg_new(1000, 0, 0);
	char buf[41];
	int bad = 0;
	struct ltap_agg_part first = LTAP_AGG_INT_PART(1);

	CHECK(ltap_agg_add_int(one, &first, 1, 1) == 0);
	for (int i = 0; i < 40; i++)
		buf[i] = (char)(i % 3 ? 'a' + i : 0); /* zeros inside too */
	for (int round = 0; round < 2; round++)
		for (size_t len = 0; len <= 40; len++) {
			struct ltap_agg_part k = LTAP_AGG_STR_PART(buf, len), got[1];
			struct ltap_agg *a = round ? one : two;
			long slot;
			bad += ltap_agg_add_int(a, &k, 1, (int64_t)len + 1) != 0;
			slot = ltap_agg_slot(a, &k, 1, 0);
			if (slot < 0) {
				bad++;
				continue;
			}
			ltap_agg_key(a, slot, got);
			bad += got[0].kind != LTAP_AGG_STR || got[0].v.s.len != len || memcmp(got[0].v.s.p, buf, len) != 0;
			bad += fig_int(a, slot, LTAP_AGG_SUM) != (int64_t)len + 1;
		}
	for (size_t len = 0; len <= 40; len++) {
		struct ltap_agg_part k = LTAP_AGG_STR_PART(buf, len);
		bad += fig_int(two, ltap_agg_slot(two, &k, 1, 0), LTAP_AGG_COUNT) != 1;
		bad += fig_int(one, ltap_agg_slot(one, &k, 1, 0), LTAP_AGG_COUNT) != 1;
	}
	CHECK(bad == 0);
	CHECK(ltap_agg_size(two) == 41 && ltap_agg_size(one) == 42);
	ltap_agg_free(two);
	ltap_agg_free(one);
}

/* counts widened to full figures: exact */
static void test_figures(void)
{
	struct ltap_agg *a = agg_new(100, 0, 0), *h = agg_new(100, 0, LTAP_AGG_HIST_LOG2);
	struct ltap_agg_part k = str_part("x"), y = str_part("y");
	long sx, sy;

	for (int i = 0; i < 3; i++)
		CHECK(ltap_agg_add_int(a, &k, 1, 1) == 0);
	CHECK(ltap_agg_add_int(a, &y, 1, 1) == 0);
	CHECK(ltap_agg_add_int(a, &k, 1, 5) == 0); /* widens: 1, 1, 1, 5 */
	sx = ltap_agg_slot(a, &k, 1, 0);
	sy = ltap_agg_slot(a, &y, 1, 0);
	CHECK(fig_int(a, sx, LTAP_AGG_COUNT) == 4 && fig_int(a, sx, LTAP_AGG_SUM) == 8);
	CHECK(fig_int(a, sx, LTAP_AGG_MIN) == 1 && fig_int(a, sx, LTAP_AGG_MAX) == 5);
	CHECK(fig_float(a, sx, LTAP_AGG_AVG) == 2 && fig_float(a, sx, LTAP_AGG_VAR) == 4);
	CHECK(fig_int(a, sy, LTAP_AGG_COUNT) == 1 && fig_int(a, sy, LTAP_AGG_SUM) == 1 && fig_int(a, sy, LTAP_AGG_MIN) == 1);
	CHECK(ltap_agg_slot_add_float(a, sy, 0.5) == 0);
	CHECK(fig_float(a, sy, LTAP_AGG_SUM) == 1.5 && fig_float(a, sy, LTAP_AGG_MIN) == 0.5);
	/* a histogram's buckets: 1 in [1], 5 in [4, 8), -3 below 0 */
	CHECK(ltap_agg_add_int(h, &k, 1, 1) == 0 && ltap_agg_add_int(h, &k, 1, 5) == 0 && ltap_agg_add_int(h, &k, 1, -3) == 0);
	{
		const int64_t *b = ltap_agg_buckets(h, ltap_agg_slot(h, &k, 1, 0));
		double lo, hi;
		int lo_open, hi_open;
		CHECK(b[0] == 1 && b[2] == 1 && b[4] == 1 && b[3] == 0);
		ltap_agg_bucket_range(h, 4, &lo, &hi, &lo_open, &hi_open);
		CHECK(lo == 4 && hi == 8 && !lo_open && !hi_open);
	}
	ltap_agg_free(a);
	ltap_agg_free(h);
}

/* the key bound and a refusing allocator */
static void test_limits(void)
{
	struct ltap_agg *d = agg_new(2, 1, 0), *e = agg_new(2, 0, 0);
	struct ltap_agg_part k[3] = {str_part("a"), str_part("b"), str_part("c")};
	size_t before;

	for (int i = 0; i < 3; i++) {
		CHECK(ltap_agg_add_int(d, &k[i], 1, 1) == (i < 2 ? 0 : LTAP_AGG_DROPPED));
		CHECK(ltap_agg_add_int(e, &k[i], 1, 1) == (i < 2 ? 0 : -ENOSPC));
	}
	CHECK(ltap_agg_dropped(d) == 1 && ltap_agg_size(d) == 2 && ltap_agg_size(e) == 2);
	CHECK(ltap_agg_add_int(d, &k[0], 1, 1) == 0); /* a known key still counts */
	ltap_agg_free(d);
	ltap_agg_free(e);

	d = agg_new(1000000, 0, 0);
	for (int i = 0; i < 100; i++) {
		struct ltap_agg_part p = LTAP_AGG_INT_PART(i);
		CHECK(ltap_agg_add_int(d, &p, 1, 1) == 0);
	}
	limit = used; /* nothing more */
	before = ltap_agg_size(d);
	{
		int refused = 0;
		for (int i = 100; i < 1000; i++) {
			struct ltap_agg_part p = LTAP_AGG_INT_PART(i);
			refused += ltap_agg_add_int(d, &p, 1, 1) == -ENOMEM;
		}
		CHECK(refused > 0);
		CHECK(ltap_agg_size(d) < 1000);
		refused = 0;
		for (int i = 0; i < 100; i++) {
			struct ltap_agg_part p = LTAP_AGG_INT_PART(i);
			refused += ltap_agg_add_int(d, &p, 1, 2) == -ENOMEM; /* widening is refused too */
		}
		CHECK(refused == 100);
	}
	CHECK(ltap_agg_size(d) >= before);
	{
		struct ltap_agg_part p = LTAP_AGG_INT_PART(5);
		long s = ltap_agg_slot(d, &p, 1, 0);
		CHECK(s >= 0 && fig_int(d, s, LTAP_AGG_COUNT) == 1 && fig_int(d, s, LTAP_AGG_MAX) == 1);
	}
	limit = (size_t)-1;
	{
		struct ltap_agg_part p = LTAP_AGG_INT_PART(5);
		CHECK(ltap_agg_add_int(d, &p, 1, 2) == 0);
		CHECK(fig_int(d, ltap_agg_slot(d, &p, 1, 0), LTAP_AGG_MAX) == 2);
	}
	ltap_agg_free(d);
}

/* ---------------------------------------------------------- the order */

struct plain {
	long slot;
	struct ltap_agg_num v;
};

static const struct ltap_agg *order_agg;
static int order_desc;

static int plain_cmp(const void *x, const void *y)
{
	const struct plain *a = x, *b = y;
	int c = ltap_agg_num_cmp(&a->v, &b->v);
	if (c)
		return order_desc ? -c : c;
	return ltap_agg_key_cmp(order_agg, a->slot, b->slot);
}

/* ltap_agg_order against qsort of every slot, for some N */
static void check_order(const struct ltap_agg *a, int fig, int desc)
{
	size_t n = ltap_agg_size(a), slots = ltap_agg_slots(a), k = 0;
	struct plain *p = calloc(n + 1, sizeof *p);
	size_t ns[] = {0, 1, 3, 10, n / 2, n - 1, n, n + 5};
	int bad = 0;

	for (size_t i = 0; i < slots; i++)
		if (ltap_agg_live(a, (long)i))
			p[k++] = (struct plain){(long)i, ltap_agg_figure(a, (long)i, fig)};
	order_agg = a;
	order_desc = desc;
	qsort(p, k, sizeof *p, plain_cmp);
	for (size_t t = 0; t < sizeof ns / sizeof ns[0]; t++) {
		uint32_t *out;
		long got = ltap_agg_order(a, fig, desc, ns[t], &out);
		size_t want = ns[t] < n ? ns[t] : n;
		bad += got != (long)want;
		for (size_t i = 0; got == (long)want && i < want; i++)
			bad += out[i] != (uint32_t)p[i].slot;
		ltap_agg_order_free(a, out, got);
	}
	CHECK(bad == 0);
	free(p);
}

static void test_order(void)
{
	struct ltap_agg *a = agg_new(1000000, 0, 0), *b = agg_new(1000000, 0, 0);
	static const char *const words[] = {"", "a", "ab", "abc", "abcdefgh", "abcdefgh\x01", "abcdefghi", "b", "\xff", "a\0b"};
	unsigned x = 1;

	/* single parts of every kind, values with many ties, some floats */
	for (int i = 0; i < 5000; i++) {
		struct ltap_agg_part k;
		char buf[32];
		x = x * 1103515245 + 12345;
		switch (x >> 16 & 3) {
		case 0: k = LTAP_AGG_INT_PART((int64_t)(x >> 8) - 4000000); break;
		case 1: ltap_agg_number_part(&k, (double)(x >> 10) / 7); break;
		case 2:
			snprintf(buf, sizeof buf, "%s%u", words[x >> 20 & 7], x >> 24);
			k = str_part(buf);
			break;
		default: k = (struct ltap_agg_part){.kind = LTAP_AGG_BOOL, .v.b = x >> 20 & 1};
		}
		if (x >> 12 & 1)
			ltap_agg_add_int(a, &k, 1, (int64_t)(x >> 28));
		else
			ltap_agg_add_float(a, &k, 1, (double)(x >> 28) / 2);
	}
	/* two parts, counts only: the ties settled by the key */
	for (int i = 0; i < 20000; i++) {
		struct ltap_agg_part k[2];
		x = x * 1103515245 + 12345;
		k[0] = LTAP_AGG_STR_PART(words[x >> 16 & 7], strlen(words[x >> 16 & 7]));
		if (x >> 19 & 1)
			k[0] = LTAP_AGG_STR_PART(words[9], 3); /* an embedded zero */
		k[1] = LTAP_AGG_INT_PART((int64_t)(x >> 22));
		ltap_agg_add_int(b, k, 2, 1);
	}
	/* some removed: their free slots are no rows */
	for (int i = 0; i < 200; i++)
		if (ltap_agg_live(a, i * 7))
			ltap_agg_remove(a, i * 7);
	for (int fig = 0; fig < LTAP_AGG_NFIGS; fig++) {
		check_order(a, fig, 1);
		check_order(a, fig, 0);
	}
	check_order(b, LTAP_AGG_COUNT, 1);
	check_order(b, LTAP_AGG_COUNT, 0);
	ltap_agg_free(a);
	ltap_agg_free(b);
}

static int int_before(const void *x, const void *y, void *ctx)
{
	(void)ctx;
	return *(const int *)x < *(const int *)y;
}

static int int_cmp(const void *x, const void *y)
{
	return (*(const int *)x > *(const int *)y) - (*(const int *)x < *(const int *)y);
}

/* the sort and the heap on plain integers, duplicates and runs included */
static void test_sort(void)
{
	static int v[30000], w[30000], heap[100];
	unsigned x = 7;
	int bad = 0;
	size_t k = 0;

	for (int shape = 0; shape < 4; shape++) {
		for (int i = 0; i < 30000; i++) {
			x = x * 1103515245 + 12345;
			v[i] = shape == 0 ? (int)(x >> 8) : shape == 1 ? (int)(x >> 28) : shape == 2 ? i : 30000 - i;
		}
		memcpy(w, v, sizeof v);
		qsort(w, 30000, sizeof *w, int_cmp);
		k = 0;
		for (int i = 0; i < 30000; i++)
			ltap_topn_offer(heap, &k, 100, sizeof *heap, &v[i], int_before, NULL);
		ltap_topn_finish(heap, k, sizeof *heap, int_before, NULL);
		ltap_sort(v, 30000, sizeof *v, int_before, NULL);
		bad += memcmp(v, w, sizeof v) != 0 || k != 100 || memcmp(heap, w, sizeof heap) != 0;
	}
	CHECK(bad == 0);
}

int main(void)
{
	test_strings();
	test_parts();
	test_lengths();
	test_figures();
	test_limits();
	test_order();
	test_sort();
	CHECK(used == 0);
	printf("%d checks, %d failed\n", checks, failures);
	return failures != 0;
}
