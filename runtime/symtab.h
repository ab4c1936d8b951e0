/* symtab.h: the one reader of an ELF file's symbols: its symbol table as
 * libdwfl finds it (.symtab, the one of a separate debug file, or .dynsym),
 * plus "FUNC@plt" names for its PLT entries, read once and looked up by
 * address (symbols.c, disasm.c), by name (uprobes, ltap list, annotate) and
 * for objdump's labels. One rule chooses among the names that cover an
 * address.
 *
 * The rule is elfutils' (dwfl_module_addrinfo, what eu-addr2line prints)
 * where it decides, and prefers the public name where elfutils takes
 * whichever comes first in the table:
 *  - a symbol with a size covers [start, start + size); of those covering the
 *    address, the one starting nearest below it wins;
 *  - then GLOBAL over WEAK over LOCAL (getcwd, not __GI___getcwd), then the
 *    smaller size;
 *  - then the current version over a compatibility one ("f@@V" or "f" over
 *    "f@V"), fewer underscores in the name, the shorter name (malloc, not
 *    __libc_malloc; pthread_mutex_lock@@GLIBC_2.2.5, not
 *    __pthread_mutex_lock@GLIBC_2.2.5; ____strtof_l_internal, not
 *    __GI_____strtof_l_internal: all underscores count, not only leading
 *    ones as in perf's choose_best_symbol, so glibc's __GI_ aliases lose);
 *  - a symbol without a size covers from its start only up to the next
 *    symbol, never past the end of a sized one and never into another
 *    section (so _init does not swallow .plt): elfutils' assembly labels;
 *  - local symbols are looked at only when no global one covers the address,
 *    as elfutils searches the table's global part first. */
#ifndef LTAP_SYMTAB_H
#define LTAP_SYMTAB_H

#include <elfutils/libdwfl.h>
#include <stdint.h>

struct ltap_symtab;
struct ltap_scns;

/* A symbol of the table (or a PLT entry's name), at module addresses (bias
 * included). */
struct ltap_symtab_sym {
	uint64_t addr, size;
	const char *name;
	uint32_t order;  /* index in the table (locals first), PLT names after */
	uint16_t shndx;  /* its section in the table's file; 0 for a PLT name */
	uint8_t bind;    /* 3 GLOBAL, 2 WEAK, 1 LOCAL, 0 other: higher is preferred */
	uint8_t flags;   /* LTAP_SYMTAB_* */
};

enum {
	LTAP_SYMTAB_GLOBAL = 1, /* in the part of the table elfutils searches first */
	LTAP_SYMTAB_FUNC = 2,   /* STT_FUNC or STT_GNU_IFUNC */
	LTAP_SYMTAB_PLT = 4,    /* a PLT entry's name ("FUNC@plt"), no symbol of the file */
};

/* NULL with errno set; a module with no symbols gives an empty table. */
struct ltap_symtab *ltap_symtab_new(Dwfl_Module *mod);
void ltap_symtab_free(struct ltap_symtab *t);

/* The name of module address a (bias included) and a's offset from its
 * start; NULL when no symbol covers a. Names live as long as the table. */
const char *ltap_symtab_find(const struct ltap_symtab *t, uint64_t a, uint64_t *off);

/* The function named name (a symbol of type FUNC or IFUNC at an address;
 * no PLT entry): of several, one with a size, at the lowest address.
 * versions: else one whose name is name's up to a version ("f@@V" and
 * "f@V" are f). NULL for none (or out of memory). */
const struct ltap_symtab_sym *ltap_symtab_func(const struct ltap_symtab *t, const char *name, int versions);
/* The functions, one per name, sorted by name: their number. */
size_t ltap_symtab_funcs(struct ltap_symtab *t, const struct ltap_symtab_sym *const **funcs);

/* objdump's label of module address a where no symbol covers it: the
 * nearest symbol at or below a in the section holding a, however far (a
 * string in .rodata is "<usage_text+0xfda>"); a non-local one, then the
 * first name, of those at one address. NULL for none. */
const char *ltap_symtab_label(const struct ltap_symtab *t, uint64_t a, uint64_t *off);

/* The file's section headers (elfscn.h), read once for all of the above;
 * NULL when the module has no ELF file of its own. */
const struct ltap_scns *ltap_symtab_scns(const struct ltap_symtab *t);

#endif
