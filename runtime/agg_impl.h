/* agg_impl.h: the inside of the aggregate (agg.h), shared by its two files:
 * agg.c (slots, index, figures) and aggkey.c (keys as words, the string
 * arena). agg.h is the API; nothing else includes this.
 *
 * A slot is a head (the key's hash, the kinds of its parts), the key's
 * words, then the figures. A part takes one 8-byte word (an integer, a
 * float's bits, a boolean, or a string of up to 7 bytes), or two when the
 * first key had a string there (a string of up to 15 bytes: a comm, a
 * syscall's name): such strings live in the slot itself, so finding their
 * key reads no other memory. A longer string is kept in the arena (4-byte
 * aligned records: length, references, bytes) and the part holds its
 * offset; with several parts, one record per distinct string, found
 * through a second index when a key is made, never on the add of a known
 * key. */
#ifndef LTAP_AGG_IMPL_H
#define LTAP_AGG_IMPL_H

#include "agg.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define AGG_INDEX_FIRST 16
#define AGG_SLOT_FREE (1u << 31)
#define AGG_STR_LONG 0xff /* in the last byte of a string part: kept in the arena */

struct head {
	uint32_t hash;  /* a removed slot: the next one free, + 1 */
	uint32_t kinds; /* 2 bits per part, and AGG_SLOT_FREE */
};

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
	uint8_t width[LTAP_AGG_MAX_PARTS]; /* words of each part */
	uint8_t word[LTAP_AGG_MAX_PARTS];  /* where each part's words start */
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

/* a key as looked up: its words, hash and kinds */
struct agg_key {
	uint64_t w[2 * LTAP_AGG_MAX_PARTS];
	uint32_t hash, kinds;
	uint32_t longs;   /* bit p: part p is a string for the arena */
};

static inline char *agg_slot(const struct ltap_agg *a, long i)
{
	return a->slots + (size_t)i * a->stride;
}

static inline uint64_t *agg_words(char *slot)
{
	return (uint64_t *)(slot + sizeof(struct head));
}

static inline uint32_t agg_kind(uint32_t kinds, int p)
{
	return kinds >> (2 * p) & 3;
}

static inline void *agg_realloc(const struct ltap_agg *a, void *p, size_t osize, size_t nsize)
{
	return a->alloc(a->ud, p, p ? osize : 0, nsize);
}

static inline void agg_release(const struct ltap_agg *a, void *p, size_t size)
{
	if (p)
		a->alloc(a->ud, p, size, 0);
}

/* size * count, or 0 when it would not fit a size_t */
static inline size_t agg_bytes_of(size_t size, size_t count)
{
	return count && size > SIZE_MAX / count ? 0 : size * count;
}

/* the index's hash mixing, shared with the string index */
static inline uint64_t agg_mix(uint64_t h, uint64_t w)
{
	h = (h ^ w) * 0x9e3779b97f4a7c15ull;
	return h ^ (h >> 29);
}

/* aggkey.c */
/* The first key: the parts' widths. */
void agg_key_shape(struct ltap_agg *a, const struct ltap_agg_part *key, int n);
/* key[0..n) as words; -EINVAL for a bad part */
int agg_key_make(const struct ltap_agg *a, const struct ltap_agg_part *key, int n, struct agg_key *k);
int agg_key_equal(const struct ltap_agg *a, char *slot, const struct ltap_agg_part *key, const struct agg_key *k);
/* room in the arena (and string index) for the key's long strings; 0 or -ENOMEM */
int agg_key_reserve(struct ltap_agg *a, const struct ltap_agg_part *key, const struct agg_key *k);
/* writes the key into slot (room reserved), keeping its long strings */
void agg_key_store(struct ltap_agg *a, char *slot, const struct ltap_agg_part *key, const struct agg_key *k);
/* lets go of slot's long strings */
void agg_key_release(struct ltap_agg *a, char *slot);
/* copies the arena's live strings into a new one when most are dead (the
 * slots of removed keys marked free first) */
void agg_key_compact(struct ltap_agg *a);
void agg_key_free_strings(struct ltap_agg *a);

/* The linear-probing index both the slots (agg.c) and the long strings
 * (aggkey.c) are found by, here so that neither file calls the other's. */
/* an empty index of cap buckets (a power of two), or NULL when refused */
static inline uint64_t *agg_index_new(const struct ltap_agg *a, size_t cap)
{
	size_t bytes = agg_bytes_of(sizeof(uint64_t), cap);
	uint64_t *ni = bytes ? agg_realloc(a, NULL, 0, bytes) : NULL;

	if (ni)
		memset(ni, 0, bytes);
	return ni;
}

/* Inserts value under hash into a linear-probing index of cap buckets. */
static inline void agg_index_put(uint64_t *index, size_t cap, uint32_t hash, uint64_t value)
{
	size_t j;

	for (j = hash & (cap - 1); index[j]; j = (j + 1) & (cap - 1))
		;
	index[j] = (uint64_t)hash << 32 | value;
}

/* Empties bucket j, moving back the buckets of its run that may go there. */
static inline void agg_index_delete(uint64_t *index, size_t cap, size_t j)
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

#endif
