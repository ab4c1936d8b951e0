/* dwfile.h: one ELF file under libdwfl, for its symbols and DWARF lines,
 * with ltap's one search for separate debug info. symbols.c opens the
 * files samples name through it, disasm.c the file ltap annotate reads.
 *
 * The search never asks a debuginfod server (elfutils' own does, as root,
 * when DEBUGINFOD_URLS is set: downloads, and a stall of up to 90 s a file)
 * and takes debug files beside a file only when only root may write to
 * its directory; every file is opened as ltap_elf_open opens files (no
 * blocking open: a FIFO put in a file's place cannot stall ltap). */
#ifndef LTAP_DWFILE_H
#define LTAP_DWFILE_H

#include "elfsym.h"

#include <elfutils/libdwfl.h>

struct ltap_dwfile {
	const char *path;      /* the caller's, kept for the file's life */
	struct ltap_elf *elf;  /* the file as opened: its build id and CRC */
	Dwfl *dwfl;
	Dwfl_Module *mod;      /* symbols: dwfl_module_getsym*, lines: dwfl_module_getsrc */
	Elf *main;             /* the file's ELF (not its debug file's) */
	Dwarf_Addr bias;       /* the module's address - the file's own */
	int trusted;           /* only root may write to its directory */
};

/* Opens path into f (zeroed first). 0, or -errno: ENOEXEC when it is not
 * a regular ELF file. f must not move while open (libdwfl keeps its
 * address for the debug info search). */
int ltap_dwfile_open(struct ltap_dwfile *f, const char *path);
void ltap_dwfile_close(struct ltap_dwfile *f);

#endif
