/* symtab.c: one ELF file's symbols, read once (the table libdwfl chooses)
 * and looked up three ways: by address, sorted and searched in halves
 * (libdwfl's own dwfl_module_addrinfo scans the whole table per address)
 * with the choice rule of symtab.h; functions by name (uprobes, ltap
 * annotate), sorted at the first such lookup; objdump's label of an
 * address no symbol covers. */
#include "symtab.h"

#include "elfscn.h"
#include "grow.h"
#include "plt.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct ltap_symtab {
	struct ltap_symtab_sym *syms; /* by address */
	uint64_t *maxend;  /* maxend[i]: the highest end of syms[0..i] */
	size_t n, cap;
	size_t sorted;     /* syms[0..sorted) are in order */
	uint64_t bias;     /* module address - the file's own */
	struct ltap_scns *scns; /* the file's sections (NULL without its ELF) */
	char *pltnames;
	const struct ltap_symtab_sym **funcs; /* a function per name, in name order, once listed */
	size_t nfuncs;
	int funcs_failed;
};

static int symtab_bind(const GElf_Sym *sym)
{
	switch (GELF_ST_BIND(sym->st_info)) {
	case STB_GLOBAL:
		return 3;
	case STB_WEAK:
		return 2;
	case STB_LOCAL:
		return 1;
	default:
		return 0;
	}
}

/* A name's base (before "@VERSION"): its length and underscores, and
 * whether it is a compatibility version ("name@V", not "name@@V"). */
struct symtab_name {
	size_t len, underscores;
	int compat;
};

static struct symtab_name symtab_name(const char *s)
{
	struct symtab_name n = {0, 0, 0};

	for (; s[n.len] && s[n.len] != '@'; n.len++)
		n.underscores += s[n.len] == '_';
	n.compat = s[n.len] == '@' && s[n.len + 1] != '@';
	return n;
}

/* Whether u names an address better than v (see symtab.h). */
static int sym_better(const struct ltap_symtab_sym *u, const struct ltap_symtab_sym *v)
{
	struct symtab_name a, b;

	if (u->addr != v->addr)
		return u->addr > v->addr;
	if (u->bind != v->bind)
		return u->bind > v->bind;
	if (u->size != v->size)
		return u->size < v->size;
	a = symtab_name(u->name);
	b = symtab_name(v->name);
	if (a.compat != b.compat)
		return b.compat;
	if (a.underscores != b.underscores)
		return a.underscores < b.underscores;
	if (a.len != b.len)
		return a.len < b.len;
	return u->order < v->order;
}

/* The section holding module address a, as elfutils' find_section finds
 * it; NULL for none (and without the file's sections). */
static const struct ltap_scn *symtab_scn(const struct ltap_symtab *t, uint64_t a)
{
	return t->scns ? ltap_scns_find(t->scns, a - t->bias) : NULL;
}

static const struct ltap_symtab_sym *symtab_lookup(const struct ltap_symtab *t, uint64_t a)
{
	const struct ltap_symtab_sym *best[2] = {NULL, NULL}, *glabel = NULL, *label = NULL;
	size_t lo = 0, hi = t->n;
	uint64_t top;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (t->syms[mid].addr <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	hi = lo; /* syms[0..hi) start at or below a */
	/* every sized symbol covering a; below maxend <= a none can */
	for (size_t i = hi; i-- > 0 && t->maxend[i] > a;) {
		const struct ltap_symtab_sym *u = &t->syms[i];
		int global = (u->flags & LTAP_SYMTAB_GLOBAL) != 0;
		if (u->size && a - u->addr < u->size && (!best[global] || sym_better(u, best[global])))
			best[global] = u;
	}
	if (best[1])
		return best[1];
	/* labels: symbols without a size at the nearest start */
	top = t->syms[hi - 1].addr;
	for (size_t i = hi; i-- > 0 && t->syms[i].addr == top;) {
		const struct ltap_symtab_sym *u = &t->syms[i];
		if (u->size)
			continue;
		if ((u->flags & LTAP_SYMTAB_GLOBAL) && (!glabel || sym_better(u, glabel)))
			glabel = u;
		if (!label || sym_better(u, label))
			label = u;
	}
	if (glabel && top == a)
		return glabel; /* elfutils stops before the locals at an exact global label */
	if (best[0])
		return best[0];
	if (label && t->maxend[hi - 1] <= top && symtab_scn(t, top) == symtab_scn(t, a))
		return label;
	return NULL;
}

const char *ltap_symtab_find(const struct ltap_symtab *t, uint64_t a, uint64_t *off)
{
	const struct ltap_symtab_sym *u = symtab_lookup(t, a);

	if (!u)
		return NULL;
	*off = a - u->addr;
	return u->name;
}

/* Appends u to the growing array *v of *n entries, room for *cap. */
static int sym_push(struct ltap_symtab_sym **v, size_t *n, size_t *cap, const struct ltap_symtab_sym *u)
{
	if (ltap_grow(v, cap, *n + 1, sizeof **v, 256))
		return -ENOMEM;
	(*v)[(*n)++] = *u;
	return 0;
}

static int symtab_add(struct ltap_symtab *t, const struct ltap_symtab_sym *u)
{
	return sym_push(&t->syms, &t->n, &t->cap, u);
}

/* An address and where its symbol is, the unit of the radix sort. */
struct symkey {
	uint64_t addr;
	size_t at;
};

#define RADIX_BITS 11
#define RADIX_SIZE (1u << RADIX_BITS)

/* Sorts v[0..n) by address, stably (equal addresses in insertion order):
 * a least-significant-digit radix sort of (address - lowest, index) keys,
 * as many 11-bit digits as the module's span of addresses needs (two for
 * libc), then the symbols moved once. qsort's callback per comparison cost
 * three quarters of building libc's table. */
static int sym_sort(struct ltap_symtab_sym *v, size_t n)
{
	struct symkey *k = malloc(n * sizeof *k), *tmp = malloc(n * sizeof *tmp);
	struct ltap_symtab_sym *out = malloc(n * sizeof *out);
	size_t *count = malloc(RADIX_SIZE * sizeof *count);
	uint64_t lo = UINT64_MAX, span = 0;
	int rc = -ENOMEM;

	if (!k || !tmp || !out || !count)
		goto out;
	for (size_t i = 0; i < n; i++)
		lo = v[i].addr < lo ? v[i].addr : lo;
	for (size_t i = 0; i < n; i++) {
		k[i] = (struct symkey){v[i].addr - lo, i};
		span |= k[i].addr;
	}
	for (unsigned shift = 0; shift < 64 && span >> shift; shift += RADIX_BITS) {
		struct symkey *t;
		size_t sum = 0;
		memset(count, 0, RADIX_SIZE * sizeof *count);
		for (size_t i = 0; i < n; i++)
			count[(k[i].addr >> shift) & (RADIX_SIZE - 1)]++;
		for (size_t d = 0; d < RADIX_SIZE; d++) {
			size_t c = count[d];
			count[d] = sum;
			sum += c;
		}
		for (size_t i = 0; i < n; i++)
			tmp[count[(k[i].addr >> shift) & (RADIX_SIZE - 1)]++] = k[i];
		t = k, k = tmp, tmp = t;
	}
	for (size_t i = 0; i < n; i++)
		out[i] = v[k[i].at];
	memcpy(v, out, n * sizeof *v);
	rc = 0;
out:
	free(k);
	free(tmp);
	free(out);
	free(count);
	return rc;
}

/* Sorts v[head..n) and merges it into the sorted v[0..head): by address,
 * the head's first on a tie (its symbols came first). */
static int sym_sort_tail(struct ltap_symtab_sym *v, size_t head, size_t n)
{
	struct ltap_symtab_sym *tail;
	size_t a = head, t = n - head, o = n;

	if (head >= n)
		return 0;
	if (sym_sort(v + head, n - head))
		return -ENOMEM;
	if (!head || v[head - 1].addr <= v[head].addr)
		return 0;
	if (!(tail = malloc(t * sizeof *tail)))
		return -ENOMEM;
	memcpy(tail, v + head, t * sizeof *tail);
	while (t > 0)
		v[--o] = a > 0 && v[a - 1].addr > tail[t - 1].addr ? v[--a] : tail[--t];
	free(tail);
	return 0;
}

/* Sorts the table (what was added since the last time, merged in) and
 * computes maxend. */
static int symtab_index(struct ltap_symtab *t)
{
	uint64_t *m = realloc(t->maxend, (t->n ? t->n : 1) * sizeof *m);

	if (!m)
		return -ENOMEM;
	t->maxend = m;
	if (sym_sort_tail(t->syms, t->sorted, t->n))
		return -ENOMEM;
	t->sorted = t->n;
	for (size_t i = 0; i < t->n; i++) {
		uint64_t end = t->syms[i].addr + t->syms[i].size;
		if (end < t->syms[i].addr)
			end = UINT64_MAX;
		m[i] = i && m[i - 1] > end ? m[i - 1] : end;
	}
	return 0;
}

static int symtab_symbols(struct ltap_symtab *t, Dwfl_Module *mod)
{
	int n = dwfl_module_getsymtab(mod), first_global = dwfl_module_getsymtab_first_global(mod);

	for (int i = 1; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr addr;
		GElf_Word shndx;
		GElf_Shdr sh;
		Elf *elf;
		Elf_Scn *scn;
		const char *name = dwfl_module_getsym_info(mod, i, &sym, &addr, &shndx, &elf, NULL);
		int type = GELF_ST_TYPE(sym.st_info);

		if (!name || !*name || sym.st_shndx == SHN_UNDEF || shndx == SHN_ABS || type == STT_SECTION ||
		    type == STT_FILE || type == STT_TLS)
			continue;
		/* not loaded in memory (.gnu.warning.*): no address of a process is there */
		if (shndx < SHN_LORESERVE && (scn = elf_getscn(elf, shndx)) != NULL && gelf_getshdr(scn, &sh) &&
		    !(sh.sh_flags & SHF_ALLOC))
			continue;
		if (symtab_add(t, &(struct ltap_symtab_sym){addr, sym.st_size, name, (uint32_t)i,
						   shndx < SHN_LORESERVE ? (uint16_t)shndx : 0, (uint8_t)symtab_bind(&sym),
						   (uint8_t)((first_global <= 0 || i >= first_global ? LTAP_SYMTAB_GLOBAL : 0) |
							     (type == STT_FUNC || type == STT_GNU_IFUNC ? LTAP_SYMTAB_FUNC : 0))}))
			return -ENOMEM;
	}
	return 0;
}

/* The PLT entries, named apart from the table (an IRELATIVE slot's name is
 * looked up in it) and added to it at the end; their names are built in one
 * block, and entries keep offsets into it until the block stops moving. */
struct plt_build {
	struct ltap_symtab *t;
	uint64_t bias;
	struct ltap_symtab_sym *ents;
	size_t n, cap;
	char *names;
	size_t len, cap_names;
};

static int plt_name(struct plt_build *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Appends a formatted name to the block; its offset is b->len before. */
static int plt_name(struct plt_build *b, const char *fmt, ...)
{
	va_list ap;
	int need;

	va_start(ap, fmt);
	need = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (need < 0)
		return -EINVAL;
	if (b->len + (size_t)need + 1 > b->cap_names) {
		size_t c = b->cap_names ? b->cap_names : 4096;
		char *nb;
		while (b->len + (size_t)need + 1 > c)
			c *= 2;
		if (!(nb = realloc(b->names, c)))
			return -ENOMEM;
		b->names = nb;
		b->cap_names = c;
	}
	va_start(ap, fmt);
	vsnprintf(b->names + b->len, (size_t)need + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)need + 1;
	return 0;
}

static int plt_entry(void *ud, const struct ltap_plt_entry *e)
{
	struct plt_build *b = ud;
	size_t off = b->len;
	uint64_t at = 0;
	const char *target = NULL;
	int rc;

	/* an IRELATIVE slot is named by the IFUNC whose resolver fills it, as perf does */
	if (!e->name && e->ifunc)
		target = ltap_symtab_find(b->t, e->ifunc + b->bias, &at);
	if (e->name && strcmp(e->name, ".plt") == 0)
		rc = plt_name(b, ".plt");
	else if (e->name || (target && at == 0))
		rc = plt_name(b, "%s@plt", e->name ? e->name : target);
	else
		rc = plt_name(b, "offset_%#" PRIx64 "@plt", e->fileoff);
	if (rc)
		return rc;
	/* perf's PLT symbols are GLOBAL functions */
	return sym_push(&b->ents, &b->n, &b->cap,
			&(struct ltap_symtab_sym){e->addr + b->bias, e->size, (const char *)(uintptr_t)off, 0, 0, 3,
					   LTAP_SYMTAB_GLOBAL | LTAP_SYMTAB_FUNC | LTAP_SYMTAB_PLT});
}

static int symtab_plt(struct ltap_symtab *t, Elf *elf, uint64_t bias)
{
	struct plt_build b = {.t = t, .bias = bias};
	int rc = ltap_plt_walk(elf, t->scns, plt_entry, &b);

	for (size_t i = 0; rc == 0 && i < b.n; i++) {
		b.ents[i].name = b.names + (uintptr_t)b.ents[i].name;
		b.ents[i].order = (uint32_t)(t->n + 1); /* after every symbol of the table */
		rc = symtab_add(t, &b.ents[i]);
	}
	free(b.ents);
	if (rc) {
		free(b.names);
		return rc;
	}
	t->pltnames = b.names;
	return 0;
}

struct ltap_symtab *ltap_symtab_new(Dwfl_Module *mod)
{
	struct ltap_symtab *t = calloc(1, sizeof *t);
	Dwarf_Addr bias = 0;
	Elf *elf = dwfl_module_getelf(mod, &bias);
	int rc = -ENOMEM;

	if (!t)
		goto fail;
	t->bias = bias;
	if ((rc = symtab_symbols(t, mod)) || (rc = symtab_index(t)))
		goto fail;
	/* PLT names need the ELF file itself: a debug file has no PLT contents */
	if (elf && !(t->scns = ltap_scns_new(elf))) {
		rc = -ENOMEM;
		goto fail;
	}
	if (elf && ((rc = symtab_plt(t, elf, bias)) || (rc = symtab_index(t))))
		goto fail;
	return t;
fail:
	ltap_symtab_free(t);
	errno = -rc;
	return NULL;
}

void ltap_symtab_free(struct ltap_symtab *t)
{
	if (!t)
		return;
	free(t->syms);
	free(t->maxend);
	ltap_scns_free(t->scns);
	free(t->pltnames);
	free(t->funcs);
	free(t);
}

/* ------------------------------------------------------------- by name */


static int byname_cmp(const void *a, const void *b)
{
	const struct ltap_symtab_sym *x = *(const struct ltap_symtab_sym *const *)a;
	const struct ltap_symtab_sym *y = *(const struct ltap_symtab_sym *const *)b;
	int c = strcmp(x->name, y->name);

	if (c)
		return c;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* Whether u is a function a name can mean: a symbol's (not a PLT entry's),
 * at an address (st_value 0 is none). */
static int sym_is_func(const struct ltap_symtab *t, const struct ltap_symtab_sym *u)
{
	return (u->flags & (LTAP_SYMTAB_FUNC | LTAP_SYMTAB_PLT)) == LTAP_SYMTAB_FUNC && u->addr != t->bias;
}

/* A function per name, in name order: made the first time they are
 * listed (a profile never asks). */
static int symtab_funcs(struct ltap_symtab *t)
{
	const struct ltap_symtab_sym **v;
	size_t n = 0;

	if (t->funcs || t->funcs_failed)
		return t->funcs ? 0 : -ENOMEM;
	if (!(v = malloc((t->n ? t->n : 1) * sizeof *v))) {
		t->funcs_failed = 1;
		return -ENOMEM;
	}
	for (size_t i = 0; i < t->n; i++)
		if (sym_is_func(t, &t->syms[i]))
			v[n++] = &t->syms[i];
	qsort(v, n, sizeof *v, byname_cmp);
	t->funcs = v;
	for (size_t i = 0; i < n; i++)
		if (!t->nfuncs || strcmp(v[t->nfuncs - 1]->name, v[i]->name) != 0)
			v[t->nfuncs++] = v[i];
	return 0;
}

/* Of the functions whose name is key's first len bytes (base: up to an
 * '@' of theirs), the one with a size, else any, at the lowest address. A
 * scan, not the sorted index: a uprobe asks for one name of a file. */
static const struct ltap_symtab_sym *func_pick(const struct ltap_symtab *t, const char *key, size_t len, int base)
{
	const struct ltap_symtab_sym *best = NULL;

	for (size_t i = 0; i < t->n; i++) {
		const struct ltap_symtab_sym *u = &t->syms[i];
		if (strncmp(u->name, key, len) != 0 || (base ? strcspn(u->name, "@") : strlen(u->name)) != len ||
		    !sym_is_func(t, u))
			continue;
		if (!best || (!best->size && u->size) || (!best->size == !u->size && u->addr < best->addr))
			best = u;
	}
	return best;
}

const struct ltap_symtab_sym *ltap_symtab_func(const struct ltap_symtab *t, const char *name, int versions)
{
	const struct ltap_symtab_sym *u = func_pick(t, name, strlen(name), 0);

	if (!u && versions)
		u = func_pick(t, name, strcspn(name, "@"), 1);
	return u;
}

size_t ltap_symtab_funcs(struct ltap_symtab *t, const struct ltap_symtab_sym *const **funcs)
{
	if (symtab_funcs(t)) {
		*funcs = NULL;
		return 0;
	}
	*funcs = t->funcs;
	return t->nfuncs;
}

/* ------------------------------------------------------- objdump's label */

const char *ltap_symtab_label(const struct ltap_symtab *t, uint64_t a, uint64_t *off)
{
	const struct ltap_symtab_sym *best = NULL;
	const struct ltap_scn *scn = t->scns ? ltap_scns_holding(t->scns, a - t->bias) : NULL;
	size_t lo = 0, hi = t->n;

	if (!scn)
		return NULL;
	while (lo < hi) { /* the first symbol above a */
		size_t mid = lo + (hi - lo) / 2;
		if (t->syms[mid].addr <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i-- > 0;) {
		const struct ltap_symtab_sym *u = &t->syms[i];
		if (u->shndx != scn->idx || (u->flags & LTAP_SYMTAB_PLT))
			continue;
		if (best && u->addr != best->addr)
			break;
		/* of the symbols there, a non-local one, then the first name */
		if (!best || (u->bind != 1 && best->bind == 1) ||
		    ((u->bind == 1) == (best->bind == 1) && strcmp(u->name, best->name) < 0))
			best = u;
	}
	if (!best)
		return NULL;
	*off = a - best->addr;
	return best->name;
}

const struct ltap_scns *ltap_symtab_scns(const struct ltap_symtab *t)
{
	return t->scns;
}
