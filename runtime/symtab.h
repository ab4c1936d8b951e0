/* symtab.h: the names of one ELF file's addresses: its symbol table as
 * libdwfl finds it (.symtab, the one of a separate debug file, or .dynsym),
 * plus "FUNC@plt" names for its PLT entries, and one rule to choose among the
 * names that cover an address.
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

/* NULL with errno set; a module with no symbols gives an empty table. */
struct ltap_symtab *ltap_symtab_new(Dwfl_Module *mod);
void ltap_symtab_free(struct ltap_symtab *t);

/* The name of module address a (bias included) and a's offset from its
 * start; NULL when no symbol covers a. Names live as long as the table. */
const char *ltap_symtab_find(const struct ltap_symtab *t, uint64_t a, uint64_t *off);

#endif
