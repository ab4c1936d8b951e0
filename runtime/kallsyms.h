/* kallsyms.h: the kernel's code symbols from /proc/kallsyms ("ADDR T name"
 * and "ADDR t name\t[module]" lines), sorted by address for lookups. */
#ifndef LTAP_KALLSYMS_H
#define LTAP_KALLSYMS_H

#include <stddef.h>
#include <stdint.h>

struct ltap_kallsyms;

/* far more than any kernel prints (6.x: about 10 MB with every module loaded) */
#define LTAP_KALLSYMS_MAX (1u << 30)

/* One symbol: name and module are offsets into the table's strings;
 * LTAP_KSYM_KERNEL is the kernel's own ("[kernel.kallsyms]"). */
struct ltap_ksym {
	uint64_t addr;
	uint32_t name, module;
};
#define LTAP_KSYM_KERNEL UINT32_MAX

/* Reads path (/proc/kallsyms) whole; NULL with errno set. A file whose
 * addresses are all zero (kptr_restrict) gives an empty table. */
struct ltap_kallsyms *ltap_kallsyms_load(const char *path);
/* The same from text of that format, which the table takes and frees. */
struct ltap_kallsyms *ltap_kallsyms_parse(char *text, size_t len);
/* A table over n records sorted by address and the strings they name,
 * both the caller's (a cache file mapped), to outlive the table. */
struct ltap_kallsyms *ltap_kallsyms_view(const struct ltap_ksym *syms, size_t n, const char *strings);
void ltap_kallsyms_free(struct ltap_kallsyms *k);
/* The records in address order and their strings (what a cache keeps). */
const struct ltap_ksym *ltap_kallsyms_records(const struct ltap_kallsyms *k, size_t *n, const char **strings);

/* The symbol at or below addr: 0 with *name, *off, *module ("[kernel.kallsyms]"
 * or "[ext4]"; strings live as long as the table), -ENOENT below the first. */
int ltap_kallsyms_find(const struct ltap_kallsyms *k, uint64_t addr, const char **name, uint64_t *off,
		       const char **module);
size_t ltap_kallsyms_count(const struct ltap_kallsyms *k);

#endif
