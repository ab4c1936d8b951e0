/* elffile.h: an ELF file as ltap reads it, the one reader for uprobe
 * placement (bindings/uprobe.c) and symbolization (symbols.c): its loadable
 * segments (file offset <-> link-time address), its build id, and the SDT
 * (USDT) notes of .note.stapsdt. Its symbols are read by symtab.h (through
 * dwfile.h), the one reader of symbols.
 *
 * The path may name a file a traced process mapped, which a user may since
 * have replaced: the file is opened without blocking (a FIFO cannot stall
 * ltap) and used only when it is a regular file. */
#ifndef LTAP_ELFFILE_H
#define LTAP_ELFFILE_H

#include <gelf.h>
#include <stddef.h>
#include <stdint.h>

struct ltap_elf;

struct ltap_sdt {
	char provider[64], name[64];
	uint64_t pc_offset;  /* file offset of the probe point */
	uint64_t sem_offset; /* file offset of the semaphore, 0 for none */
	char args[512];      /* "-4@%edi 8@-16(%rbp)" as the note has it */
};

/* NULL with errno set (ENOENT, ENOEXEC for a file that is not a regular ELF
 * file). */
struct ltap_elf *ltap_elf_open(const char *path);
void ltap_elf_close(struct ltap_elf *e);

/* The libelf handle, valid while e is open. */
Elf *ltap_elf_handle(struct ltap_elf *e);
/* The file's descriptor, for a library that takes it and closes it
 * (libdwfl): e no longer uses nor closes it. -1 when already taken. */
int ltap_elf_take_fd(struct ltap_elf *e);

/* Link-time address -> file offset (what uprobe_events wants), and file
 * offset (what a mapping gives) -> link-time address: -1 when no loadable
 * segment holds it. */
int ltap_elf_addr_offset(struct ltap_elf *e, uint64_t addr, uint64_t *offset);
int ltap_elf_offset_addr(struct ltap_elf *e, uint64_t offset, uint64_t *addr);

/* The GNU build id (NT_GNU_BUILD_ID): its length, 0 for none. */
size_t ltap_elf_build_id(struct ltap_elf *e, const unsigned char **id);
/* The CRC-32 of the whole file, as a .gnu_debuglink to it records it. */
uint32_t ltap_elf_crc32(struct ltap_elf *e);

int ltap_elf_sdts(struct ltap_elf *e, const struct ltap_sdt **sdts);

#endif
