/* stackcount.c: an open-addressing hash table of entries; each entry is one
 * allocation holding its frames and its command. */
#include "stackcount.h"

#include <errno.h>
#include <string.h>

struct entry {
	struct ltap_stackcount_entry pub;
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
	struct entry **order; /* entries in the order first counted */
	size_t n, ordercap;
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

static int sc_same(const struct entry *e, const char *comm, size_t commlen, const struct ltap_frame *f, int n)
{
	return e->pub.n == n && e->pub.commlen == commlen &&
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
	for (size_t i = 0; i < sc->n; i++)
		sc->alloc(sc->ud, sc->order[i], entry_size(sc->order[i]->pub.n, sc->order[i]->pub.commlen), 0);
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

int ltap_stackcount_add(struct ltap_stackcount *sc, const char *comm, size_t commlen, const struct ltap_frame *frames,
			int n, uint64_t leaf_raw, uint64_t count)
{
	uint64_t hash = sc_hash(comm, commlen, frames, n);
	struct entry *e;
	size_t j;

	if ((sc->n + 1) * 2 > sc->nslots && sc_grow(sc))
		return -ENOMEM;
	for (j = (size_t)hash & (sc->nslots - 1); sc->slots[j].e; j = (j + 1) & (sc->nslots - 1)) {
		e = sc->slots[j].e;
		if (sc->slots[j].hash == hash && sc_same(e, comm, commlen, frames, n)) {
			e->pub.count += count;
			sc->total += count;
			return 0;
		}
	}
	if (sc->n == sc->ordercap) {
		size_t ncap = sc->ordercap ? sc->ordercap * 2 : 256;
		struct entry **no = sc->alloc(sc->ud, sc->order, sc->ordercap * sizeof *no, ncap * sizeof *no);
		if (!no)
			return -ENOMEM;
		sc->order = no;
		sc->ordercap = ncap;
	}
	if (!(e = sc->alloc(sc->ud, NULL, 0, entry_size(n, commlen))))
		return -ENOMEM;
	e->pub.n = n;
	e->pub.frames = (const struct ltap_frame *)(e + 1);
	if (n) /* frames and comm may be NULL when empty, which memcpy may not get */
		memcpy((void *)(e + 1), frames, (size_t)n * sizeof *frames);
	e->pub.comm = (const char *)(e + 1) + (size_t)n * sizeof *frames;
	if (commlen)
		memcpy((char *)e->pub.comm, comm, commlen);
	e->pub.commlen = commlen;
	e->pub.leaf_raw = leaf_raw;
	e->pub.count = count;
	sc->order[sc->n++] = e;
	sc->slots[j] = (struct slot){hash, e};
	sc->total += count;
	return 0;
}

const struct ltap_stackcount_entry *ltap_stackcount_next(const struct ltap_stackcount *sc, size_t *it)
{
	return *it < sc->n ? &sc->order[(*it)++]->pub : NULL;
}

size_t ltap_stackcount_size(const struct ltap_stackcount *sc)
{
	return sc->n;
}

uint64_t ltap_stackcount_total(const struct ltap_stackcount *sc)
{
	return sc->total;
}
