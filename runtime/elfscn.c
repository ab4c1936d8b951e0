/* elfscn.c: an ELF file's section headers read with libelf once, so that
 * the symbol table, the PLT names, the disassembler and the SDT notes do
 * not each walk them again. */
#include "elfscn.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int scn_cmp(const void *a, const void *b)
{
	const struct ltap_scn *x = *(struct ltap_scn *const *)a, *y = *(struct ltap_scn *const *)b;
	uint64_t xe = x->sh.sh_addr + x->sh.sh_size, ye = y->sh.sh_addr + y->sh.sh_size;

	if (x->sh.sh_addr != y->sh.sh_addr)
		return x->sh.sh_addr < y->sh.sh_addr ? -1 : 1;
	if (xe != ye)
		return xe < ye ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

struct ltap_scns *ltap_scns_new(Elf *elf)
{
	struct ltap_scns *s = calloc(1, sizeof *s);
	size_t count = 0, shstrndx = 0;
	int names;
	Elf_Scn *scn = NULL;

	if (!s)
		return NULL;
	if (elf_getshdrnum(elf, &count) != 0)
		count = 0;
	names = elf_getshdrstrndx(elf, &shstrndx) == 0;
	if (count && (!(s->v = calloc(count, sizeof *s->v)) || !(s->by_addr = calloc(count, sizeof *s->by_addr)))) {
		ltap_scns_free(s);
		errno = ENOMEM;
		return NULL;
	}
	while (s->n < count && (scn = elf_nextscn(elf, scn)) != NULL) {
		struct ltap_scn *c = &s->v[s->n];
		const char *name = NULL;
		if (!gelf_getshdr(scn, &c->sh))
			continue;
		if (names)
			name = elf_strptr(elf, shstrndx, c->sh.sh_name);
		c->scn = scn;
		c->name = name ? name : "";
		c->idx = elf_ndxscn(scn);
		if (c->sh.sh_flags & SHF_ALLOC)
			s->by_addr[s->nalloc++] = c;
		s->n++;
	}
	if (s->nalloc)
		qsort(s->by_addr, s->nalloc, sizeof *s->by_addr, scn_cmp);
	return s;
}

void ltap_scns_free(struct ltap_scns *s)
{
	if (!s)
		return;
	free(s->v);
	free(s->by_addr);
	free(s);
}

const struct ltap_scn *ltap_scns_named(const struct ltap_scns *s, const char *name)
{
	for (size_t i = 0; i < s->n; i++)
		if (strcmp(s->v[i].name, name) == 0)
			return &s->v[i];
	return NULL;
}

const struct ltap_scn *ltap_scns_find(const struct ltap_scns *s, uint64_t a)
{
	size_t lo = 0, hi = s->nalloc;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const GElf_Shdr *sh = &s->by_addr[mid]->sh;
		if (a < sh->sh_addr)
			hi = mid;
		else if (a > sh->sh_addr + sh->sh_size)
			lo = mid + 1;
		else {
			if (a == sh->sh_addr + sh->sh_size && mid + 1 < s->nalloc && a == s->by_addr[mid + 1]->sh.sh_addr)
				mid++;
			return s->by_addr[mid];
		}
	}
	return NULL;
}

const struct ltap_scn *ltap_scns_holding(const struct ltap_scns *s, uint64_t a)
{
	for (size_t i = 0; i < s->n; i++) {
		const GElf_Shdr *sh = &s->v[i].sh;
		if ((sh->sh_flags & SHF_ALLOC) && a >= sh->sh_addr && a - sh->sh_addr < sh->sh_size)
			return &s->v[i];
	}
	return NULL;
}
