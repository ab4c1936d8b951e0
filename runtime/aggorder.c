/* aggorder.c: an aggregate's slots in the order of a figure (ltap_agg_order,
 * agg.h): each slot's figure and the start of its key read once, in slot
 * order, into a 24-byte entry; then a sort of those entries in place, or a
 * bounded heap when fewer are asked for. Ties of the figure (most keys of a
 * count share a few values) are mostly settled by the key's start in the
 * entry: a comparison reads a key itself only when two starts are equal. */
#include "agg.h"
#include "sort.h"

#include <errno.h>

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
		struct ltap_agg_num nx = {.is_int = (int)x->is_int, .i = x->v.i, .d = x->v.d};
		struct ltap_agg_num ny = {.is_int = (int)y->is_int, .i = y->v.i, .d = y->v.d};
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

long ltap_agg_order(const struct ltap_agg *a, int fig, int desc, size_t n, uint32_t *out)
{
	struct ord_ctx c = {a, desc};
	size_t size = ltap_agg_size(a), slots = ltap_agg_slots(a), k = 0;
	struct ord *v;

	if (n > size)
		n = size;
	if (!n)
		return 0;
	if (n > SIZE_MAX / sizeof *v || !(v = ltap_agg_alloc(a, NULL, 0, n * sizeof *v)))
		return -ENOMEM;
	if (n == size) {
		for (size_t i = 0; i < slots; i++)
			if (ltap_agg_live(a, (long)i))
				v[k++] = ord_of(a, i, fig);
		ltap_sort(v, n, sizeof *v, ord_before, &c);
	} else {
		for (size_t i = 0; i < slots; i++) {
			struct ord o;
			if (!ltap_agg_live(a, (long)i))
				continue;
			o = ord_of(a, i, fig);
			ltap_topn_offer(v, &k, n, sizeof *v, &o, ord_before, &c);
		}
		ltap_topn_finish(v, k, sizeof *v, ord_before, &c);
	}
	for (size_t i = 0; i < k; i++)
		out[i] = v[i].slot;
	ltap_agg_alloc(a, v, n * sizeof *v, 0);
	return (long)k;
}
