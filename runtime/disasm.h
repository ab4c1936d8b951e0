/* disasm.h: the instructions of one function of an ELF file, as `objdump -d`
 * prints them (AT&T syntax; capstone decodes, disasm.c writes the text the
 * way objdump does), each with its DWARF source line (libdwfl), for
 * ltap annotate. x86-64 only. */
#ifndef LTAP_DISASM_H
#define LTAP_DISASM_H

#include <stdint.h>

struct ltap_disasm;

struct ltap_insn {
	uint64_t addr;      /* the ELF's own address (what objdump -d shows) */
	int size;           /* bytes */
	char text[320];     /* "mov    0x2e6a(%rip),%rax        # 4050 <sink>" (a label cut at the end) */
	const char *file;   /* source file (absolute as eu-addr2line prints it), or NULL */
	int line;
};

/* Opens the ELF file path (a regular file, opened without blocking: the
 * path may come from a recorded profile). NULL with errno set. */
/* NULL when the disassembler (capstone, opened at first use) is there,
 * else why not. */
const char *ltap_disasm_unavailable(void);
/* NULL with errno: ELIBACC when ltap_disasm_unavailable() says why */
struct ltap_disasm *ltap_disasm_open(const char *path);
void ltap_disasm_close(struct ltap_disasm *d);

/* The function named name (a version suffix "@@V" or "@V" is ignored when
 * the table has the bare name): its start and size. 0, or -ENOENT. */
int ltap_disasm_find(struct ltap_disasm *d, const char *name, uint64_t *start, uint64_t *size);

/* The instructions of [start, start + size), at most max: a malloc'd array
 * in *out; their number, or -errno (-ERANGE: the range is not in the file's
 * code). Strings live as long as d. */
int ltap_disasm_range(struct ltap_disasm *d, uint64_t start, uint64_t size, int max, struct ltap_insn **out);

#endif
