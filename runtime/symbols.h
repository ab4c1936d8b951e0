/* symbols.h: address -> function for kernel (/proc/kallsyms) and user space
 * (ELF symbol tables and DWARF through libdwfl, named as symtab.h decides;
 * /tmp/perf-PID.map for JIT code in anonymous memory).
 *
 * User mappings are tracked per process from the perf ring's MMAP2, FORK and
 * COMM(exec) records, and read from /proc/PID/maps for processes that were
 * running before; so processes that exit before a lookup still resolve.
 * Modules are opened once per file, whatever process maps them, and each
 * (module, address) result is cached. */
#ifndef LTAP_SYMBOLS_H
#define LTAP_SYMBOLS_H

#include <stdint.h>

struct ltap_symbols;

struct ltap_sym {
	const char *name;   /* NULL when the module is known but not the symbol */
	uint64_t off;       /* address - symbol start */
	const char *module; /* "[kernel.kallsyms]", "[ext4]", "/usr/lib/.../libc.so.6" */
	const char *file;   /* source file, when asked and known */
	int line;
	int kernel;
};

struct ltap_symbols *ltap_symbols_new(void);
void ltap_symbols_free(struct ltap_symbols *s);

/* What the perf ring tells about processes. */
void ltap_symbols_mmap(struct ltap_symbols *s, int pid, uint64_t start, uint64_t len,
		       uint64_t pgoff, const char *path);
void ltap_symbols_fork(struct ltap_symbols *s, int ppid, int pid);
void ltap_symbols_exec(struct ltap_symbols *s, int pid);

/* A frame as what names it, so that the same code in two processes is the
 * same frame: a file's frame is (module, file offset) whatever the process;
 * code in anonymous memory (JIT) stays (module or none, process, address);
 * a kernel frame is (kernel, address). All zero bytes but what is set, so
 * frames compare and hash as memory. */
struct ltap_frame {
	const void *module, *proc;
	uint64_t addr;
	uint64_t kernel; /* under PERF_CONTEXT_KERNEL in the chain */
};

/* The frames of a perf call chain of process pid, leaf first, without the
 * context markers, at most max; raw (NULL or room for max) gets their
 * addresses. A user frame outside every mapping (and JIT map) of the
 * process, a kernel address among them too, ends the chain, and is its
 * last frame: a frame-pointer walk went
 * astray there (code built without frame pointers), and what follows is
 * stack garbage, often up to the kernel's limit of 127 frames. */
int ltap_symbols_chain(struct ltap_symbols *s, int pid, const uint64_t *chain, int nr, struct ltap_frame *out,
		       uint64_t *raw, int max);
/* What names frame f, as ltap_symbols_lookup. */
int ltap_symbols_frame_sym(struct ltap_symbols *s, const struct ltap_frame *f, int lines, struct ltap_sym *out);

/* Resolves addr in process pid (kernel addresses need no pid). lines asks
 * for the DWARF file:line too. 0 when the module is known (out->name may
 * still be NULL, out->file set), -ENOENT when nothing is known. Strings stay
 * valid until ltap_symbols_free, but for a JIT name (module
 * /tmp/perf-PID.map): until the next lookup, which may read the map again. */
int ltap_symbols_lookup(struct ltap_symbols *s, int pid, uint64_t addr, int lines,
			struct ltap_sym *out);

/* 1 when addr lies in a mapping (or JIT map) known for process pid, or in
 * the kernel: a return address outside every mapping ends a frame-pointer
 * walk that went astray. */
int ltap_symbols_mapped(struct ltap_symbols *s, int pid, uint64_t addr);

/* Kernel addresses start here on x86-64 and arm64. */
#define LTAP_KERNEL_ADDR 0xffff800000000000ull

#endif
