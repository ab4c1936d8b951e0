/* ksymcache.c: the core kernel's symbols kept between runs (ksymcache.h).
 *
 * The cache file is the table as it is used, mapped and searched in place
 * (nothing parsed): a header naming the kernel it was made from, the
 * records sorted by address, their names. It is trusted only as far as it
 * is checked: a regular file owned by this user, no one else may read or
 * write it or its directory, every record in bounds and in order, and made
 * on this boot (boot id) from a /proc/kallsyms whose first lines read the
 * same now (the kernel's base address, kptr_restrict: zeros). Its whole
 * content is checked too: a checksum (XXH3, 64 bits) of everything after
 * it, written last, so a body changed since (a disk or memory fault, a
 * writer that died, a root mistake) is caught, not read as names. It is
 * written to a new name and renamed over the old, so a reader never sees
 * half. A damaged or untrusted cache is said in one warning; one made on
 * another boot or kernel is replaced quietly. */
#include "ksymcache.h"

#include "kallsyms.h"
#include "log.h"
#include "readfile.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
/* compiled in (the header holds the implementation): no library to load */
#define XXH_INLINE_ALL
#include <xxhash.h>

/* the first lines of /proc/kallsyms compared, whole lines within this */
#define KSC_HEAD 2048
#define KSC_BOOT_ID 64
static const char ksc_magic[8] = "ltapks3\n";
static const char ksc_none[] = "none yet";

struct ksc_header {
	char magic[8];
	uint64_t checksum; /* XXH3 of every byte after it; 0 until written, last */
	uint64_t nsyms, strings_len;
	uint64_t text_lo, text_hi; /* the addresses it answers for: _text.._etext or _einittext */
	uint32_t head_len, boot_id_len;
	char boot_id[KSC_BOOT_ID];
	char head[KSC_HEAD];
};

struct ltap_ksyms {
	char *kallsyms, *boot_id, *cache_dir;
	struct ltap_kallsyms *core; /* a view of the mapped cache */
	struct ltap_kallsyms *full; /* /proc/kallsyms read whole */
	void *map;
	size_t map_len;
	uint64_t lo, hi;
	int tried_core, tried_full;
	int written; /* this run wrote the cache */
};

struct ltap_ksyms_src ltap_ksyms_src_default(void)
{
	const char *v = getenv("LTAP_KSYM_CACHE");
	int off = v && (strcmp(v, "off") == 0 || strcmp(v, "0") == 0);

	return (struct ltap_ksyms_src){"/proc/kallsyms", "/proc/sys/kernel/random/boot_id",
				       off ? NULL : LTAP_KSYM_CACHE_DIR};
}

struct ltap_ksyms *ltap_ksyms_new(const struct ltap_ksyms_src *src)
{
	struct ltap_ksyms *k = calloc(1, sizeof *k);

	if (!k)
		return NULL;
	k->kallsyms = strdup(src->kallsyms);
	k->boot_id = strdup(src->boot_id);
	k->cache_dir = src->cache_dir ? strdup(src->cache_dir) : NULL;
	if (!k->kallsyms || !k->boot_id || (src->cache_dir && !k->cache_dir)) {
		ltap_ksyms_free(k);
		return NULL;
	}
	return k;
}

void ltap_ksyms_free(struct ltap_ksyms *k)
{
	if (!k)
		return;
	ltap_kallsyms_free(k->core);
	ltap_kallsyms_free(k->full);
	if (k->map)
		munmap(k->map, k->map_len);
	free(k->kallsyms);
	free(k->boot_id);
	free(k->cache_dir);
	free(k);
}

struct ltap_ksyms_stats ltap_ksyms_stats(const struct ltap_ksyms *k)
{
	return (struct ltap_ksyms_stats){k->core != NULL, k->full != NULL, k->written};
}

/* The whole lines of text[0..len) within KSC_HEAD bytes: their length. */
static uint32_t head_len(const char *text, size_t len)
{
	size_t n = len < KSC_HEAD ? len : KSC_HEAD;

	while (n && text[n - 1] != '\n')
		n--;
	return (uint32_t)n;
}

/* The first bytes of path (up to max) into buf: how many, -1 on error. */
static ssize_t read_start(const char *path, char *buf, size_t max)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t n = 0;
	ssize_t got = 1;

	if (fd < 0)
		return -1;
	while (n < max && (got = read(fd, buf + n, max - n)) > 0)
		n += (size_t)got;
	close(fd);
	return got < 0 ? -1 : (ssize_t)n;
}

/* The boot id (its text, the newline dropped) into buf: its length, 0 when unreadable. */
static uint32_t boot_id(const char *path, char buf[KSC_BOOT_ID])
{
	ssize_t n = read_start(path, buf, KSC_BOOT_ID);

	while (n > 0 && buf[n - 1] == '\n')
		n--;
	return n > 0 && n < KSC_BOOT_ID ? (uint32_t)n : 0;
}

/* The cache directory opened, or made (0700) when make; -1 with a reason
 * when it is not this user's alone. */
static int cache_dir_open(const char *dir, int make, const char **why)
{
	struct stat st;
	int fd;

	if (make && mkdir(dir, 0700) && errno != EEXIST) {
		*why = strerror(errno);
		return -1;
	}
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		*why = errno == ENOENT ? ksc_none : strerror(errno);
		return -1;
	}
	if (fstat(fd, &st) || st.st_uid != geteuid() || (st.st_mode & 077)) {
		*why = "the directory is not this user's alone (owner, mode 0700)";
		close(fd);
		return -1;
	}
	return fd;
}

/* The checksum of a cache image of len bytes: of all that follows the field. */
static uint64_t ksc_checksum(const unsigned char *img, size_t len)
{
	size_t from = offsetof(struct ksc_header, checksum) + sizeof(uint64_t);
	uint64_t h = XXH3_64bits(img + from, len - from);

	return h ? h : 1; /* 0 means "not written yet" */
}

/* Why the mapped cache (len bytes) cannot answer for this kernel, or NULL;
 * *damaged when it is broken (its checksum, sizes or records), not stale
 * (another version, boot or kernel). */
static const char *cache_check(const struct ltap_ksyms *k, const unsigned char *map, size_t len, int *damaged)
{
	const struct ksc_header *h = (const void *)map;
	const struct ltap_ksym *syms = (const void *)(map + sizeof *h);
	const char *strings;
	char id[KSC_BOOT_ID], head[KSC_HEAD];
	uint32_t idlen;
	ssize_t hn;

	*damaged = 0;
	if (len < sizeof *h || memcmp(h->magic, ksc_magic, sizeof ksc_magic))
		return "not a cache of this version";
	if (!(idlen = boot_id(k->boot_id, id)) || idlen != h->boot_id_len || memcmp(id, h->boot_id, idlen))
		return "made on another boot";
	hn = read_start(k->kallsyms, head, KSC_HEAD);
	if (hn <= 0 || head_len(head, (size_t)hn) != h->head_len || memcmp(head, h->head, h->head_len))
		return "the first lines of /proc/kallsyms differ";
	*damaged = 1;
	if (h->checksum != ksc_checksum(map, len))
		return "its checksum differs: its content changed after it was written";
	if (h->nsyms == 0 || h->nsyms > (len - sizeof *h) / sizeof *syms || h->strings_len == 0 ||
	    h->strings_len != len - sizeof *h - h->nsyms * sizeof *syms || h->text_lo >= h->text_hi)
		return "its sizes do not add up";
	strings = (const char *)(syms + h->nsyms);
	if (strings[h->strings_len - 1])
		return "its names do not end";
	if (syms[0].addr != h->text_lo)
		return "its first symbol is not the kernel's first";
	for (uint64_t i = 0; i < h->nsyms; i++)
		if (syms[i].name >= h->strings_len || syms[i].module != LTAP_KSYM_KERNEL || syms[i].addr >= h->text_hi ||
		    (i && syms[i].addr < syms[i - 1].addr))
			return "a record out of bounds or order";
	*damaged = 0;
	return NULL;
}

/* The cache mapped and checked into k->core; 0, or -1 with the reason logged. */
static int cache_open(struct ltap_ksyms *k)
{
	const char *why = NULL;
	struct stat st;
	int dfd = cache_dir_open(k->cache_dir, 0, &why), fd = -1, warn = 0;
	void *map = MAP_FAILED;

	if (dfd < 0) {
		warn = why != ksc_none;
		goto out;
	}
	fd = openat(dfd, LTAP_KSYM_CACHE_FILE, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		/* a link in its place is refused (ELOOP): said */
		warn = errno != ENOENT;
		why = errno == ENOENT ? ksc_none : strerror(errno);
		goto out;
	}
	warn = 1; /* from here on, what is wrong is not just stale */
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 077)) {
		why = "not a regular file of this user's alone (owner, mode 0600)";
		goto out;
	}
	if ((uint64_t)st.st_size < sizeof(struct ksc_header) || (uint64_t)st.st_size > (1u << 30)) {
		why = "its size is wrong";
		goto out;
	}
	/* every page is read (the checksum): mapped at once, not fault by fault */
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
	if (map == MAP_FAILED) {
		why = strerror(errno);
		goto out;
	}
	if (!(why = cache_check(k, map, (size_t)st.st_size, &warn))) {
		const struct ksc_header *h = map;
		const struct ltap_ksym *syms = (const void *)(h + 1);

		k->core = ltap_kallsyms_view(syms, h->nsyms, (const char *)(syms + h->nsyms));
		if (!k->core)
			why = "no memory";
		else {
			k->map = map;
			k->map_len = (size_t)st.st_size;
			k->lo = h->text_lo;
			k->hi = h->text_hi;
			map = MAP_FAILED;
			ltap_debug("kernel symbols: %zu from the cache %s/%s", ltap_kallsyms_count(k->core),
				   k->cache_dir, LTAP_KSYM_CACHE_FILE);
		}
	}
out:
	if (map != MAP_FAILED)
		munmap(map, (size_t)st.st_size);
	if (fd >= 0)
		close(fd);
	if (dfd >= 0)
		close(dfd);
	if (why && warn)
		ltap_warn("kernel symbols: cache %s/%s not used: %s; %s read instead%s", k->cache_dir,
			  LTAP_KSYM_CACHE_FILE, why, k->kallsyms, dfd < 0 ? "" : " (and the cache written anew)");
	else if (why)
		ltap_debug("kernel symbols: cache %s/%s not used: %s", k->cache_dir, LTAP_KSYM_CACHE_FILE, why);
	return k->core ? 0 : -1;
}

/* The address of the kernel's symbol called name, 0 when none is. */
static uint64_t kernel_addr(const struct ltap_ksym *syms, size_t n, const char *strings, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (syms[i].module == LTAP_KSYM_KERNEL && strcmp(strings + syms[i].name, name) == 0)
			return syms[i].addr;
	return 0;
}

/* Whether addr is within the range the cache h answers for. */
static int in_text(uint64_t addr, const struct ksc_header *h)
{
	return addr >= h->text_lo && addr < h->text_hi;
}

/* Whether s is the kernel's own code within that range: a cached symbol. */
static int cached_here(const struct ltap_ksym *s, const struct ksc_header *h)
{
	return s->module == LTAP_KSYM_KERNEL && in_text(s->addr, h);
}

/* The file's bytes: the header, the core kernel's records [lo, hi) from the
 * full table, their names. NULL with *why. */
static char *cache_image(const struct ltap_ksyms *k, const char *head, uint32_t hlen, size_t *len,
			 const char **why)
{
	size_t n, nsel = 0, slen = 0, off;
	const char *strings;
	const struct ltap_ksym *syms = ltap_kallsyms_records(k->full, &n, &strings);
	uint64_t lo = kernel_addr(syms, n, strings, "_text"), hi = kernel_addr(syms, n, strings, "_etext"),
		 init_end = kernel_addr(syms, n, strings, "_einittext");
	/* the init code's symbols stay after it is freed: the boot CPU's idle
	 * stack still starts in x86_64_start_kernel */
	struct ksc_header h = {.text_lo = lo ? lo : kernel_addr(syms, n, strings, "_stext"),
			       .text_hi = init_end > hi ? init_end : hi};
	struct ltap_ksym *out;
	char *img, *names;

	memcpy(h.magic, ksc_magic, sizeof h.magic);
	if (!h.text_lo || !hi || h.text_lo >= h.text_hi) {
		*why = "no _text.._etext in /proc/kallsyms";
		return NULL;
	}
	/* the cache answers for [lo, hi) as the whole table does only if no
	 * module's or BPF program's code lies there */
	for (size_t i = 0; i < n; i++)
		if (syms[i].module != LTAP_KSYM_KERNEL && in_text(syms[i].addr, &h)) {
			*why = "other code than the kernel's within its text";
			return NULL;
		}
	if (!(h.boot_id_len = boot_id(k->boot_id, h.boot_id)) || !(h.head_len = hlen)) {
		*why = "no boot id or no first line";
		return NULL;
	}
	memcpy(h.head, head, hlen);
	for (size_t i = 0; i < n; i++)
		if (cached_here(&syms[i], &h)) {
			nsel++;
			slen += strlen(strings + syms[i].name) + 1;
		}
	h.nsyms = nsel;
	h.strings_len = slen;
	*len = sizeof h + nsel * sizeof *out + slen;
	if (!nsel || slen > UINT32_MAX || !(img = malloc(*len))) {
		*why = "too few symbols, too many or no memory";
		return NULL;
	}
	memcpy(img, &h, sizeof h);
	out = (struct ltap_ksym *)(img + sizeof h);
	names = (char *)(out + nsel);
	off = 0;
	for (size_t i = 0; i < n; i++)
		if (cached_here(&syms[i], &h)) {
			size_t l = strlen(strings + syms[i].name) + 1;
			memcpy(names + off, strings + syms[i].name, l);
			*out++ = (struct ltap_ksym){syms[i].addr, (uint32_t)off, LTAP_KSYM_KERNEL};
			off += l;
		}
	return img;
}

/* Writes the cache from k->full, whose text began with head; the reason when not. */
static const char *cache_write(const struct ltap_ksyms *k, const char *head, uint32_t hlen)
{
	const char *why = NULL;
	char tmp[64];
	size_t len, done = 0;
	char *img = cache_image(k, head, hlen, &len, &why);
	int dfd = -1, fd = -1;

	if (!img)
		return why;
	if ((dfd = cache_dir_open(k->cache_dir, 1, &why)) < 0)
		goto out;
	snprintf(tmp, sizeof tmp, "%s.%d.new", LTAP_KSYM_CACHE_FILE, (int)getpid());
	unlinkat(dfd, tmp, 0); /* left by a killed run of this pid */
	fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		why = strerror(errno);
		goto out;
	}
	/* the body first, then its checksum: a file cut short or changed
	 * before the end never checks */
	while (done < len) {
		ssize_t w = write(fd, img + done, len - done);
		if (w <= 0) {
			why = w < 0 ? strerror(errno) : "short write";
			break;
		}
		done += (size_t)w;
	}
	if (!why) {
		uint64_t sum = ksc_checksum((const unsigned char *)img, len);
		if (pwrite(fd, &sum, sizeof sum, offsetof(struct ksc_header, checksum)) != (ssize_t)sizeof sum)
			why = "short write";
	}
	if (close(fd) && !why)
		why = strerror(errno);
	if (!why && renameat(dfd, tmp, dfd, LTAP_KSYM_CACHE_FILE))
		why = strerror(errno);
	if (why)
		unlinkat(dfd, tmp, 0);
out:
	if (dfd >= 0)
		close(dfd);
	free(img);
	return why;
}

static void full_read(struct ltap_ksyms *k)
{
	size_t len, n;
	char head[KSC_HEAD];
	uint32_t hlen;
	const char *why;
	char *text = ltap_file_read(k->kallsyms, LTAP_KALLSYMS_MAX, &len);

	if (!text) {
		ltap_debug("kernel symbols: cannot read %s: %s", k->kallsyms, strerror(errno));
		return;
	}
	/* the parse cuts the text into names: its first lines kept before */
	hlen = head_len(text, len);
	memcpy(head, text, hlen);
	if (!(k->full = ltap_kallsyms_parse(text, len)))
		return;
	n = ltap_kallsyms_count(k->full);
	ltap_debug("kernel symbols: %zu read from %s", n, k->kallsyms);
	if (!k->cache_dir || k->core || !n)
		return;
	if ((why = cache_write(k, head, hlen)))
		ltap_debug("kernel symbols: cache %s/%s not written: %s", k->cache_dir, LTAP_KSYM_CACHE_FILE, why);
	else {
		k->written = 1;
		ltap_debug("kernel symbols: cache %s/%s written", k->cache_dir, LTAP_KSYM_CACHE_FILE);
	}
}

int ltap_ksyms_find(struct ltap_ksyms *k, uint64_t addr, const char **name, uint64_t *off, const char **module)
{
	if (!k->full) {
		if (!k->tried_core && k->cache_dir) {
			k->tried_core = 1;
			cache_open(k);
		}
		if (k->core && addr >= k->lo && addr < k->hi)
			return ltap_kallsyms_find(k->core, addr, name, off, module);
		if (!k->tried_full) {
			k->tried_full = 1;
			if (k->core)
				ltap_debug("kernel symbols: 0x%" PRIx64 " is past the kernel's text: the whole table read",
					   addr);
			full_read(k);
		}
		if (!k->full)
			return -ENOENT;
	}
	return ltap_kallsyms_find(k->full, addr, name, off, module);
}
