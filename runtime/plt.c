/* plt.c: names for PLT entries, read with libelf from the sections perf
 * reads (tools/perf/util/symbol-elf.c, dso__synthesize_plt_symbols): the
 * entries of .plt (or of .plt.sec, where IBT moved them) are in the order of
 * their GOT slots, so the i-th relocation of .rela.plt sorted by slot names
 * the i-th entry; each .plt.got entry is a jump through a GOT slot that a
 * .rela.dyn relocation fills. */
#include "plt.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct plt_scn {
	Elf_Scn *scn;
	GElf_Shdr sh;
};

struct plt_rel {
	uint64_t offset, addend;
	size_t sym;
	unsigned type;
};

/* The section named name, from the headers read once (elfscn.h): 1 when
 * it is there with contents */
static int plt_scn_find(const struct ltap_scns *scns, const char *name, struct plt_scn *out)
{
	const struct ltap_scn *c = ltap_scns_named(scns, name);

	if (!c)
		return 0;
	out->scn = c->scn;
	out->sh = c->sh;
	return out->sh.sh_type != SHT_NOBITS; /* a debug file's copy has no contents */
}

static int plt_is_x86(const GElf_Ehdr *eh)
{
	return eh->e_machine == EM_X86_64 || eh->e_machine == EM_386;
}

/* The header and entry sizes of a PLT section, as perf's get_plt_sizes
 * knows them per machine; 0 when unknown. */
static int plt_sizes(const GElf_Ehdr *eh, const GElf_Shdr *sh, uint64_t *header, uint64_t *entry)
{
	switch (eh->e_machine) {
	case EM_AARCH64:
		*header = 32;
		*entry = 16;
		return 1;
	case EM_ARM:
		*header = 20;
		*entry = 12;
		return 1;
	case EM_X86_64:
	case EM_386:
		*entry = sh->sh_entsize == 8 || sh->sh_entsize == 16 ? sh->sh_entsize
			 : sh->sh_addralign == 8			 ? 8
									 : 16;
		*header = *entry;
		return 1;
	default:
		*header = *entry = sh->sh_entsize;
		return *entry != 0;
	}
}

static const char *plt_symname(Elf *elf, Elf_Scn *symscn, size_t idx)
{
	GElf_Shdr sh;
	Elf_Data *d;
	GElf_Sym sym;

	if (!idx || !symscn || !gelf_getshdr(symscn, &sh) || !sh.sh_entsize ||
	    idx >= sh.sh_size / sh.sh_entsize || !(d = elf_getdata(symscn, NULL)) ||
	    !gelf_getsym(d, (int)idx, &sym))
		return NULL;
	return elf_strptr(elf, sh.sh_link, sym.st_name);
}

static int plt_rel_cmp(const void *a, const void *b)
{
	const struct plt_rel *x = a, *y = b;
	return x->offset < y->offset ? -1 : x->offset > y->offset;
}

/* The relocations of section rs; *n of them, sorted by GOT slot when sort. */
static struct plt_rel *plt_rels(Elf_Scn *rs, const GElf_Shdr *sh, int sort, size_t *n)
{
	Elf_Data *d = elf_getdata(rs, NULL);
	struct plt_rel *r;
	size_t k = 0;

	*n = sh->sh_entsize ? sh->sh_size / sh->sh_entsize : 0;
	if (!d || !*n || (sh->sh_type != SHT_RELA && sh->sh_type != SHT_REL))
		return NULL;
	if (!(r = calloc(*n, sizeof *r)))
		return NULL;
	for (size_t i = 0; i < *n; i++) {
		GElf_Rela ra;
		GElf_Rel rl;
		if (sh->sh_type == SHT_RELA ? !gelf_getrela(d, (int)i, &ra) : !gelf_getrel(d, (int)i, &rl))
			continue;
		if (sh->sh_type == SHT_REL)
			ra = (GElf_Rela){rl.r_offset, rl.r_info, 0};
		r[k++] = (struct plt_rel){ra.r_offset, (uint64_t)ra.r_addend, GELF_R_SYM(ra.r_info),
					  (unsigned)GELF_R_TYPE(ra.r_info)};
	}
	*n = k;
	if (sort && k)
		qsort(r, k, sizeof *r, plt_rel_cmp);
	return r;
}

/* x86: where an entry jumps, "jmp *disp32(%rip)" after an endbr64 and a bnd
 * prefix, both optional; 0 for anything else. */
static uint64_t plt_x86_target(const unsigned char *p, size_t len, uint64_t addr)
{
	static const unsigned char endbr64[] = {0xf3, 0x0f, 0x1e, 0xfa};
	size_t n = 0;
	int32_t disp;

	if (len >= sizeof endbr64 && memcmp(p, endbr64, sizeof endbr64) == 0)
		n += sizeof endbr64;
	if (n < len && p[n] == 0xf2)
		n++;
	if (n + 6 > len || p[n] != 0xff || p[n + 1] != 0x25)
		return 0;
	memcpy(&disp, p + n + 2, 4);
	return addr + n + 6 + (uint64_t)(int64_t)disp;
}

/* .plt.got: each entry jumps through the GOT slot a .rela.dyn relocation
 * names (GLOB_DAT), so the entry's name is that relocation's symbol. */
static int plt_got(Elf *elf, const struct ltap_scns *scns, ltap_plt_fn fn, void *ud)
{
	struct plt_scn got, dyn;
	struct plt_rel *rels = NULL;
	size_t nrels = 0;
	Elf_Data *d;
	int rc = 0;

	if (!plt_scn_find(scns, ".plt.got", &got) || !got.sh.sh_entsize ||
	    !(d = elf_getdata(got.scn, NULL)))
		return 0;
	if (plt_scn_find(scns, ".rela.dyn", &dyn))
		rels = plt_rels(dyn.scn, &dyn.sh, 0, &nrels);
	for (uint64_t i = 0; rc == 0 && i + got.sh.sh_entsize <= got.sh.sh_size && i + got.sh.sh_entsize <= d->d_size;
	     i += got.sh.sh_entsize) {
		struct ltap_plt_entry e = {got.sh.sh_addr + i, got.sh.sh_entsize, NULL, 0, got.sh.sh_offset + i};
		uint64_t target = plt_x86_target((const unsigned char *)d->d_buf + i, got.sh.sh_entsize, e.addr);
		for (size_t k = 0; target && k < nrels; k++)
			if (rels[k].offset == target && rels[k].sym) {
				e.name = plt_symname(elf, elf_getscn(elf, dyn.sh.sh_link), rels[k].sym);
				break;
			}
		rc = fn(ud, &e);
	}
	free(rels);
	return rc;
}

int ltap_plt_walk(Elf *elf, const struct ltap_scns *scns, ltap_plt_fn fn, void *ud)
{
	struct plt_scn plt, sec = {0}, rel;
	struct ltap_plt_entry head;
	struct plt_rel *rels;
	uint64_t header, entry, addr, end;
	size_t n;
	GElf_Ehdr eh;
	int rc, lazy = 1;

	if (!gelf_getehdr(elf, &eh))
		return 0;
	if (plt_is_x86(&eh) && (rc = plt_got(elf, scns, fn, ud)) != 0)
		return rc;
	if (!plt_scn_find(scns, ".plt", &plt) || !plt_sizes(&eh, &plt.sh, &header, &entry))
		return 0;
	head = (struct ltap_plt_entry){plt.sh.sh_addr, header, ".plt", 0, plt.sh.sh_offset};
	addr = plt.sh.sh_addr;
	end = plt.sh.sh_addr + plt.sh.sh_size;
	if (plt_is_x86(&eh) && plt_scn_find(scns, ".plt.sec", &sec)) {
		/* IBT: .plt keeps only the lazy-binding stubs, the entries moved */
		if (!plt_sizes(&eh, &sec.sh, &header, &entry))
			return 0;
		head.size = plt.sh.sh_size;
		addr = sec.sh.sh_addr;
		end = sec.sh.sh_addr + sec.sh.sh_size;
		lazy = 0;
	}
	if (!plt_scn_find(scns, ".rela.plt", &rel) && !plt_scn_find(scns, ".rel.plt", &rel))
		return 0;
	/* x86 puts IRELATIVE relocations after the others, not in slot order */
	if (!(rels = plt_rels(rel.scn, &rel.sh, plt_is_x86(&eh), &n)))
		return 0;
	/* a lazy .plt with exactly one entry per relocation has no header */
	if (lazy && n * entry == plt.sh.sh_size)
		head.size = 0;
	else if (lazy)
		addr += header;
	rc = head.size ? fn(ud, &head) : 0;
	for (size_t i = 0; rc == 0 && i < n && addr + entry <= end; i++, addr += entry) {
		struct ltap_plt_entry e = {addr, entry, NULL, 0, addr - plt.sh.sh_addr + plt.sh.sh_offset};
		if (!lazy)
			e.fileoff = addr - sec.sh.sh_addr + sec.sh.sh_offset;
		e.name = plt_symname(elf, elf_getscn(elf, rel.sh.sh_link), rels[i].sym);
		if (e.name && !*e.name)
			e.name = NULL;
		if (!e.name && eh.e_machine == EM_X86_64 && rel.sh.sh_type == SHT_RELA &&
		    rels[i].type == R_X86_64_IRELATIVE)
			e.ifunc = rels[i].addend;
		rc = fn(ud, &e);
	}
	free(rels);
	return rc;
}
