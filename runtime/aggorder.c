/* aggorder.c: an aggregate's slots in the order of a figure (ltap_agg_order,
 * agg.h). Each slot's figure and the start of its key are read once, in
 * slot order, into an entry; then the entries are sorted in place, or kept
 * in a bounded heap when fewer are asked for. Ties of the figure (most keys
 * of a count share a few values) are mostly settled by the key's start in
 * the entry: a comparison reads a key itself only when two starts are
 * equal. A whole order of figures that are all 32-bit integers (counts)
 * takes 16 bytes a key, others 24; the slots are then written over the
 * entries, which shrink to 4 bytes a key. */
#include "agg.h"
#include "sort.h"

#include <errno.h>

#define SLOT_BITS 30 /* slots below 2^30 (max_keys is at most 1e9): the rank above */

struct ord {
	union {
		int64_t i;
		double d;
	} v;
	uint64_t prefix;  /* of the key: ltap_agg_key_prefix */
	uint32_t slot;
	uint16_t is_int;
	uint16_t rank;
};

/* the same for a figure that is a 32-bit integer */
struct ord32 {
	uint64_t prefix;
	uint32_t v;         /* the figure + 2^31: ordered as unsigned */
	uint32_t rank_slot; /* rank << SLOT_BITS | slot */
};

struct ord_ctx {
	const struct ltap_agg *a;
	int desc;
};

static int ord_nan(const struct ord *o)
{
	return !o->is_int && o->v.d != o->v.d;
}

/* by the figure (NaN last either way), then by key */
static int ord_before(const void *xp, const void *yp, void *cp)
{
	const struct ord *x = xp, *y = yp;
	const struct ord_ctx *c = cp;
	int r;

	if (x->is_int && y->is_int) {
		r = (x->v.i > y->v.i) - (x->v.i < y->v.i);
	} else if (ord_nan(x) || ord_nan(y)) {
		if (ord_nan(x) != ord_nan(y))
			return ord_nan(y);
		r = 0;
	} else {
		struct ltap_agg_num nx = {.is_int = x->is_int, .i = x->is_int ? x->v.i : 0, .d = x->is_int ? 0 : x->v.d};
		struct ltap_agg_num ny = {.is_int = y->is_int, .i = y->is_int ? y->v.i : 0, .d = y->is_int ? 0 : y->v.d};
		r = ltap_agg_num_cmp(&nx, &ny);
	}
	if (r)
		return c->desc ? r > 0 : r < 0;
	if (x->rank != y->rank)
		return x->rank < y->rank;
	if (x->prefix != y->prefix)
		return x->prefix < y->prefix;
	return ltap_agg_key_cmp(c->a, x->slot, y->slot) < 0;
}

static int ord32_before(const void *xp, const void *yp, void *cp)
{
	const struct ord32 *x = xp, *y = yp;
	const struct ord_ctx *c = cp;
	uint32_t mask = (1u << SLOT_BITS) - 1;

	if (x->v != y->v)
		return c->desc ? x->v > y->v : x->v < y->v;
	if (x->rank_slot >> SLOT_BITS != y->rank_slot >> SLOT_BITS)
		return x->rank_slot >> SLOT_BITS < y->rank_slot >> SLOT_BITS;
	if (x->prefix != y->prefix)
		return x->prefix < y->prefix;
	return ltap_agg_key_cmp(c->a, x->rank_slot & mask, y->rank_slot & mask) < 0;
}

static struct ord ord_of(const struct ltap_agg *a, size_t slot, int fig)
{
	struct ltap_agg_num v = ltap_agg_figure(a, (long)slot, fig);
	struct ord o = {.slot = (uint32_t)slot, .is_int = (uint16_t)v.is_int};
	int rank;

	o.prefix = ltap_agg_key_prefix(a, (long)slot, &rank);
	o.rank = (uint16_t)rank;
	if (v.is_int)
		o.v.i = v.i;
	else
		o.v.d = v.d;
	return o;
}

/* Every slot's entry of 16 bytes into v; 0 when a figure is no 32-bit
 * integer (nothing to free: v is the caller's). */
static int order32_fill(const struct ltap_agg *a, int fig, struct ord32 *v)
{
	size_t slots = ltap_agg_slots(a), k = 0;

	for (size_t i = 0; i < slots; i++) {
		struct ltap_agg_num n;
		int rank;
		if (!ltap_agg_live(a, (long)i))
			continue;
		n = ltap_agg_figure(a, (long)i, fig);
		if (!n.is_int || n.i < INT32_MIN || n.i > INT32_MAX || i >> SLOT_BITS)
			return 0;
		v[k].v = (uint32_t)(n.i - INT32_MIN);
		v[k].prefix = ltap_agg_key_prefix(a, (long)i, &rank);
		v[k].rank_slot = (uint32_t)rank << SLOT_BITS | (uint32_t)i;
		k++;
	}
	return 1;
}

/* n entries of size bytes whose slots were written at the front: the rest
 * given back */
static uint32_t *order_shrink(const struct ltap_agg *a, void *v, size_t n, size_t size)
{
	uint32_t *ids = ltap_agg_alloc(a, v, n * size, n * sizeof *ids);

	if (!ids)
		ltap_agg_alloc(a, v, n * size, 0);
	return ids;
}

/* every slot, sorted: 16-byte entries when the figures allow, else 24 */
static uint32_t *order_all(const struct ltap_agg *a, int fig, int desc, size_t n)
{
	struct ord_ctx c = {a, desc};
	size_t size = sizeof(struct ord32);
	uint32_t *ids;
	void *v;

	if (n > SIZE_MAX / sizeof(struct ord) || !(v = ltap_agg_alloc(a, NULL, 0, n * size)))
		return NULL;
	if (order32_fill(a, fig, v)) {
		struct ord32 *o = v;
		ltap_sort(v, n, size, ord32_before, &c);
		ids = v;
		for (size_t i = 0; i < n; i++)
			ids[i] = o[i].rank_slot & ((1u << SLOT_BITS) - 1);
	} else {
		struct ord *o;
		size_t slots = ltap_agg_slots(a), k = 0;
		if (!(o = ltap_agg_alloc(a, v, n * size, n * sizeof *o))) {
			ltap_agg_alloc(a, v, n * size, 0);
			return NULL;
		}
		size = sizeof *o;
		for (size_t i = 0; i < slots; i++)
			if (ltap_agg_live(a, (long)i))
				o[k++] = ord_of(a, i, fig);
		ltap_sort(o, n, size, ord_before, &c);
		ids = (uint32_t *)o;
		for (size_t i = 0; i < n; i++)
			ids[i] = o[i].slot;
		v = o;
	}
	return order_shrink(a, v, n, size);
}

/* the first n slots in a bounded heap */
static uint32_t *order_top(const struct ltap_agg *a, int fig, int desc, size_t n)
{
	struct ord_ctx c = {a, desc};
	size_t slots = ltap_agg_slots(a), k = 0;
	struct ord *v = ltap_agg_alloc(a, NULL, 0, n * sizeof *v);
	uint32_t *ids;

	if (!v)
		return NULL;
	for (size_t i = 0; i < slots; i++) {
		struct ord o;
		if (!ltap_agg_live(a, (long)i))
			continue;
		o = ord_of(a, i, fig);
		ltap_topn_offer(v, &k, n, sizeof *v, &o, ord_before, &c);
	}
	ltap_topn_finish(v, k, sizeof *v, ord_before, &c);
	ids = (uint32_t *)v;
	for (size_t i = 0; i < n; i++)
		ids[i] = v[i].slot;
	return order_shrink(a, v, n, sizeof *v);
}

long ltap_agg_order(const struct ltap_agg *a, int fig, int desc, size_t n, uint32_t **out)
{
	size_t size = ltap_agg_size(a);

	*out = NULL;
	if (n > size)
		n = size;
	if (!n)
		return 0;
	*out = n == size ? order_all(a, fig, desc, n) : order_top(a, fig, desc, n);
	return *out ? (long)n : -ENOMEM;
}

void ltap_agg_order_free(const struct ltap_agg *a, uint32_t *ids, long n)
{
	if (ids)
		ltap_agg_alloc(a, ids, (size_t)n * sizeof *ids, 0);
}
