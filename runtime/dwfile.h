/* dwfile.h: one ELF file under libdwfl, for its symbols and DWARF lines,
 * with ltap's one search for separate debug info. symbols.c opens the
 * files samples name through it, disasm.c the file ltap annotate reads.
 *
 * The search never asks a debuginfod server (elfutils' own does, as root,
 * when DEBUGINFOD_URLS is set: downloads, and a stall of up to 90 s a file)
 * and takes debug files beside a file only when only root may write to
 * its directory; every file is opened as ltap_elf_open opens files (no
 * blocking open: a FIFO put in a file's place cannot stall ltap). Its
 * symbols are symtab.h's, for uprobes by name and ltap list too. */
#ifndef LTAP_DWFILE_H
#define LTAP_DWFILE_H

#include "elffile.h"

#include <elfutils/libdwfl.h>
#include <stdint.h>

struct ltap_symtab;

struct ltap_dwfile {
	const char *path;      /* the caller's, kept for the file's life */
	struct ltap_elf *elf;  /* the file as opened: its build id and CRC */
	Dwfl *dwfl;
	Dwfl_Module *mod;      /* symbols: dwfl_module_getsym*, lines: dwfl_module_getsrc */
	Elf *main;             /* the file's ELF (not its debug file's) */
	Dwarf_Addr bias;       /* the module's address - the file's own */
	int trusted;           /* only root may write to its directory */
	struct ltap_symtab *tab; /* its symbols, read at the first ltap_dwfile_symtab */
};

/* Opens path into f (zeroed first). 0, or -errno: ENOEXEC when it is not
 * a regular ELF file. f must not move while open (libdwfl keeps its
 * address for the debug info search). */
int ltap_dwfile_open(struct ltap_dwfile *f, const char *path);
void ltap_dwfile_close(struct ltap_dwfile *f);

/* The file's symbols (symtab.h), read at the first call and kept until
 * close; NULL with errno. */
struct ltap_symtab *ltap_dwfile_symtab(struct ltap_dwfile *f);
/* The function named name (ltap_symtab_func, no version matching): the file
 * offset of its start, what uprobe_events wants, and its size (0 when the
 * symbol has none). 0, -ENOENT (no such function, or it lies in no
 * loadable segment) or -ENOMEM. */
int ltap_dwfile_func(struct ltap_dwfile *f, const char *name, uint64_t *offset, uint64_t *size);

#endif
