/* agg.c: see agg.h; the layout is in agg_impl.h, keys in aggkey.c.
 *
 * Until a value other than the integer 1 comes (and for an aggregate
 * without a histogram) a slot's figures are the count alone: s:inc costs
 * an increment. The first other value widens every slot once to the full
 * figures. A removed key's slot is marked free and taken by the next new
 * key: the other slots keep their numbers, so a report can go on over them.
 *
 * The index is an array of 8-byte buckets, the key's hash beside the slot
 * (so a probe that misses reads no slot), linear probing at most 3/4 full;
 * a removal shifts back the buckets after it, so there are no tombstones. */
#include "agg_impl.h"

#include <errno.h>
#include <math.h>

#define LOG2_BUCKETS 65 /* (..,0), [0], [1], then [2^k, 2^(k+1)) for k = 1..62 */
#define SLOTS_FIRST 16

void *ltap_agg_alloc(const struct ltap_agg *a, void *p, size_t osize, size_t nsize)
{
	return agg_realloc(a, p, osize, nsize);
}

static struct figs *slot_figs(const struct ltap_agg *a, long i)
{
	return (struct figs *)(agg_slot(a, i) + a->figoff);
}

static int64_t *figs_buckets(struct figs *f)
{
	return (int64_t *)(f + 1);
}

/* -------------------------------------------------------------- index */

/* The bucket of the key: its slot's, or the empty one where it would go. */
static uint64_t *index_find(const struct ltap_agg *a, const struct ltap_agg_part *key, const struct agg_key *k)
{
	size_t mask = a->icap - 1;

	for (size_t j = k->hash & mask;; j = (j + 1) & mask) {
		uint64_t b = a->index[j];
		if (!b)
			return &a->index[j];
		if ((uint32_t)(b >> 32) == k->hash && agg_key_equal(a, agg_slot(a, (long)(uint32_t)b - 1), key, k))
			return &a->index[j];
	}
}

/* the bucket that holds slot i */
static uint64_t *index_of_slot(const struct ltap_agg *a, long i)
{
	size_t mask = a->icap - 1;
	uint64_t want = (uint64_t)(i + 1);

	for (size_t j = ((const struct head *)agg_slot(a, i))->hash & mask;; j = (j + 1) & mask)
		if ((uint32_t)a->index[j] == want)
			return &a->index[j];
}

/* An index of cap buckets (a power of two) with every slot placed. */
static int index_resize(struct ltap_agg *a, size_t cap)
{
	uint64_t *ni = agg_index_new(a, cap);

	if (!ni)
		return -ENOMEM;
	for (size_t i = 0; i < a->n; i++) {
		const struct head *h = (const struct head *)agg_slot(a, (long)i);
		if (!(h->kinds & AGG_SLOT_FREE))
			agg_index_put(ni, cap, h->hash, i + 1);
	}
	agg_release(a, a->index, a->icap * sizeof *a->index);
	a->index = ni;
	a->icap = cap;
	return 0;
}

/* ----------------------------------------------------------- the layout */

static size_t figs_size(const struct ltap_agg *a)
{
	return a->full ? sizeof(struct figs) + (size_t)a->nbuckets * sizeof(int64_t) : sizeof(int64_t);
}

static void figs_fill_counted(struct ltap_agg *a, struct figs *f, int64_t count);

/* From the count alone to the full figures: every slot copied once, the
 * figures of count values of 1 filled in. */
static int agg_widen(struct ltap_agg *a)
{
	size_t old = a->stride, stride;
	char *ns = a->slots;

	a->full = 1;
	stride = a->figoff + figs_size(a);
	if (a->cap) {
		size_t bytes = agg_bytes_of(stride, a->cap);
		if (!bytes || !(ns = agg_realloc(a, a->slots, a->cap * old, bytes))) {
			a->full = 0;
			return -ENOMEM;
		}
	}
	a->slots = ns;
	a->stride = stride;
	a->gen++; /* the slots moved: ltap_agg_count_ref's pointers are stale */
	for (size_t i = a->n; i-- > 0;) {
		int64_t count;
		memcpy(&count, ns + i * old + a->figoff, sizeof count);
		memmove(ns + i * stride, ns + i * old, a->figoff);
		figs_fill_counted(a, slot_figs(a, (long)i), count);
	}
	return 0;
}

/* --------------------------------------------------------- histograms */

static int log2_bucket(double v)
{
	int64_t x;
	int k = 0;

	if (v < 0)
		return 0;
	if (v >= 9.2e18)
		return LOG2_BUCKETS - 1;
	x = (int64_t)v;
	if (x < 2)
		return (int)x + 1;
	while (x >>= 1)
		k++;
	return k + 2 < LOG2_BUCKETS ? k + 2 : LOG2_BUCKETS - 1;
}

static int linear_bucket(const struct ltap_agg *a, double v)
{
	if (v < a->cfg.lmin)
		return 0;
	if (v >= a->cfg.lmax)
		return a->nbuckets - 1;
	return 1 + (int)floor((v - a->cfg.lmin) / a->cfg.lstep);
}

static int value_bucket(const struct ltap_agg *a, double v)
{
	if (v != v)
		return 0; /* NaN: below everything */
	return a->cfg.hist == LTAP_AGG_HIST_LOG2 ? log2_bucket(v) : linear_bucket(a, v);
}

void ltap_agg_bucket_range(const struct ltap_agg *a, int i, double *lo, double *hi, int *lo_open, int *hi_open)
{
	*lo_open = *hi_open = 0;
	if (a->cfg.hist == LTAP_AGG_HIST_LOG2) {
		if (i == 0) {
			*lo_open = 1;
			*lo = *hi = 0;
		} else if (i <= 2) {
			*lo = i - 1;
			*hi = i;
		} else {
			*lo = ldexp(1, i - 2);
			*hi = ldexp(1, i - 1);
			if (i == LOG2_BUCKETS - 1)
				*hi_open = 1;
		}
		return;
	}
	if (i == 0) {
		*lo_open = 1;
		*lo = *hi = a->cfg.lmin;
	} else if (i == a->nbuckets - 1) {
		*hi_open = 1;
		*lo = *hi = a->cfg.lmax;
	} else {
		*lo = a->cfg.lmin + (i - 1) * a->cfg.lstep;
		*hi = *lo + a->cfg.lstep;
		if (*hi > a->cfg.lmax)
			*hi = a->cfg.lmax;
	}
}

/* ------------------------------------------------------------ figures */

/* the full figures of count values, each the integer 1 */
static void figs_fill_counted(struct ltap_agg *a, struct figs *f, int64_t count)
{
	memset(f, 0, figs_size(a));
	f->count = count;
	f->sum.i = count;
	f->min.i = f->max.i = 1;
	f->shift = 1;
	if (a->nbuckets)
		figs_buckets(f)[value_bucket(a, 1)] = count;
}

static void figs_spread(struct ltap_agg *a, struct figs *f, double v)
{
	double d;

	if (f->count++ == 0)
		f->shift = v;
	d = v - f->shift;
	f->s1 += d;
	f->s2 += d * d;
	if (a->nbuckets)
		figs_buckets(f)[value_bucket(a, v)]++;
}

/* switches a slot's sum, min and max to floats from here on */
static void figs_floats(struct figs *f)
{
	f->is_float = 1;
	f->sum.d = (double)f->sum.i;
	f->min.d = (double)f->min.i;
	f->max.d = (double)f->max.i;
}

int ltap_agg_slot_add_int(struct ltap_agg *a, long slot, int64_t x)
{
	struct figs *f;

	if (!a->full) {
		if (x == 1) {
			((int64_t *)(agg_slot(a, slot) + a->figoff))[0]++;
			return 0;
		}
		if (agg_widen(a))
			return -ENOMEM;
	}
	f = slot_figs(a, slot);
	if (f->is_float)
		return ltap_agg_slot_add_float(a, slot, (double)x);
	if (f->count == 0 || x < f->min.i)
		f->min.i = x;
	if (f->count == 0 || x > f->max.i)
		f->max.i = x;
	f->sum.i = (int64_t)((uint64_t)f->sum.i + (uint64_t)x); /* wraps, as Lua's integers */
	figs_spread(a, f, (double)x);
	return 0;
}

int ltap_agg_slot_add_float(struct ltap_agg *a, long slot, double v)
{
	struct figs *f;

	if (!a->full && agg_widen(a))
		return -ENOMEM;
	f = slot_figs(a, slot);
	if (!f->is_float)
		figs_floats(f);
	if (f->count == 0 || v < f->min.d)
		f->min.d = v;
	if (f->count == 0 || v > f->max.d)
		f->max.d = v;
	f->sum.d += v;
	figs_spread(a, f, v);
	return 0;
}

/* the sample variance (n - 1), from the shifted sums */
static double figs_var(const struct figs *f)
{
	double n = (double)f->count, v;

	if (f->count < 2)
		return 0;
	v = (f->s2 - f->s1 * f->s1 / n) / (n - 1);
	return v > 0 ? v : 0;
}

static struct ltap_agg_num num_int(int64_t i)
{
	return (struct ltap_agg_num){.is_int = 1, .i = i};
}

static struct ltap_agg_num num_float(double d)
{
	return (struct ltap_agg_num){.d = d};
}

struct ltap_agg_num ltap_agg_figure(const struct ltap_agg *a, long slot, int fig)
{
	const struct figs *f = slot_figs(a, slot);

	if (!a->full) {
		switch (fig) {
		case LTAP_AGG_COUNT:
		case LTAP_AGG_SUM: return num_int(f->count);
		case LTAP_AGG_MIN:
		case LTAP_AGG_MAX: return num_int(1);
		case LTAP_AGG_AVG: return num_float(1);
		default: return num_float(0);
		}
	}
	switch (fig) {
	case LTAP_AGG_COUNT: return num_int(f->count);
	case LTAP_AGG_SUM: return f->is_float ? num_float(f->sum.d) : num_int(f->sum.i);
	case LTAP_AGG_MIN: return f->is_float ? num_float(f->min.d) : num_int(f->min.i);
	case LTAP_AGG_MAX: return f->is_float ? num_float(f->max.d) : num_int(f->max.i);
	case LTAP_AGG_AVG: return num_float(f->count ? f->shift + f->s1 / (double)f->count : 0);
	case LTAP_AGG_VAR: return num_float(figs_var(f));
	default: return num_float(sqrt(figs_var(f)));
	}
}

int ltap_agg_nbuckets(const struct ltap_agg *a)
{
	return a->nbuckets;
}

const int64_t *ltap_agg_buckets(const struct ltap_agg *a, long slot)
{
	return a->nbuckets ? figs_buckets(slot_figs(a, slot)) : NULL;
}

/* ------------------------------------------------------------- adding */

/* Room for one more slot, its bucket and its strings; nothing changed when
 * refused. */
static int agg_reserve(struct ltap_agg *a, const struct ltap_agg_part *key, const struct agg_key *k)
{
	if (!a->free && a->n == a->cap) {
		size_t cap = a->cap ? a->cap * 2 : SLOTS_FIRST, bytes = agg_bytes_of(a->stride, cap);
		char *ns = bytes ? agg_realloc(a, a->slots, a->cap * a->stride, bytes) : NULL;
		if (!ns)
			return -ENOMEM;
		a->slots = ns;
		a->cap = cap;
		a->gen++; /* the slots moved */
	}
	if ((a->live + 1) * 4 > a->icap * 3 && index_resize(a, a->icap ? a->icap * 2 : AGG_INDEX_FIRST))
		return -ENOMEM;
	return agg_key_reserve(a, key, k);
}

/* the first key: its parts fix the slots' layout */
static void agg_first(struct ltap_agg *a, const struct ltap_agg_part *key, int n)
{
	agg_key_shape(a, key, n);
	a->stride = a->figoff + figs_size(a);
}

long ltap_agg_slot(struct ltap_agg *a, const struct ltap_agg_part *key, int n, int create)
{
	struct agg_key k;
	uint64_t *b;
	int first = a->arity < 0;
	long i;

	if (n < 0 || n > LTAP_AGG_MAX_PARTS || (!first && n != a->arity))
		return -EINVAL;
	if (first && !create)
		return LTAP_AGG_ABSENT;
	if (first)
		agg_first(a, key, n);
	if (agg_key_make(a, key, n, &k)) {
		if (first)
			a->arity = -1;
		return -EINVAL;
	}
	if (a->icap) {
		b = index_find(a, key, &k);
		if (*b)
			return (long)(uint32_t)*b - 1;
	}
	if (!create)
		return LTAP_AGG_ABSENT;
	if (a->live >= a->cfg.max_keys) {
		if (!a->cfg.drop_when_full)
			return -ENOSPC;
		a->dropped++;
		return LTAP_AGG_DROPPED;
	}
	if (agg_reserve(a, key, &k))
		return -ENOMEM;
	if (a->free) {
		i = (long)a->free - 1;
		a->free = ((struct head *)agg_slot(a, i))->hash;
	} else {
		i = (long)a->n++;
	}
	a->live++;
	agg_key_store(a, agg_slot(a, i), key, &k);
	memset(slot_figs(a, i), 0, figs_size(a));
	agg_index_put(a->index, a->icap, k.hash, (uint64_t)i + 1);
	return i;
}

int ltap_agg_add_int(struct ltap_agg *a, const struct ltap_agg_part *key, int n, int64_t v)
{
	long i = ltap_agg_slot(a, key, n, 1);
	return i < 0 ? (int)i : ltap_agg_slot_add_int(a, i, v);
}

int ltap_agg_add_float(struct ltap_agg *a, const struct ltap_agg_part *key, int n, double v)
{
	long i = ltap_agg_slot(a, key, n, 1);
	return i < 0 ? (int)i : ltap_agg_slot_add_float(a, i, v);
}

/* ------------------------------------------------------------ reading */

size_t ltap_agg_size(const struct ltap_agg *a)
{
	return a->live;
}

size_t ltap_agg_slots(const struct ltap_agg *a)
{
	return a->n;
}

int ltap_agg_live(const struct ltap_agg *a, long slot)
{
	return slot >= 0 && (size_t)slot < a->n && !(((const struct head *)agg_slot(a, slot))->kinds & AGG_SLOT_FREE);
}

int ltap_agg_arity(const struct ltap_agg *a)
{
	return a->arity;
}

int64_t ltap_agg_dropped(const struct ltap_agg *a)
{
	return a->dropped;
}

size_t ltap_agg_bytes(const struct ltap_agg *a)
{
	return sizeof *a + a->cap * a->stride + a->icap * sizeof *a->index + a->scap + a->ncap * sizeof *a->intern;
}

const struct ltap_agg_config *ltap_agg_config(const struct ltap_agg *a)
{
	return &a->cfg;
}

unsigned ltap_agg_generation(const struct ltap_agg *a)
{
	return a->gen;
}

const unsigned *ltap_agg_generation_ref(const struct ltap_agg *a)
{
	return &a->gen;
}

int64_t *ltap_agg_count_ref(struct ltap_agg *a, long slot)
{
	return a->full ? NULL : (int64_t *)(agg_slot(a, slot) + a->figoff);
}

/* ----------------------------------------------------------- removing */

void ltap_agg_remove(struct ltap_agg *a, long slot)
{
	struct head *h = (struct head *)agg_slot(a, slot);

	agg_index_delete(a->index, a->icap, (size_t)(index_of_slot(a, slot) - a->index));
	agg_key_release(a, (char *)h);
	h->kinds = AGG_SLOT_FREE;
	h->hash = (uint32_t)a->free;
	a->free = (size_t)slot + 1;
	a->live--;
	a->gen++;
	agg_key_compact(a);
}

void ltap_agg_clear(struct ltap_agg *a)
{
	a->n = a->live = a->free = 0;
	if (a->index)
		memset(a->index, 0, a->icap * sizeof *a->index);
	if (a->intern)
		memset(a->intern, 0, a->ncap * sizeof *a->intern);
	a->slen = a->sdead = a->nstr = 0;
	a->dropped = 0;
	a->gen++;
}

/* ----------------------------------------------------- making, freeing */

struct ltap_agg *ltap_agg_new(const struct ltap_agg_config *cfg, ltap_alloc_fn alloc, void *ud)
{
	struct ltap_agg *a = alloc(ud, NULL, 0, sizeof *a);

	if (!a)
		return NULL;
	memset(a, 0, sizeof *a);
	a->cfg = *cfg;
	a->alloc = alloc;
	a->ud = ud;
	a->arity = -1;
	if (cfg->hist == LTAP_AGG_HIST_LOG2)
		a->nbuckets = LOG2_BUCKETS;
	else if (cfg->hist == LTAP_AGG_HIST_LINEAR)
		a->nbuckets = 2 + (int)ceil((cfg->lmax - cfg->lmin) / cfg->lstep);
	a->full = a->nbuckets > 0; /* a histogram's buckets are always there */
	return a;
}

void ltap_agg_free(struct ltap_agg *a)
{
	if (!a)
		return;
	agg_release(a, a->slots, a->cap * a->stride);
	agg_release(a, a->index, a->icap * sizeof *a->index);
	agg_key_free_strings(a);
	a->alloc(a->ud, a, sizeof *a, 0);
}
