/* elfsym.h: what uprobes need from an ELF file: function symbols, their file
 * offsets (the kernel places a uprobe at an offset in the file, not at an
 * address), and the SDT (USDT) notes of .note.stapsdt. */
#ifndef LTAP_ELFSYM_H
#define LTAP_ELFSYM_H

#include <stdint.h>

struct ltap_elf;

struct ltap_elf_func {
	const char *name;  /* valid while the ltap_elf is open */
	uint64_t addr;     /* link-time address */
	uint64_t size;
	uint64_t offset;   /* file offset, for uprobe_events */
};

struct ltap_sdt {
	char provider[64], name[64];
	uint64_t pc_offset;  /* file offset of the probe point */
	uint64_t sem_offset; /* file offset of the semaphore, 0 for none */
	char args[512];      /* "-4@%edi 8@-16(%rbp)" as the note has it */
};

/* NULL with errno set (ENOENT, ENOEXEC for a file that is not ELF). */
struct ltap_elf *ltap_elf_open(const char *path);
void ltap_elf_close(struct ltap_elf *e);

/* The functions (STT_FUNC, STT_GNU_IFUNC, defined) of .symtab and .dynsym,
 * sorted by name, each once. */
int ltap_elf_funcs(struct ltap_elf *e, const struct ltap_elf_func **funcs);
const struct ltap_elf_func *ltap_elf_func_find(struct ltap_elf *e, const char *name);
/* -1 when no loadable segment holds addr */
int ltap_elf_addr_offset(struct ltap_elf *e, uint64_t addr, uint64_t *offset);

int ltap_elf_sdts(struct ltap_elf *e, const struct ltap_sdt **sdts);

#endif
