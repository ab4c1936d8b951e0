/* agg.c: see agg.h.
 *
 * A slot is a head (the key's hash, the kinds of its parts), one 8-byte word
 * per part (an integer, a float's bits, a boolean, or a string's offset in
 * the arena), then the figures. Until a value other than the integer 1 comes
 * (and for an aggregate without a histogram) the figures are the count
 * alone: s:inc costs an increment, a count key 24 bytes. The first other
 * value widens every slot once to the full figures.
 *
 * A removed key's slot is marked free and taken by the next new key: the
 * other slots keep their numbers, so a report can go on over them.
 *
 * The index is an array of 8-byte buckets, the key's hash beside the slot
 * (so a probe that misses reads no slot), linear probing at most 3/4 full;
 * a removal shifts back the buckets after it, so there are no tombstones.
 * Strings live in one arena (4-byte aligned records: length, references,
 * bytes); with several parts, one record per distinct string, found through
 * a second index when a key is made (never on the add of a known key). */
#include "agg.h"

#include <errno.h>
#include <math.h>
#include <string.h>

#define LOG2_BUCKETS 65 /* (..,0), [0], [1], then [2^k, 2^(k+1)) for k = 1..62 */
#define INDEX_FIRST 16
#define SLOTS_FIRST 16
#define ARENA_FIRST 1024
#define ARENA_MAX ((size_t)UINT32_MAX * 4) /* offsets are kept in 4-byte units in the string index */

struct head {
	uint32_t hash;  /* a removed slot: the next one free, + 1 */
	uint32_t kinds; /* 2 bits per part, and SLOT_FREE */
};

#define SLOT_FREE (1u << 31)

/* the full figures; in the count layout only count is there */
struct figs {
	int64_t count;
	int64_t is_float;  /* a float was added: sum, min and max are d */
	union {
		int64_t i;
		double d;
	} sum, min, max;
	double shift, s1, s2; /* sums of (v - shift) and its square: the variance
			       * without a division per add (shift: the first value) */
	/* then the buckets */
};

struct str {
	uint32_t len;
	uint32_t refs;
	/* then the bytes */
};

struct ltap_agg {
	struct ltap_agg_config cfg;
	ltap_alloc_fn alloc;
	void *ud;
	int nbuckets;
	int arity;        /* -1 until the first key */
	int full;         /* the full figures (else the count alone) */
	size_t stride;    /* bytes per slot */
	size_t figoff;    /* where the figures start in a slot */
	char *slots;
	size_t n, cap;    /* slots used (free ones included), and room */
	size_t live;      /* keys */
	size_t free;      /* the first free slot + 1; 0 none */
	uint64_t *index;  /* hash << 32 | slot + 1; 0 empty */
	size_t icap;
	char *strs;       /* the arena */
	size_t slen, scap, sdead;
	uint64_t *intern; /* hash << 32 | offset / 4 + 1, with several parts */
	size_t ncap, nstr;
	int64_t dropped;
	unsigned gen;
};

/* ------------------------------------------------------------- memory */

static void *agg_realloc(struct ltap_agg *a, void *p, size_t osize, size_t nsize)
{
	return a->alloc(a->ud, p, p ? osize : 0, nsize);
}

void *ltap_agg_alloc(const struct ltap_agg *a, void *p, size_t osize, size_t nsize)
{
	return a->alloc(a->ud, p, p ? osize : 0, nsize);
}

static void agg_release(struct ltap_agg *a, void *p, size_t size)
{
	if (p)
		a->alloc(a->ud, p, size, 0);
}

/* size * count, or 0 when it would not fit a size_t */
static size_t agg_bytes_of(size_t size, size_t count)
{
	return count && size > SIZE_MAX / count ? 0 : size * count;
}

/* ------------------------------------------------------------ hashing */

static inline uint64_t mix(uint64_t h, uint64_t w)
{
	h = (h ^ w) * 0x9e3779b97f4a7c15ull;
	return h ^ (h >> 29);
}

static uint32_t finish(uint64_t h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ull;
	h ^= h >> 33;
	return (uint32_t)h;
}

static uint64_t str_hash(const char *p, size_t len)
{
	uint64_t h = mix(0x243f6a8885a308d3ull, len), w;

	for (; len >= 8; p += 8, len -= 8) {
		memcpy(&w, p, 8);
		h = mix(h, w);
	}
	if (len) {
		w = 0;
		memcpy(&w, p, len);
		h = mix(h, w);
	}
	return h;
}

/* the word a part is kept as (a string: its hash, here) */
static uint64_t part_word(const struct ltap_agg_part *p)
{
	uint64_t w;

	switch (p->kind) {
	case LTAP_AGG_INT: return (uint64_t)p->v.i;
	case LTAP_AGG_FLOAT: memcpy(&w, &p->v.d, sizeof w); return w;
	case LTAP_AGG_BOOL: return p->v.b != 0;
	default: return str_hash(p->v.s.p, p->v.s.len);
	}
}

static int float_is_int(double d)
{
	return d == floor(d) && d >= -9223372036854775808.0 && d < 9223372036854775808.0;
}

/* a float part: not NaN, not a value an integer part has */
static int float_part_ok(double d)
{
	return d == d && !float_is_int(d);
}

/* The key's hash and kinds; -EINVAL for a bad part. */
static int key_hash(const struct ltap_agg_part *key, int n, uint32_t *hash, uint32_t *kinds)
{
	uint64_t h = 0x13198a2e03707344ull ^ (uint64_t)n;
	uint32_t k = 0;

	for (int i = 0; i < n; i++) {
		if (key[i].kind < LTAP_AGG_INT || key[i].kind > LTAP_AGG_BOOL)
			return -EINVAL;
		if (key[i].kind == LTAP_AGG_FLOAT && !float_part_ok(key[i].v.d))
			return -EINVAL; /* NaN, or an integer that was not made one */
		k |= (uint32_t)key[i].kind << (2 * i);
		h = mix(h, (uint64_t)key[i].kind << 62 ^ part_word(&key[i]));
	}
	*hash = finish(h);
	*kinds = k;
	return 0;
}

int ltap_agg_number_part(struct ltap_agg_part *part, double d)
{
	if (d != d)
		return -EINVAL;
	if (float_is_int(d)) {
		*part = LTAP_AGG_INT_PART((int64_t)d);
	} else {
		part->kind = LTAP_AGG_FLOAT;
		part->v.d = d;
	}
	return 0;
}

/* -------------------------------------------------------------- slots */

static char *slot_at(const struct ltap_agg *a, long i)
{
	return a->slots + (size_t)i * a->stride;
}

static const uint64_t *slot_words(const char *slot)
{
	return (const uint64_t *)(slot + sizeof(struct head));
}

static struct figs *slot_figs(const struct ltap_agg *a, long i)
{
	return (struct figs *)(slot_at(a, i) + a->figoff);
}

static int64_t *figs_buckets(struct figs *f)
{
	return (int64_t *)(f + 1);
}

static struct str *str_at(const struct ltap_agg *a, uint64_t off)
{
	return (struct str *)(a->strs + off);
}

static const char *str_bytes(const struct str *s)
{
	return (const char *)(s + 1);
}

static size_t str_record(size_t len)
{
	return (sizeof(struct str) + len + 3) & ~(size_t)3;
}

static int key_equal(const struct ltap_agg *a, const char *slot, const struct ltap_agg_part *key, int n)
{
	const uint64_t *w = slot_words(slot);

	for (int i = 0; i < n; i++) {
		const struct str *s;
		switch (key[i].kind) {
		case LTAP_AGG_STR:
			s = str_at(a, w[i]);
			if (s->len != key[i].v.s.len || memcmp(str_bytes(s), key[i].v.s.p, s->len) != 0)
				return 0;
			break;
		case LTAP_AGG_BOOL:
			if (w[i] != (uint64_t)(key[i].v.b != 0))
				return 0;
			break;
		default: /* an integer or a float's bits */
			if (w[i] != part_word(&key[i]))
				return 0;
		}
	}
	return 1;
}

/* The bucket of the key: its slot's, or the empty one where it would go. */
static uint64_t *index_find(const struct ltap_agg *a, const struct ltap_agg_part *key, int n, uint32_t hash,
			    uint32_t kinds)
{
	size_t mask = a->icap - 1;

	for (size_t j = hash & mask;; j = (j + 1) & mask) {
		uint64_t b = a->index[j];
		const char *slot;
		if (!b)
			return &a->index[j];
		if ((uint32_t)(b >> 32) != hash)
			continue;
		slot = slot_at(a, (long)(uint32_t)b - 1);
		if (((const struct head *)slot)->kinds == kinds && key_equal(a, slot, key, n))
			return &a->index[j];
	}
}

/* the bucket that holds slot i */
static uint64_t *index_of_slot(const struct ltap_agg *a, long i)
{
	size_t mask = a->icap - 1;
	uint64_t want = (uint64_t)(i + 1);

	for (size_t j = ((const struct head *)slot_at(a, i))->hash & mask;; j = (j + 1) & mask)
		if ((uint32_t)a->index[j] == want)
			return &a->index[j];
}

static void index_put(uint64_t *index, size_t cap, uint32_t hash, uint64_t value)
{
	size_t j;

	for (j = hash & (cap - 1); index[j]; j = (j + 1) & (cap - 1))
		;
	index[j] = (uint64_t)hash << 32 | value;
}

/* Empties bucket j of a linear-probing index, moving back the buckets of
 * its run that may go where it was. */
static void index_delete(uint64_t *index, size_t cap, size_t j)
{
	size_t mask = cap - 1;

	for (size_t k = (j + 1) & mask; index[k]; k = (k + 1) & mask) {
		size_t home = (size_t)(index[k] >> 32) & mask;
		/* k's bucket may move to j unless its home lies in (j, k] */
		if (((k - home) & mask) >= ((k - j) & mask)) {
			index[j] = index[k];
			j = k;
		}
	}
	index[j] = 0;
}

/* An index of cap buckets (a power of two) with every slot placed. */
static int index_resize(struct ltap_agg *a, size_t cap)
{
	size_t bytes = agg_bytes_of(sizeof(uint64_t), cap);
	uint64_t *ni = bytes ? agg_realloc(a, NULL, 0, bytes) : NULL;

	if (!ni)
		return -ENOMEM;
	memset(ni, 0, bytes);
	for (size_t i = 0; i < a->n; i++) {
		const struct head *h = (const struct head *)slot_at(a, (long)i);
		if (!(h->kinds & SLOT_FREE))
			index_put(ni, cap, h->hash, i + 1);
	}
	agg_release(a, a->index, a->icap * sizeof *a->index);
	a->index = ni;
	a->icap = cap;
	return 0;
}

/* ------------------------------------------------------------ strings */

static uint64_t *intern_find(const struct ltap_agg *a, const char *p, size_t len, uint32_t hash)
{
	size_t mask = a->ncap - 1;

	for (size_t j = hash & mask;; j = (j + 1) & mask) {
		uint64_t b = a->intern[j];
		const struct str *s;
		if (!b)
			return &a->intern[j];
		if ((uint32_t)(b >> 32) != hash)
			continue;
		s = str_at(a, ((uint32_t)b - 1) * (uint64_t)4);
		if (s->len == len && memcmp(str_bytes(s), p, len) == 0)
			return &a->intern[j];
	}
}

static int intern_resize(struct ltap_agg *a, size_t cap)
{
	size_t bytes = agg_bytes_of(sizeof(uint64_t), cap);
	uint64_t *ni = bytes ? agg_realloc(a, NULL, 0, bytes) : NULL;

	if (!ni)
		return -ENOMEM;
	memset(ni, 0, bytes);
	for (size_t j = 0; j < a->ncap; j++)
		if (a->intern[j])
			index_put(ni, cap, (uint32_t)(a->intern[j] >> 32), (uint32_t)a->intern[j]);
	agg_release(a, a->intern, a->ncap * sizeof *a->intern);
	a->intern = ni;
	a->ncap = cap;
	return 0;
}

static int arena_reserve(struct ltap_agg *a, size_t more)
{
	size_t cap = a->scap ? a->scap : ARENA_FIRST;
	char *ns;

	if (a->slen + more <= a->scap)
		return 0;
	while (cap < a->slen + more)
		cap *= 2;
	if (cap > ARENA_MAX || !(ns = agg_realloc(a, a->strs, a->scap, cap)))
		return -ENOMEM;
	a->strs = ns;
	a->scap = cap;
	return 0;
}

/* The arena offset of a copy of the string (room reserved), shared with an
 * equal one when there is an intern index. */
static uint64_t str_keep(struct ltap_agg *a, const char *p, size_t len)
{
	uint64_t *b = NULL, off = a->slen;
	uint32_t hash = 0;
	struct str *s;

	if (a->intern) {
		hash = finish(str_hash(p, len));
		b = intern_find(a, p, len, hash);
		if (*b) {
			off = ((uint32_t)*b - 1) * (uint64_t)4;
			str_at(a, off)->refs++;
			return off;
		}
	}
	s = str_at(a, off);
	s->len = (uint32_t)len;
	s->refs = 1;
	if (len)
		memcpy((char *)(s + 1), p, len);
	a->slen += str_record(len);
	if (b) {
		*b = (uint64_t)hash << 32 | (off / 4 + 1);
		a->nstr++;
	}
	return off;
}

static void str_drop(struct ltap_agg *a, uint64_t off)
{
	struct str *s = str_at(a, off);

	if (--s->refs)
		return;
	a->sdead += str_record(s->len);
	if (a->intern) {
		uint32_t hash = finish(str_hash(str_bytes(s), s->len));
		uint64_t *b = intern_find(a, str_bytes(s), s->len, hash);
		index_delete(a->intern, a->ncap, (size_t)(b - a->intern));
		a->nstr--;
	}
}

/* Copies the live strings into a new arena (and index) when most of the old
 * one is dead; keeps the old one when the allocator refuses. */
static void arena_compact(struct ltap_agg *a)
{
	struct ltap_agg old = *a;
	size_t live = a->slen - a->sdead, cap = ARENA_FIRST;

	while (cap < live)
		cap *= 2;
	a->strs = NULL;
	a->slen = a->scap = a->sdead = 0;
	a->intern = NULL;
	a->ncap = a->nstr = 0;
	if (arena_reserve(a, cap) || (old.intern && intern_resize(a, old.ncap)))
		goto refused;
	for (size_t i = 0; i < a->n; i++) {
		uint32_t kinds = ((struct head *)slot_at(a, (long)i))->kinds;
		uint64_t *w = (uint64_t *)slot_words(slot_at(a, (long)i));
		if (kinds & SLOT_FREE)
			continue;
		for (int p = 0; p < a->arity; p++) {
			const struct str *s;
			if ((kinds >> (2 * p) & 3) != LTAP_AGG_STR)
				continue;
			s = str_at(&old, w[p]);
			w[p] = str_keep(a, str_bytes(s), s->len);
		}
	}
	agg_release(a, old.strs, old.scap);
	agg_release(a, old.intern, old.ncap * sizeof *old.intern);
	return;
refused:
	agg_release(a, a->strs, a->scap);
	agg_release(a, a->intern, a->ncap * sizeof *a->intern);
	a->strs = old.strs;
	a->slen = old.slen;
	a->scap = old.scap;
	a->sdead = old.sdead;
	a->intern = old.intern;
	a->ncap = old.ncap;
	a->nstr = old.nstr;
}

/* ----------------------------------------------------------- the layout */

static size_t figs_size(const struct ltap_agg *a)
{
	return a->full ? sizeof(struct figs) + (size_t)a->nbuckets * sizeof(int64_t) : sizeof(int64_t);
}

/* The first key: its parts fix the slots' layout. */
static void agg_shape(struct ltap_agg *a, int n)
{
	a->arity = n;
	a->figoff = sizeof(struct head) + (size_t)n * sizeof(uint64_t);
	a->stride = a->figoff + figs_size(a);
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
			((int64_t *)(slot_at(a, slot) + a->figoff))[0]++;
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
static int agg_reserve(struct ltap_agg *a, const struct ltap_agg_part *key, int n)
{
	size_t strbytes = 0, nstrs = 0;

	if (!a->free && a->n == a->cap) {
		size_t cap = a->cap ? a->cap * 2 : SLOTS_FIRST, bytes = agg_bytes_of(a->stride, cap);
		char *ns = bytes ? agg_realloc(a, a->slots, a->cap * a->stride, bytes) : NULL;
		if (!ns)
			return -ENOMEM;
		a->slots = ns;
		a->cap = cap;
	}
	if ((a->live + 1) * 4 > a->icap * 3 && index_resize(a, a->icap ? a->icap * 2 : INDEX_FIRST))
		return -ENOMEM;
	for (int i = 0; i < n; i++)
		if (key[i].kind == LTAP_AGG_STR) {
			if (key[i].v.s.len > UINT32_MAX - 8)
				return -ENOMEM;
			strbytes += str_record(key[i].v.s.len);
			nstrs++;
		}
	if (strbytes && arena_reserve(a, strbytes))
		return -ENOMEM;
	if (n > 1 && nstrs) {
		if (!a->intern && intern_resize(a, INDEX_FIRST))
			return -ENOMEM;
		if ((a->nstr + nstrs) * 4 > a->ncap * 3 && intern_resize(a, a->ncap * 2))
			return -ENOMEM;
	}
	return 0;
}

long ltap_agg_slot(struct ltap_agg *a, const struct ltap_agg_part *key, int n, int create)
{
	uint32_t hash, kinds;
	uint64_t *b;
	struct head *h;
	uint64_t *w;
	long i;

	if (n < 0 || n > LTAP_AGG_MAX_PARTS || (a->arity >= 0 && n != a->arity) || key_hash(key, n, &hash, &kinds))
		return -EINVAL;
	if (a->icap) {
		b = index_find(a, key, n, hash, kinds);
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
	if (a->arity < 0)
		agg_shape(a, n);
	if (agg_reserve(a, key, n))
		return -ENOMEM;
	if (a->free) {
		i = (long)a->free - 1;
		a->free = ((struct head *)slot_at(a, i))->hash;
	} else {
		i = (long)a->n++;
	}
	a->live++;
	h = (struct head *)slot_at(a, i);
	h->hash = hash;
	h->kinds = kinds;
	w = (uint64_t *)slot_words((char *)h);
	for (int p = 0; p < n; p++)
		w[p] = key[p].kind == LTAP_AGG_STR ? str_keep(a, key[p].v.s.p, key[p].v.s.len) : part_word(&key[p]);
	memset(slot_figs(a, i), 0, figs_size(a));
	index_put(a->index, a->icap, hash, (uint64_t)i + 1);
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
	return slot >= 0 && (size_t)slot < a->n && !(((const struct head *)slot_at(a, slot))->kinds & SLOT_FREE);
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

void ltap_agg_key(const struct ltap_agg *a, long slot, struct ltap_agg_part *key)
{
	const char *s = slot_at(a, slot);
	uint32_t kinds = ((const struct head *)s)->kinds;
	const uint64_t *w = slot_words(s);

	for (int p = 0; p < a->arity; p++) {
		const struct str *str;
		key[p].kind = (int)(kinds >> (2 * p) & 3);
		switch (key[p].kind) {
		case LTAP_AGG_INT: key[p].v.i = (int64_t)w[p]; break;
		case LTAP_AGG_FLOAT: memcpy(&key[p].v.d, &w[p], sizeof(double)); break;
		case LTAP_AGG_BOOL: key[p].v.b = (int)w[p]; break;
		default:
			str = str_at(a, w[p]);
			key[p].v.s.p = str_bytes(str);
			key[p].v.s.len = str->len;
		}
	}
}

/* ---------------------------------------------------------- comparing */

static int int_float_cmp(int64_t i, double f)
{
	double fl;
	int64_t fi;

	if (f != f)
		return -1;
	if (f >= 9223372036854775808.0)
		return -1;
	if (f < -9223372036854775808.0)
		return 1;
	fl = floor(f);
	fi = (int64_t)fl;
	if (i != fi)
		return i < fi ? -1 : 1;
	return f > fl ? -1 : 0;
}

int ltap_agg_num_cmp(const struct ltap_agg_num *x, const struct ltap_agg_num *y)
{
	if (x->is_int && y->is_int)
		return (x->i > y->i) - (x->i < y->i);
	if (x->is_int)
		return int_float_cmp(x->i, y->d);
	if (y->is_int)
		return -int_float_cmp(y->i, x->d);
	if (x->d != x->d || y->d != y->d)
		return (x->d != x->d) - (y->d != y->d);
	return (x->d > y->d) - (x->d < y->d);
}

static int kind_rank(uint32_t kind)
{
	return kind == LTAP_AGG_FLOAT ? LTAP_AGG_INT : (int)kind;
}

static struct ltap_agg_num word_num(uint32_t kind, uint64_t w)
{
	struct ltap_agg_num n = {.is_int = kind == LTAP_AGG_INT, .i = (int64_t)w};

	if (!n.is_int)
		memcpy(&n.d, &w, sizeof n.d);
	return n;
}

int ltap_agg_key_cmp(const struct ltap_agg *a, long s1, long s2)
{
	const char *x = slot_at(a, s1), *y = slot_at(a, s2);
	uint32_t kx = ((const struct head *)x)->kinds, ky = ((const struct head *)y)->kinds;
	const uint64_t *wx = slot_words(x), *wy = slot_words(y);

	for (int p = 0; p < a->arity; p++, kx >>= 2, ky >>= 2) {
		uint32_t ka = kx & 3, kb = ky & 3;
		int c;
		if (kind_rank(ka) != kind_rank(kb))
			return kind_rank(ka) < kind_rank(kb) ? -1 : 1;
		if (wx[p] == wy[p] && ka == kb)
			continue;
		if (ka == LTAP_AGG_STR) {
			const struct str *sa = str_at(a, wx[p]), *sb = str_at(a, wy[p]);
			c = memcmp(str_bytes(sa), str_bytes(sb), sa->len < sb->len ? sa->len : sb->len);
			if (!c)
				c = (sa->len > sb->len) - (sa->len < sb->len);
		} else if (ka == LTAP_AGG_BOOL) {
			c = (wx[p] > wy[p]) - (wx[p] < wy[p]);
		} else {
			struct ltap_agg_num na = word_num(ka, wx[p]), nb = word_num(kb, wy[p]);
			c = ltap_agg_num_cmp(&na, &nb);
		}
		if (c)
			return c < 0 ? -1 : 1;
	}
	return 0;
}

/* a float's bits made to sort as the float does (NaN aside) */
static uint64_t float_order(double d)
{
	uint64_t u;

	memcpy(&u, &d, sizeof u);
	return u >> 63 ? ~u : u | (uint64_t)1 << 63;
}

uint64_t ltap_agg_key_prefix(const struct ltap_agg *a, long slot, int *rank)
{
	const char *x = slot_at(a, slot);
	uint32_t kind = ((const struct head *)x)->kinds & 3;
	uint64_t w = a->arity ? slot_words(x)[0] : 0, p = 0;
	const struct str *s;
	const unsigned char *b;

	*rank = kind_rank(kind);
	if (!a->arity)
		return 0;
	switch (kind) {
	case LTAP_AGG_INT: return float_order((double)(int64_t)w);
	case LTAP_AGG_FLOAT: {
		double d;
		memcpy(&d, &w, sizeof d);
		return float_order(d);
	}
	case LTAP_AGG_BOOL: return w;
	default:
		s = str_at(a, w);
		b = (const unsigned char *)str_bytes(s);
		for (uint32_t i = 0; i < 8; i++)
			p = p << 8 | (i < s->len ? b[i] : 0);
		return p;
	}
}

/* ----------------------------------------------------------- removing */

void ltap_agg_remove(struct ltap_agg *a, long slot)
{
	struct head *h = (struct head *)slot_at(a, slot);
	const uint64_t *w = slot_words((char *)h);

	for (int p = 0; p < a->arity; p++)
		if ((h->kinds >> (2 * p) & 3) == LTAP_AGG_STR)
			str_drop(a, w[p]);
	index_delete(a->index, a->icap, (size_t)(index_of_slot(a, slot) - a->index));
	h->kinds = SLOT_FREE;
	h->hash = (uint32_t)a->free;
	a->free = (size_t)slot + 1;
	a->live--;
	a->gen++;
	if (a->sdead > 65536 && a->sdead * 2 > a->slen)
		arena_compact(a);
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
	agg_release(a, a->strs, a->scap);
	agg_release(a, a->intern, a->ncap * sizeof *a->intern);
	a->alloc(a->ud, a, sizeof *a, 0);
}
