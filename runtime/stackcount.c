/* stackcount.c: an open-addressing hash table of entries; each entry is one
 * allocation holding its frames and its command. A joined entry (a blocked
 * stack and its waker's) holds the two entries instead, found by them. */
#include "stackcount.h"

#include <errno.h>
#include <string.h>

struct entry {
	struct ltap_stackcount_entry pub;
	long key; /* its index in order */
	/* then the frames, then the command's bytes */
};

/* A slot keeps its entry's hash beside the pointer: a probe that misses
 * reads no entry (on a machine shared with other work each entry read is
 * a cache miss, the most of what counting a sample cost). */
struct slot {
	uint64_t hash;
	struct entry *e;
};

struct ltap_stackcount {
	ltap_alloc_fn alloc;
	void *ud;
	struct entry **order; /* entries in the order first counted or interned: a key is an index */
	size_t n, ordercap;
	size_t counted;       /* entries with a count */
	struct slot *slots;   /* entry NULL: empty */
	size_t nslots;
	uint64_t total;
};

static uint64_t sc_mix(uint64_t h, uint64_t w)
{
	h = (h ^ w) * 0x9e3779b97f4a7c15ull;
	return h ^ (h >> 29);
}

static uint64_t sc_hash(const char *comm, size_t commlen, const struct ltap_frame *f, int n)
{
	uint64_t h = sc_mix(0x243f6a8885a308d3ull, (uint64_t)n << 32 | commlen);

	for (size_t i = 0; i < commlen; i++)
		h = sc_mix(h, (unsigned char)comm[i]);
	for (int i = 0; i < n; i++) {
		h = sc_mix(h, (uint64_t)(uintptr_t)f[i].module);
		h = sc_mix(h, (uint64_t)(uintptr_t)f[i].proc);
		h = sc_mix(h, f[i].addr ^ f[i].kernel << 63);
	}
	return h;
}

static uint64_t sc_hash_joined(long blocked, long waker)
{
	return sc_mix(sc_mix(0x13198a2e03707344ull, (uint64_t)blocked), (uint64_t)waker);
}

static int sc_same(const struct entry *e, const char *comm, size_t commlen, const struct ltap_frame *f, int n)
{
	return e->pub.n == n && e->pub.commlen == commlen && !e->pub.blocked &&
	       (!n || memcmp(e->pub.frames, f, (size_t)n * sizeof *f) == 0) &&
	       (!commlen || memcmp(e->pub.comm, comm, commlen) == 0);
}

struct ltap_stackcount *ltap_stackcount_new(ltap_alloc_fn alloc, void *ud)
{
	struct ltap_stackcount *sc = alloc(ud, NULL, 0, sizeof *sc);

	if (!sc)
		return NULL;
	memset(sc, 0, sizeof *sc);
	sc->alloc = alloc;
	sc->ud = ud;
	return sc;
}

static size_t entry_size(int n, size_t commlen)
{
	return sizeof(struct entry) + (size_t)n * sizeof(struct ltap_frame) + commlen;
}

void ltap_stackcount_free(struct ltap_stackcount *sc)
{
	if (!sc)
		return;
	for (size_t i = 0; i < sc->n; i++) {
		const struct ltap_stackcount_entry *e = &sc->order[i]->pub;
		sc->alloc(sc->ud, sc->order[i], entry_size(e->n, e->blocked ? 0 : e->commlen), 0);
	}
	if (sc->order)
		sc->alloc(sc->ud, sc->order, sc->ordercap * sizeof *sc->order, 0);
	if (sc->slots)
		sc->alloc(sc->ud, sc->slots, sc->nslots * sizeof *sc->slots, 0);
	sc->alloc(sc->ud, sc, sizeof *sc, 0);
}

/* Doubles the slots (at half load), placing every entry again. */
static int sc_grow(struct ltap_stackcount *sc)
{
	size_t ncap = sc->nslots ? sc->nslots * 2 : 1024;
	struct slot *ns = sc->alloc(sc->ud, NULL, 0, ncap * sizeof *ns);

	if (!ns)
		return -ENOMEM;
	memset(ns, 0, ncap * sizeof *ns);
	for (size_t i = 0; i < sc->nslots; i++) {
		size_t j;
		if (!sc->slots[i].e)
			continue;
		for (j = (size_t)sc->slots[i].hash & (ncap - 1); ns[j].e; j = (j + 1) & (ncap - 1))
			;
		ns[j] = sc->slots[i];
	}
	if (sc->slots)
		sc->alloc(sc->ud, sc->slots, sc->nslots * sizeof *sc->slots, 0);
	sc->slots = ns;
	sc->nslots = ncap;
	return 0;
}

/* The slot of the stack (or, blocked >= 0, of the joined stack of two
 * keys): its entry's, or the empty one a new entry takes (the table grown
 * first, so it fits). NULL when out of memory. */
static struct slot *sc_find(struct ltap_stackcount *sc, uint64_t hash, const char *comm, size_t commlen,
			    const struct ltap_frame *frames, int n, long blocked, long waker)
{
	size_t j;

	if ((sc->n + 1) * 2 > sc->nslots && sc_grow(sc))
		return NULL;
	for (j = (size_t)hash & (sc->nslots - 1); sc->slots[j].e; j = (j + 1) & (sc->nslots - 1)) {
		const struct entry *e = sc->slots[j].e;
		if (sc->slots[j].hash != hash)
			continue;
		if (blocked >= 0 ? e->pub.blocked == &sc->order[blocked]->pub && e->pub.waker == &sc->order[waker]->pub
				 : sc_same(e, comm, commlen, frames, n))
			break;
	}
	return &sc->slots[j];
}

/* A new entry, count 0, in the empty slot: frames and comm copied (none
 * for a joined one); NULL when out of memory */
static struct entry *sc_new(struct ltap_stackcount *sc, struct slot *slot, uint64_t hash, const char *comm,
			    size_t commlen, const struct ltap_frame *frames, int n, uint64_t leaf_raw)
{
	struct entry *e;

	if (sc->n == sc->ordercap) {
		size_t ncap = sc->ordercap ? sc->ordercap * 2 : 256;
		struct entry **no = sc->alloc(sc->ud, sc->order, sc->ordercap * sizeof *no, ncap * sizeof *no);
		if (!no)
			return NULL;
		sc->order = no;
		sc->ordercap = ncap;
	}
	if (!(e = sc->alloc(sc->ud, NULL, 0, entry_size(n, commlen))))
		return NULL;
	memset(e, 0, sizeof *e);
	e->pub.n = n;
	e->pub.frames = (const struct ltap_frame *)(e + 1);
	if (n) /* frames and comm may be NULL when empty, which memcpy may not get */
		memcpy((void *)(e + 1), frames, (size_t)n * sizeof *frames);
	e->pub.comm = (const char *)(e + 1) + (size_t)n * sizeof *frames;
	if (commlen)
		memcpy((char *)e->pub.comm, comm, commlen);
	e->pub.commlen = commlen;
	e->pub.leaf_raw = leaf_raw;
	e->key = (long)sc->n;
	sc->order[sc->n++] = e;
	*slot = (struct slot){hash, e};
	return e;
}

static void sc_count(struct ltap_stackcount *sc, struct entry *e, uint64_t count)
{
	if (!e->pub.count && count)
		sc->counted++;
	e->pub.count += count;
	sc->total += count;
}

int ltap_stackcount_add(struct ltap_stackcount *sc, const char *comm, size_t commlen, const struct ltap_frame *frames,
			int n, uint64_t leaf_raw, uint64_t count)
{
	uint64_t hash = sc_hash(comm, commlen, frames, n);
	struct slot *slot = sc_find(sc, hash, comm, commlen, frames, n, -1, -1);
	struct entry *e = slot ? slot->e : NULL;

	if (slot && !e)
		e = sc_new(sc, slot, hash, comm, commlen, frames, n, leaf_raw);
	if (!e)
		return -ENOMEM;
	sc_count(sc, e, count);
	return 0;
}

long ltap_stackcount_intern(struct ltap_stackcount *sc, const char *comm, size_t commlen,
			    const struct ltap_frame *frames, int n, uint64_t leaf_raw)
{
	uint64_t hash = sc_hash(comm, commlen, frames, n);
	struct slot *slot = sc_find(sc, hash, comm, commlen, frames, n, -1, -1);
	struct entry *e = slot ? slot->e : NULL;

	if (slot && !e)
		e = sc_new(sc, slot, hash, comm, commlen, frames, n, leaf_raw);
	return e ? e->key : -ENOMEM;
}

void ltap_stackcount_add_at(struct ltap_stackcount *sc, long key, uint64_t count)
{
	sc_count(sc, sc->order[key], count);
}

int ltap_stackcount_join(struct ltap_stackcount *sc, long blocked, long waker, uint64_t count)
{
	uint64_t hash = sc_hash_joined(blocked, waker);
	struct slot *slot = sc_find(sc, hash, NULL, 0, NULL, 0, blocked, waker);
	struct entry *e = slot ? slot->e : NULL;

	if (slot && !e) {
		const struct ltap_stackcount_entry *b = &sc->order[blocked]->pub;
		if ((e = sc_new(sc, slot, hash, NULL, 0, NULL, 0, b->leaf_raw))) {
			/* order may have moved in sc_new: the two entries did not */
			e->pub.blocked = &sc->order[blocked]->pub;
			e->pub.waker = &sc->order[waker]->pub;
			e->pub.comm = b->comm;
			e->pub.commlen = b->commlen;
		}
	}
	if (!e)
		return -ENOMEM;
	sc_count(sc, e, count);
	return 0;
}

size_t ltap_stackcount_keys(const struct ltap_stackcount *sc)
{
	return sc->n;
}

const struct ltap_stackcount_entry *ltap_stackcount_next(const struct ltap_stackcount *sc, size_t *it)
{
	while (*it < sc->n) {
		const struct ltap_stackcount_entry *e = &sc->order[(*it)++]->pub;
		if (e->count)
			return e;
	}
	return NULL;
}

size_t ltap_stackcount_size(const struct ltap_stackcount *sc)
{
	return sc->counted;
}

uint64_t ltap_stackcount_total(const struct ltap_stackcount *sc)
{
	return sc->total;
}
