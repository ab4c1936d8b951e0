/* ksymcache.h: the kernel's code symbols for lookups, without paying at
 * every run the 40 ms of CPU the kernel spends printing /proc/kallsyms
 * (120k lines, formatted one by one): the core kernel's text symbols, fixed
 * for one boot, are kept in a file only root can write, and read back when
 * it matches the running kernel (boot id, the first lines of /proc/kallsyms);
 * an address outside the core kernel's text (modules, BPF programs,
 * trampolines: code that comes and goes) or a cache that does not match
 * makes the whole of /proc/kallsyms be read, as without a cache, and a
 * missing or stale cache is then written anew. */
#ifndef LTAP_KSYMCACHE_H
#define LTAP_KSYMCACHE_H

#include <stdint.h>

struct ltap_ksyms;

/* Where the symbols come from (tests name their own files). */
struct ltap_ksyms_src {
	const char *kallsyms;  /* /proc/kallsyms */
	const char *boot_id;   /* /proc/sys/kernel/random/boot_id */
	const char *cache_dir; /* LTAP_KSYM_CACHE_DIR; NULL: no cache */
};

#define LTAP_KSYM_CACHE_DIR "/run/ltap"
#define LTAP_KSYM_CACHE_FILE "kallsyms"

/* The machine's sources: the cache unless LTAP_KSYM_CACHE=off. */
struct ltap_ksyms_src ltap_ksyms_src_default(void);

/* Nothing is read until the first lookup. NULL without memory. */
struct ltap_ksyms *ltap_ksyms_new(const struct ltap_ksyms_src *src);
void ltap_ksyms_free(struct ltap_ksyms *k);

/* As ltap_kallsyms_find; names live as long as k. -ENOENT: no symbol (or
 * /proc/kallsyms unreadable). */
int ltap_ksyms_find(struct ltap_ksyms *k, uint64_t addr, const char **name, uint64_t *off, const char **module);

/* Where lookups were answered from: whether the cache was used, whether
 * /proc/kallsyms was read whole (0 or 1), whether this run wrote the cache. */
struct ltap_ksyms_stats {
	int cached, full_reads, written;
};
struct ltap_ksyms_stats ltap_ksyms_stats(const struct ltap_ksyms *k);

#endif
