/* plt.h: the entries of an ELF file's PLT sections (.plt, .plt.sec,
 * .plt.got), which no symbol table covers, named from the relocations that
 * fill their GOT slots, as perf's dso__synthesize_plt_symbols names them:
 * "FUNC@plt" for each entry, ".plt" for the lazy-binding header.
 *
 * The file is untrusted input: every index and offset is checked against the
 * section it points into. */
#ifndef LTAP_PLT_H
#define LTAP_PLT_H

#include "elfscn.h"

#include <gelf.h>
#include <stdint.h>

struct ltap_plt_entry {
	uint64_t addr, size; /* link-time addresses */
	const char *name;    /* the called symbol, or ".plt"; NULL when unnamed */
	uint64_t ifunc;      /* unnamed IRELATIVE slot: its resolver's address, else 0 */
	uint64_t fileoff;    /* file offset of the entry (perf's "offset_%#x@plt") */
};

typedef int (*ltap_plt_fn)(void *ud, const struct ltap_plt_entry *e);

/* Calls fn for each entry (name strings live as long as elf); stops at the
 * first non-zero return of fn and returns it. 0 when the file has no PLT.
 * scns: elf's section headers (elfscn.h). */
int ltap_plt_walk(Elf *elf, const struct ltap_scns *scns, ltap_plt_fn fn, void *ud);

#endif
