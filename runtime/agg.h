/* agg.h: an aggregate, the store behind stats() (bindings/stats.c): per key,
 * a count and, once a value other than the integer 1 was added, sum, min,
 * max, the sums of the variance and a histogram.
 *
 * A key is a tuple of 0 to LTAP_AGG_MAX_PARTS parts, each an integer, a
 * float, a string or a boolean; every key of one aggregate has as many parts
 * as its first. Keys live in the aggregate (a string of up to 15 bytes in
 * its slot, a longer one copied once into the aggregate's arena: with
 * several parts, one copy per distinct string), slots in one array of fixed
 * stride, found through an open-addressing index: the memory per key and
 * the cost of an add stay flat as keys grow (agg_impl.h: the layout). No Lua here: the
 * dispatch loop can add to an aggregate as the Lua face does.
 *
 * Adding from C, with no Lua call (what the dispatch loop would do per event,
 * the key's parts pointing at the event's fields and the task's comm):
 *
 *     struct ltap_agg_part key[2] = {LTAP_AGG_STR_PART(comm, commlen), LTAP_AGG_INT_PART(pid)};
 *     int r = ltap_agg_add_int(agg, key, 2, bytes);   // 0, LTAP_AGG_DROPPED or -errno
 *
 * or, with a slot kept for a run of events of one key (valid while
 * ltap_agg_generation stays the same), ltap_agg_slot then
 * ltap_agg_slot_add_int.
 * Nothing is allocated unless the key is new.
 *
 * Memory comes from the allocator given (the script's, so it counts against
 * its limit); a refused allocation is -ENOMEM with nothing changed. */
#ifndef LTAP_AGG_H
#define LTAP_AGG_H

#include "alloc.h"

#include <stddef.h>
#include <stdint.h>

#define LTAP_AGG_MAX_PARTS 15

/* the kinds of a key part, in ltap's key order: numbers (integers and
 * floats compared by value), then strings (bytes, as memcmp), then booleans */
enum ltap_agg_kind { LTAP_AGG_INT, LTAP_AGG_FLOAT, LTAP_AGG_STR, LTAP_AGG_BOOL };

struct ltap_agg_part {
	int kind;
	union {
		int64_t i;
		double d;       /* not NaN; an integer value is LTAP_AGG_INT (as a Lua table's keys) */
		int b;
		struct {
			const char *p;  /* not 0-terminated */
			size_t len;
		} s;
	} v;
};

#define LTAP_AGG_INT_PART(x) ((struct ltap_agg_part){.kind = LTAP_AGG_INT, .v.i = (x)})
#define LTAP_AGG_STR_PART(p_, len_) ((struct ltap_agg_part){.kind = LTAP_AGG_STR, .v.s = {(p_), (len_)}})

/* A number as a key part: an integer value (a float included) is an integer.
 * -EINVAL for NaN. */
int ltap_agg_number_part(struct ltap_agg_part *part, double d);

enum ltap_agg_hist { LTAP_AGG_HIST_NONE, LTAP_AGG_HIST_LOG2, LTAP_AGG_HIST_LINEAR };

struct ltap_agg_config {
	int hist;                 /* enum ltap_agg_hist */
	double lmin, lmax, lstep; /* linear: [lmin, lmax) in steps, checked by the caller */
	size_t max_keys;          /* at least 1 */
	int drop_when_full;       /* a new key past max_keys: dropped and counted, else refused */
};

/* NULL when the allocator refuses. */
struct ltap_agg *ltap_agg_new(const struct ltap_agg_config *cfg, ltap_alloc_fn alloc, void *ud);
void ltap_agg_free(struct ltap_agg *a);

/* ------------------------------------------------------------- adding */

/* results besides a slot (>= 0) and -errno */
#define LTAP_AGG_ABSENT (-1)  /* ltap_agg_slot without create: no such key */
#define LTAP_AGG_DROPPED (-2) /* a new key, the aggregate full and dropping: counted in ltap_agg_dropped */

/* The slot of key[0..n), made when absent and create is set. -EINVAL: n is
 * not the aggregate's number of parts (fixed by the first key made), or a
 * part is bad (NaN, a kind out of range); -ENOSPC: a new key, full, and new
 * keys are refused; -ENOMEM. A slot stays the key's until the key is
 * removed or the aggregate cleared (ltap_agg_generation changes then); a
 * new key may take a removed key's slot. */
long ltap_agg_slot(struct ltap_agg *a, const struct ltap_agg_part *key, int n, int create);

/* One value into a slot. 0, or -ENOMEM (the first value that is not the
 * integer 1, or a float, makes room for the other figures: the aggregate's
 * slots are copied once) with nothing added. */
int ltap_agg_slot_add_int(struct ltap_agg *a, long slot, int64_t v);
int ltap_agg_slot_add_float(struct ltap_agg *a, long slot, double v);

/* ltap_agg_slot(create) then the value: 0, LTAP_AGG_DROPPED or -errno. */
int ltap_agg_add_int(struct ltap_agg *a, const struct ltap_agg_part *key, int n, int64_t v);
int ltap_agg_add_float(struct ltap_agg *a, const struct ltap_agg_part *key, int n, double v);

/* ------------------------------------------------------------ reading */

size_t ltap_agg_size(const struct ltap_agg *a);      /* keys */
size_t ltap_agg_slots(const struct ltap_agg *a);     /* slots are 0..slots-1, some of them free */
int ltap_agg_live(const struct ltap_agg *a, long slot); /* slot holds a key */
int ltap_agg_arity(const struct ltap_agg *a);        /* parts of every key; -1 before the first */
int64_t ltap_agg_dropped(const struct ltap_agg *a);  /* values dropped for want of a key */
size_t ltap_agg_bytes(const struct ltap_agg *a);     /* memory it holds (slots, index, strings) */
const struct ltap_agg_config *ltap_agg_config(const struct ltap_agg *a);
/* changes whenever keys go (ltap_agg_clear, ltap_agg_remove) or the
 * slots move (more room, more figures) */
unsigned ltap_agg_generation(const struct ltap_agg *a);
/* where it is kept, for a per-event check without a call (feed.c) */
const unsigned *ltap_agg_generation_ref(const struct ltap_agg *a);
/* Where slot's count is, while the aggregate counts alone (no value but 1
 * added yet; else NULL): an add of 1 is ++ on it, until the generation
 * changes. */
int64_t *ltap_agg_count_ref(struct ltap_agg *a, long slot);

/* The parts of slot's key; strings point into the aggregate, valid until it
 * next changes. */
void ltap_agg_key(const struct ltap_agg *a, long slot, struct ltap_agg_part *key);

/* a number that is an integer or a float, compared exactly */
struct ltap_agg_num {
	int is_int;
	int64_t i;
	double d;
};

enum ltap_agg_fig { LTAP_AGG_COUNT, LTAP_AGG_SUM, LTAP_AGG_MIN, LTAP_AGG_MAX, LTAP_AGG_AVG, LTAP_AGG_VAR,
		    LTAP_AGG_STDDEV, LTAP_AGG_NFIGS };

/* One figure of a slot: count, sum, min and max are integers until a float
 * was added; avg, var (the sample variance, n - 1) and stddev are floats. */
struct ltap_agg_num ltap_agg_figure(const struct ltap_agg *a, long slot, int fig);

/* the histogram's buckets: how many, each slot's counts (NULL without a
 * histogram), and bucket k as [lo, hi) with the open ends marked */
int ltap_agg_nbuckets(const struct ltap_agg *a);
const int64_t *ltap_agg_buckets(const struct ltap_agg *a, long slot);
void ltap_agg_bucket_range(const struct ltap_agg *a, int k, double *lo, double *hi, int *lo_open, int *hi_open);

/* -1, 0 or 1: a before, equal to or after b, exactly (an integer above 2^53
 * against a float too); NaN after every number */
int ltap_agg_num_cmp(const struct ltap_agg_num *a, const struct ltap_agg_num *b);
/* -1, 0 or 1: the keys of two slots in ltap's key order, part by part */
int ltap_agg_key_cmp(const struct ltap_agg *a, long s1, long s2);

/* The first part of slot's key as a number that orders as the keys do,
 * ties aside (equal prefixes: compare the keys), with its rank among the
 * kinds (numbers, strings, booleans): a sort compares most keys without
 * reading them. */
uint64_t ltap_agg_key_prefix(const struct ltap_agg *a, long slot, int *rank);

/* ----------------------------------------------------------- ordering */

/* the aggregate's allocator, for working memory of its readers */
void *ltap_agg_alloc(const struct ltap_agg *a, void *p, size_t osize, size_t nsize);

/* The slots ordered by a figure, largest first when desc, ties by key in
 * ltap's key order; at most n of them (n >= size: all, sorted in place;
 * less: a bounded heap, O(size log n)). How many, or -ENOMEM; *out is then
 * an array of them from the aggregate's allocator (NULL for none), freed
 * with ltap_agg_order_free. Working memory: 16 bytes a slot (24 when the
 * figure is not a 32-bit integer), 4 once done. */
long ltap_agg_order(const struct ltap_agg *a, int fig, int desc, size_t n, uint32_t **out);
void ltap_agg_order_free(const struct ltap_agg *a, uint32_t *ids, long n);

/* ---------------------------------------------------------- removing */

void ltap_agg_clear(struct ltap_agg *a);              /* every key, and the dropped count */
void ltap_agg_remove(struct ltap_agg *a, long slot);  /* one key: its slot is free, no other moves */

#endif
