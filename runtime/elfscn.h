/* elfscn.h: an ELF file's section headers, read once: by name (plt.c's
 * .plt, .rela.plt...; elffile.c's notes), by address (symtab.c's rule for
 * labels, disasm.c's code bytes and objdump's labels), in table order. */
#ifndef LTAP_ELFSCN_H
#define LTAP_ELFSCN_H

#include <gelf.h>
#include <stddef.h>
#include <stdint.h>

struct ltap_scn {
	Elf_Scn *scn;
	GElf_Shdr sh;
	const char *name; /* "" when the string table has none */
	size_t idx;       /* the section's index */
};

struct ltap_scns {
	struct ltap_scn *v;   /* in table order */
	size_t n;
	struct ltap_scn **by_addr; /* the allocated ones by address, then end, then index */
	size_t nalloc;
};

/* Reads elf's section headers; NULL with errno (ENOMEM). A file without
 * sections gives an empty list. The names live as long as elf. */
struct ltap_scns *ltap_scns_new(Elf *elf);
void ltap_scns_free(struct ltap_scns *s);

/* The first section named name, NULL for none. */
const struct ltap_scn *ltap_scns_named(const struct ltap_scns *s, const char *name);
/* The allocated section holding link-time address a as elfutils'
 * find_section finds it (a section's end belongs to it unless the next one
 * starts there); NULL for none. */
const struct ltap_scn *ltap_scns_find(const struct ltap_scns *s, uint64_t a);
/* The first allocated section, in table order, with a in [start, end), as
 * objdump's labels look; NULL for none. */
const struct ltap_scn *ltap_scns_holding(const struct ltap_scns *s, uint64_t a);

#endif
