/* aggkey.c: the aggregate's keys (agg_impl.h): parts as words in the slot,
 * long strings in the arena, their hash, and the key order (numbers by
 * value, then strings by their bytes, then booleans). */
#include "agg_impl.h"

#include <errno.h>
#include <math.h>

#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "a short string's bytes are read in place from its words: little-endian only"
#endif

#define ARENA_FIRST 1024
#define ARENA_MAX ((size_t)UINT32_MAX * 4) /* offsets are kept in 4-byte units in the string index */
#define COMPACT_MIN 65536                  /* dead arena bytes worth a copy of the rest */

/* ------------------------------------------------------------ numbers */

static int float_is_int(double d)
{
	return d == floor(d) && d >= -9223372036854775808.0 && d < 9223372036854775808.0;
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

/* ------------------------------------------------------------ strings */

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
	uint64_t h = agg_mix(0x243f6a8885a308d3ull, len), w;

	for (; len >= 8; p += 8, len -= 8) {
		memcpy(&w, p, 8);
		h = agg_mix(h, w);
	}
	if (len) {
		w = 0;
		memcpy(&w, p, len);
		h = agg_mix(h, w);
	}
	return h;
}

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
	uint64_t *ni = agg_index_new(a, cap);

	if (!ni)
		return -ENOMEM;
	for (size_t j = 0; j < a->ncap; j++)
		if (a->intern[j])
			agg_index_put(ni, cap, (uint32_t)(a->intern[j] >> 32), (uint32_t)a->intern[j]);
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
 * equal one when there is a string index. */
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
		agg_index_delete(a->intern, a->ncap, (size_t)(b - a->intern));
		a->nstr--;
	}
}

void agg_key_free_strings(struct ltap_agg *a)
{
	agg_release(a, a->strs, a->scap);
	agg_release(a, a->intern, a->ncap * sizeof *a->intern);
}

/* ---------------------------------------------------------- key words */

static size_t inline_max(int width)
{
	return (size_t)width * 8 - 1;
}

/* the last byte of a part's words: an inline string's length, or AGG_STR_LONG */
static unsigned char *part_tag(uint64_t *w, int width)
{
	return (unsigned char *)w + width * 8 - 1;
}

/* a long string's arena offset, below its tag */
static uint64_t long_offset(const uint64_t *w, int width)
{
	return width == 2 ? w[0] : w[0] & ~((uint64_t)0xff << 56);
}

static void long_set(uint64_t *w, int width, uint64_t off)
{
	w[0] = width == 2 ? off : off | (uint64_t)AGG_STR_LONG << 56;
}

void agg_key_shape(struct ltap_agg *a, const struct ltap_agg_part *key, int n)
{
	int words = 0;

	a->arity = n;
	for (int p = 0; p < n; p++) {
		a->word[p] = (uint8_t)words;
		a->width[p] = key[p].kind == LTAP_AGG_STR ? 2 : 1;
		words += a->width[p];
	}
	a->figoff = sizeof(struct head) + (size_t)words * sizeof(uint64_t);
}

/* The bytes of a string of up to 15 as two words, byte i at bits 8i (the
 * order of memory on a little-endian machine), read without a byte store:
 * storing bytes and then reading them as words stalls on every key. */
static void str_words(const char *p, size_t len, uint64_t *w0, uint64_t *w1)
{
	uint64_t a = 0, b = 0;
	uint32_t x, y;

	if (len >= 8) {
		memcpy(&a, p, 8);
		if (len > 8) {
			memcpy(&b, p + len - 8, 8);
			b >>= (16 - len) * 8;
		}
	} else if (len >= 4) {
		memcpy(&x, p, 4);
		memcpy(&y, p + len - 4, 4);
		a = x | (uint64_t)y << ((len - 4) * 8);
	} else {
		for (size_t i = 0; i < len; i++)
			a |= (uint64_t)(unsigned char)p[i] << (8 * i);
	}
	*w0 = a;
	*w1 = b;
}

int agg_key_make(const struct ltap_agg *a, const struct ltap_agg_part *key, int n, struct agg_key *k)
{
	uint64_t h = 0x13198a2e03707344ull ^ (uint64_t)n, tag;

	k->kinds = 0;
	k->longs = 0;
	for (int p = 0; p < n; p++) {
		uint64_t *w = k->w + a->word[p], w0 = 0, w1 = 0;
		int width = a->width[p];
		switch (key[p].kind) {
		case LTAP_AGG_INT: w0 = (uint64_t)key[p].v.i; break;
		case LTAP_AGG_FLOAT:
			if (key[p].v.d != key[p].v.d || float_is_int(key[p].v.d))
				return -EINVAL; /* NaN, or an integer that was not made one */
			memcpy(&w0, &key[p].v.d, sizeof(double));
			break;
		case LTAP_AGG_BOOL: w0 = key[p].v.b != 0; break;
		case LTAP_AGG_STR:
			if (key[p].v.s.len <= inline_max(width)) {
				str_words(key[p].v.s.p, key[p].v.s.len, &w0, &w1);
				tag = key[p].v.s.len;
			} else {
				tag = AGG_STR_LONG;
				k->longs |= 1u << p;
				h = agg_mix(h, str_hash(key[p].v.s.p, key[p].v.s.len));
			}
			if (width == 2)
				w1 |= tag << 56;
			else
				w0 |= tag << 56;
			break;
		default: return -EINVAL;
		}
		k->kinds |= (uint32_t)key[p].kind << (2 * p);
		h = agg_mix(h, (uint64_t)key[p].kind << 62 ^ w0);
		w[0] = w0;
		if (width == 2) {
			h = agg_mix(h, w1);
			w[1] = w1;
		}
	}
	k->hash = finish(h);
	return 0;
}

int agg_key_equal(const struct ltap_agg *a, char *slot, const struct ltap_agg_part *key, const struct agg_key *k)
{
	const uint64_t *w = agg_words(slot);

	if (((const struct head *)slot)->kinds != k->kinds)
		return 0;
	for (int p = 0; p < a->arity; p++) {
		uint64_t *sw = (uint64_t *)w + a->word[p];
		const uint64_t *kw = k->w + a->word[p];
		int width = a->width[p];
		if (k->longs >> p & 1) {
			const struct str *s;
			if (*part_tag(sw, width) != AGG_STR_LONG)
				return 0;
			s = str_at(a, long_offset(sw, width));
			if (s->len != key[p].v.s.len || memcmp(str_bytes(s), key[p].v.s.p, s->len) != 0)
				return 0;
		} else if (sw[0] != kw[0] || (width == 2 && sw[1] != kw[1])) {
			return 0; /* a short string's tag, its length, tells it from a long one */
		}
	}
	return 1;
}

int agg_key_reserve(struct ltap_agg *a, const struct ltap_agg_part *key, const struct agg_key *k)
{
	size_t bytes = 0, nstrs = 0;

	if (!k->longs)
		return 0;
	for (int p = 0; p < a->arity; p++)
		if (k->longs >> p & 1) {
			if (key[p].v.s.len > UINT32_MAX - 8)
				return -ENOMEM;
			bytes += str_record(key[p].v.s.len);
			nstrs++;
		}
	if (arena_reserve(a, bytes))
		return -ENOMEM;
	if (a->arity > 1) {
		if (!a->intern && intern_resize(a, AGG_INDEX_FIRST))
			return -ENOMEM;
		if ((a->nstr + nstrs) * 4 > a->ncap * 3 && intern_resize(a, a->ncap * 2))
			return -ENOMEM;
	}
	return 0;
}

void agg_key_store(struct ltap_agg *a, char *slot, const struct ltap_agg_part *key, const struct agg_key *k)
{
	uint64_t *w = agg_words(slot);

	((struct head *)slot)->hash = k->hash;
	((struct head *)slot)->kinds = k->kinds;
	memcpy(w, k->w, a->figoff - sizeof(struct head));
	for (int p = 0; p < a->arity; p++)
		if (k->longs >> p & 1)
			long_set(w + a->word[p], a->width[p], str_keep(a, key[p].v.s.p, key[p].v.s.len));
}

static int part_long(const struct ltap_agg *a, uint32_t kinds, uint64_t *w, int p)
{
	return agg_kind(kinds, p) == LTAP_AGG_STR && *part_tag(w + a->word[p], a->width[p]) == AGG_STR_LONG;
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
	if (arena_reserve(a, cap) || (old.intern && intern_resize(a, old.ncap))) {
		agg_key_free_strings(a);
		a->strs = old.strs;
		a->slen = old.slen;
		a->scap = old.scap;
		a->sdead = old.sdead;
		a->intern = old.intern;
		a->ncap = old.ncap;
		a->nstr = old.nstr;
		return;
	}
	for (size_t i = 0; i < a->n; i++) {
		char *slot = agg_slot(a, (long)i);
		uint32_t kinds = ((struct head *)slot)->kinds;
		uint64_t *w = agg_words(slot);
		if (kinds & AGG_SLOT_FREE)
			continue;
		for (int p = 0; p < a->arity; p++) {
			const struct str *s;
			if (!part_long(a, kinds, w, p))
				continue;
			s = str_at(&old, long_offset(w + a->word[p], a->width[p]));
			long_set(w + a->word[p], a->width[p], str_keep(a, str_bytes(s), s->len));
		}
	}
	agg_key_free_strings(&old);
}

void agg_key_release(struct ltap_agg *a, char *slot)
{
	uint32_t kinds = ((struct head *)slot)->kinds;
	uint64_t *w = agg_words(slot);

	for (int p = 0; p < a->arity; p++)
		if (part_long(a, kinds, w, p))
			str_drop(a, long_offset(w + a->word[p], a->width[p]));
}

void agg_key_compact(struct ltap_agg *a)
{
	if (a->sdead > COMPACT_MIN && a->sdead * 2 > a->slen)
		arena_compact(a);
}

/* ----------------------------------------------------------- reading */

static void part_read(const struct ltap_agg *a, char *slot, int p, struct ltap_agg_part *part)
{
	uint64_t *w = agg_words(slot) + a->word[p];
	int width = a->width[p];
	unsigned char tag;

	/* every byte set, the string's too for a number: which union member a
	 * part holds is known only from its kind, and gcc -O3 cannot follow the
	 * kind from here into part_cmp (-Wmaybe-uninitialized) */
	*part = (struct ltap_agg_part){.kind = (int)agg_kind(((const struct head *)slot)->kinds, p), .v.s = {NULL, 0}};
	switch (part->kind) {
	case LTAP_AGG_INT: part->v.i = (int64_t)w[0]; break;
	case LTAP_AGG_FLOAT: memcpy(&part->v.d, w, sizeof(double)); break;
	case LTAP_AGG_BOOL: part->v.b = (int)w[0]; break;
	default:
		tag = *part_tag(w, width);
		if (tag == AGG_STR_LONG) {
			const struct str *s = str_at(a, long_offset(w, width));
			part->v.s.p = str_bytes(s);
			part->v.s.len = s->len;
		} else {
			part->v.s.p = (const char *)w;
			part->v.s.len = tag;
		}
	}
}

void ltap_agg_key(const struct ltap_agg *a, long slot, struct ltap_agg_part *key)
{
	for (int p = 0; p < a->arity; p++)
		part_read(a, agg_slot(a, slot), p, &key[p]);
}

static int kind_rank(int kind)
{
	return kind == LTAP_AGG_FLOAT ? LTAP_AGG_INT : kind;
}

static int part_cmp(const struct ltap_agg_part *x, const struct ltap_agg_part *y)
{
	struct ltap_agg_num nx, ny;
	int c;

	if (kind_rank(x->kind) != kind_rank(y->kind))
		return kind_rank(x->kind) < kind_rank(y->kind) ? -1 : 1;
	switch (x->kind) {
	case LTAP_AGG_STR:
		c = memcmp(x->v.s.p, y->v.s.p, x->v.s.len < y->v.s.len ? x->v.s.len : y->v.s.len);
		if (!c)
			c = (x->v.s.len > y->v.s.len) - (x->v.s.len < y->v.s.len);
		return (c > 0) - (c < 0);
	case LTAP_AGG_BOOL: return (x->v.b > y->v.b) - (x->v.b < y->v.b);
	default:
		nx = (struct ltap_agg_num){.is_int = x->kind == LTAP_AGG_INT, .i = x->v.i, .d = x->v.d};
		ny = (struct ltap_agg_num){.is_int = y->kind == LTAP_AGG_INT, .i = y->v.i, .d = y->v.d};
		if (nx.is_int)
			nx.d = 0;
		else
			nx.i = 0;
		if (ny.is_int)
			ny.d = 0;
		else
			ny.i = 0;
		return ltap_agg_num_cmp(&nx, &ny);
	}
}

int ltap_agg_key_cmp(const struct ltap_agg *a, long s1, long s2)
{
	for (int p = 0; p < a->arity; p++) {
		struct ltap_agg_part x, y;
		int c;
		part_read(a, agg_slot(a, s1), p, &x);
		part_read(a, agg_slot(a, s2), p, &y);
		if ((c = part_cmp(&x, &y)))
			return c;
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
	struct ltap_agg_part x;
	uint64_t p = 0;

	*rank = 0;
	if (!a->arity)
		return 0;
	part_read(a, agg_slot(a, slot), 0, &x);
	*rank = kind_rank(x.kind);
	switch (x.kind) {
	case LTAP_AGG_INT: return float_order((double)x.v.i);
	case LTAP_AGG_FLOAT: return float_order(x.v.d);
	case LTAP_AGG_BOOL: return (uint64_t)x.v.b;
	default:
		for (size_t i = 0; i < 8; i++)
			p = p << 8 | (i < x.v.s.len ? (unsigned char)x.v.s.p[i] : 0);
		return p;
	}
}
