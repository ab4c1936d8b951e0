/* test_ksymcache.c: the core kernel's symbols kept between runs, on a
 * kallsyms file and a boot id made here: a cache answers as /proc/kallsyms
 * read whole does, only for the core kernel's text (a module's address reads
 * the whole file); it is not used, and is made anew, when it was made on
 * another boot, from another kernel layout, when its file or directory is
 * not this user's alone, a link, cut short or out of bounds, or its body
 * changed (names, name offsets, addresses: its checksum), each said in
 * one warning (a stale cache in none). */
#include "check.h"
#include "ksymcache.h"
#include "log.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum { NCORE = 500 };

static char dir[64], kallsyms[96], boot[96], cache[96], cfile[128];
static int warnings;

/* the file's layout (ksymcache.c): the header, then 16-byte records */
#define HEADER (8 + 8 + 4 * 8 + 4 + 4 + 64 + 2048)
#define RECORD(i) (HEADER + 16 * (off_t)(i))

static void count_warnings(void *ud, enum ltap_log_level level, const char *msg)
{
	(void)ud;
	if (level == LTAP_LOG_WARN) {
		warnings++;
		fprintf(stderr, "(warning) %s\n", msg);
	}
}

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	CHECK(f && fputs(text, f) >= 0 && fclose(f) == 0);
}

/* where the kernel's init code starts */
#define INIT(base) ((base) + 0x40ull * NCORE + 0x1000)

/* a kallsyms text: the kernel at base (_text, NCORE functions, _etext, its
 * init code, one function past that), a module's and a BPF program's */
static void make_kallsyms(unsigned long long base)
{
	static char text[NCORE * 48 + 1024];
	size_t n = 0;

	n += (size_t)snprintf(text + n, sizeof text - n, "%016llx A fixed_percpu_data\n%016llx T _text\n", 0ull, base);
	for (int i = 0; i < NCORE; i++)
		n += (size_t)snprintf(text + n, sizeof text - n, "%016llx %c f%d\n", base + 0x10 + 0x40ull * (unsigned)i,
				      i % 3 ? 't' : 'T', i);
	n += (size_t)snprintf(text + n, sizeof text - n,
			      "%016llx T _etext\n%016llx D some_data\n%016llx T _sinittext\n%016llx t init_fn\n"
			      "%016llx T _einittext\n%016llx t past_fn\n"
			      "ffffffffc0010000 t ext4_fn\t[ext4]\nffffffffc0020000 t bpf_prog_1\t[bpf]\n",
			      base + 0x40ull * NCORE + 0x10, base + 0x40ull * NCORE + 0x800, INIT(base), INIT(base) + 0x10,
			      INIT(base) + 0x100, INIT(base) + 0x200);
	put(kallsyms, text);
}

static struct ltap_ksyms *open_syms(int cached)
{
	struct ltap_ksyms_src src = {kallsyms, boot, cached ? cache : NULL};

	return ltap_ksyms_new(&src);
}

/* every address from..end answered by a (cached) as by b (no cache): how
 * many differed */
static int differ(struct ltap_ksyms *a, struct ltap_ksyms *b, unsigned long long from, unsigned long long end)
{
	int bad = 0;

	for (unsigned long long x = from; x < end; x += 7) {
		const char *n1 = NULL, *n2 = NULL, *m1 = NULL, *m2 = NULL;
		uint64_t o1 = 0, o2 = 0;
		int r1 = ltap_ksyms_find(a, x, &n1, &o1, &m1), r2 = ltap_ksyms_find(b, x, &n2, &o2, &m2);

		bad += r1 != r2 || (r1 == 0 && (strcmp(n1, n2) || o1 != o2 || strcmp(m1, m2)));
	}
	return bad;
}

static int is(struct ltap_ksyms *k, uint64_t addr, const char *name, uint64_t off, const char *module)
{
	const char *n, *m;
	uint64_t o;

	return ltap_ksyms_find(k, addr, &n, &o, &m) == 0 && strcmp(n, name) == 0 && o == off && strcmp(m, module) == 0;
}

/* a fresh lookup of one core address: whether the cache answered it, and
 * how many whole reads and writes it took */
static void expect_run(int cached, int full_reads, int written, const char *what)
{
	struct ltap_ksyms *k = open_syms(1);
	struct ltap_ksyms_stats st;
	int ok = is(k, 0xffffffff81000000ull + 0x10 + 0x40 * 7 + 3, "f7", 3, "[kernel.kallsyms]");

	st = ltap_ksyms_stats(k);
	if (!ok || st.cached != cached || st.full_reads != full_reads || st.written != written)
		printf("%s: found %d, cached %d, whole reads %d, written %d\n", what, ok, st.cached, st.full_reads,
		       st.written);
	CHECK(ok && st.cached == cached && st.full_reads == full_reads && st.written == written);
	ltap_ksyms_free(k);
}

/* expect_run, and the warnings it made */
static void expect_warned(int n, int cached, int full_reads, int written, const char *what)
{
	int before = warnings;

	expect_run(cached, full_reads, written, what);
	if (warnings - before != n)
		printf("%s: %d warnings, not %d\n", what, warnings - before, n);
	CHECK(warnings - before == n);
}

static void test_round_trip(void)
{
	const unsigned long long base = 0xffffffff81000000ull;
	struct ltap_ksyms *a, *b;
	struct ltap_ksyms_stats st;
	struct stat s;

	make_kallsyms(base);
	put(boot, "2f1d2c5e-0000-4000-8000-000000000001\n");
	expect_run(0, 1, 1, "first run");
	CHECK(stat(cfile, &s) == 0 && (s.st_mode & 0777) == 0600 && stat(cache, &s) == 0 && (s.st_mode & 0777) == 0700);
	expect_run(1, 0, 0, "second run");

	/* the cache answers as the whole file for every core address */
	a = open_syms(1);
	b = open_syms(0);
	CHECK(differ(a, b, base, INIT(base) + 0x100) == 0);
	st = ltap_ksyms_stats(a);
	CHECK(st.cached == 1 && st.full_reads == 0);
	/* the init code's symbols are the cache's too (idle stacks start there) */
	CHECK(is(a, INIT(base) + 0x14, "init_fn", 4, "[kernel.kallsyms]"));
	/* between the text and the init code: after _etext, as the whole table says */
	CHECK(is(a, base + 0x40ull * NCORE + 0x10 + 0x8f0, "_etext", 0x8f0, "[kernel.kallsyms]"));
	st = ltap_ksyms_stats(a);
	CHECK(st.full_reads == 0);
	/* past _einittext, a module's, a BPF program's: the whole file read, then used */
	CHECK(is(a, INIT(base) + 0x208, "past_fn", 8, "[kernel.kallsyms]"));
	st = ltap_ksyms_stats(a);
	CHECK(st.full_reads == 1 && st.written == 0);
	CHECK(is(a, 0xffffffffc0010008ull, "ext4_fn", 8, "[ext4]"));
	CHECK(is(a, 0xffffffffc0020001ull, "bpf_prog_1", 1, "[bpf]"));
	CHECK(differ(a, b, base - 8, INIT(base) + 0x300) == 0);
	st = ltap_ksyms_stats(a);
	CHECK(st.full_reads == 1);
	ltap_ksyms_free(a);
	ltap_ksyms_free(b);
}

static void test_stale(void)
{
	const unsigned long long moved = 0xffffffff9a000000ull;
	struct ltap_ksyms *a, *b;

	/* another boot: not used, made anew */
	put(boot, "2f1d2c5e-0000-4000-8000-000000000002\n");
	expect_warned(0, 0, 1, 1, "another boot");
	expect_warned(0, 1, 0, 0, "after another boot");
	/* the same boot id, the kernel elsewhere (its first lines differ) */
	make_kallsyms(moved);
	a = open_syms(1);
	b = open_syms(0);
	CHECK(differ(a, b, moved - 8, INIT(moved) + 0x300) == 0 && ltap_ksyms_stats(a).cached == 0 && ltap_ksyms_stats(a).written == 1);
	ltap_ksyms_free(a);
	ltap_ksyms_free(b);
	make_kallsyms(0xffffffff81000000ull);
	expect_run(0, 1, 1, "the kernel back");
}

/* copies the cache file with one change: size bytes at off overwritten by
 * with (or, with NULL, the file cut to off bytes) */
static void tamper(off_t off, const void *with, size_t size)
{
	int fd = open(cfile, O_WRONLY);

	CHECK(fd >= 0);
	if (with)
		CHECK(pwrite(fd, with, size, off) == (ssize_t)size);
	else
		CHECK(ftruncate(fd, off) == 0);
	close(fd);
}

static void test_untrusted(void)
{
	char link[160];
	struct stat s;
	uint32_t huge = 0x7fffffff;

	/* another user may write it: not used, replaced by one only root may */
	CHECK(chmod(cfile, 0644) == 0);
	expect_warned(1, 0, 1, 1, "file mode 0644");
	CHECK(stat(cfile, &s) == 0 && (s.st_mode & 0777) == 0600);
	/* a link in its place, even to a good cache */
	snprintf(link, sizeof link, "%s/good", dir);
	CHECK(rename(cfile, link) == 0 && symlink(link, cfile) == 0);
	expect_warned(1, 0, 1, 1, "a link");
	CHECK(lstat(cfile, &s) == 0 && S_ISREG(s.st_mode));
	/* cut short, then a name out of bounds (the first record's name offset
	 * is just past the header) */
	CHECK(stat(cfile, &s) == 0);
	tamper(s.st_size - 1, NULL, 0);
	expect_warned(1, 0, 1, 1, "cut short");
	CHECK(stat(cfile, &s) == 0);
	tamper(RECORD(0) + 8, &huge, sizeof huge);
	expect_warned(1, 0, 1, 1, "a name out of bounds");
	expect_warned(0, 1, 0, 0, "made good again");
	/* a directory others may write: neither read nor written */
	CHECK(chmod(cache, 0755) == 0);
	expect_warned(1, 0, 1, 0, "directory mode 0755");
	CHECK(chmod(cache, 0700) == 0);
	expect_warned(0, 1, 0, 0, "directory mode 0700 again");
	unlink(link);
}

/* The body changed with the header and sizes intact: a name's bytes, a
 * record's name offset (in bounds), an address (in order): the checksum
 * catches each, one warning, the names come from the whole file and equal
 * it, and the cache made anew answers again. */
static void test_body(void)
{
	const unsigned long long base = 0xffffffff81000000ull;
	struct {
		const char *what;
		off_t off;
		const void *bytes;
		size_t len;
	} hits[] = {
		{"a name's bytes", RECORD(NCORE + 40), "zz", 2},
		{"a name offset", RECORD(7) + 8, "\x05\0\0\0", 4},
		{"an address, still in order", RECORD(7), "\xd8", 1},
		{"the last byte", -1, "\x01", 1},
	};

	for (size_t i = 0; i < sizeof hits / sizeof *hits; i++) {
		struct ltap_ksyms *a, *b;
		struct stat s;
		int before = warnings;

		expect_warned(0, 1, 0, 0, hits[i].what);
		CHECK(stat(cfile, &s) == 0);
		tamper(hits[i].off < 0 ? s.st_size - 1 : hits[i].off, hits[i].bytes, hits[i].len);
		a = open_syms(1);
		b = open_syms(0);
		CHECK(differ(a, b, base, INIT(base) + 0x100) == 0);
		CHECK(ltap_ksyms_stats(a).cached == 0 && ltap_ksyms_stats(a).written == 1);
		if (warnings - before != 1)
			printf("%s: %d warnings\n", hits[i].what, warnings - before);
		CHECK(warnings - before == 1);
		ltap_ksyms_free(a);
		ltap_ksyms_free(b);
	}
	expect_warned(0, 1, 0, 0, "after the body was changed");
}

static void test_restricted(void)
{
	struct ltap_ksyms *k;
	const char *n, *m;
	uint64_t o;

	/* kptr_restrict: addresses all zero; nothing to find, nothing cached */
	put(kallsyms, "0000000000000000 T _text\n0000000000000000 t f0\n0000000000000000 T _etext\n");
	unlink(cfile);
	k = open_syms(1);
	CHECK(ltap_ksyms_find(k, 0xffffffff81000010ull, &n, &o, &m) == -ENOENT);
	CHECK(ltap_ksyms_stats(k).written == 0 && access(cfile, F_OK) != 0);
	ltap_ksyms_free(k);
	/* the machine's default: the cache unless LTAP_KSYM_CACHE=off */
	unsetenv("LTAP_KSYM_CACHE");
	CHECK(ltap_ksyms_src_default().cache_dir && strcmp(ltap_ksyms_src_default().cache_dir, "/run/ltap") == 0);
	setenv("LTAP_KSYM_CACHE", "off", 1);
	CHECK(ltap_ksyms_src_default().cache_dir == NULL);
	unsetenv("LTAP_KSYM_CACHE");
}

int main(void)
{
	char cmd[128];

	snprintf(dir, sizeof dir, "/tmp/ltap-ksymcache.XXXXXX");
	CHECK(mkdtemp(dir) != NULL);
	snprintf(kallsyms, sizeof kallsyms, "%s/kallsyms", dir);
	snprintf(boot, sizeof boot, "%s/boot_id", dir);
	snprintf(cache, sizeof cache, "%s/cache", dir);
	snprintf(cfile, sizeof cfile, "%s/kallsyms", cache);
	test_round_trip();
	test_stale();
	ltap_log_set_sink(count_warnings, NULL);
	test_untrusted();
	test_body();
	test_restricted();
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	CHECK(system(cmd) == 0);
	printf("%d checks, %d failed\n", checks, failures);
	return failures != 0;
}
