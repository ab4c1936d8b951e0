/* test_unit.c: runtime pieces that need no kernel: parsers, edit distance,
 * the task cache, the ring-buffer page walker. */
#include "parse.h"
#include "proc.h"
#include "elfsym.h"
#include "ringpage.h"
#include "expo.h"
#include "serve.h"
#include "symbols.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int failures, checks;

#define CHECK(cond)                                                                  \
	do {                                                                         \
		checks++;                                                            \
		if (!(cond)) {                                                       \
			failures++;                                                  \
			fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
		}                                                                    \
	} while (0)

static void test_duration(void)
{
	uint64_t ns;
	CHECK(ltap_parse_duration("5s", &ns) == 0 && ns == 5000000000ull);
	CHECK(ltap_parse_duration("250ms", &ns) == 0 && ns == 250000000ull);
	CHECK(ltap_parse_duration("1.5", &ns) == 0 && ns == 1500000000ull);
	CHECK(ltap_parse_duration("100us", &ns) == 0 && ns == 100000ull);
	CHECK(ltap_parse_duration("7ns", &ns) == 0 && ns == 7);
	CHECK(ltap_parse_duration("2m", &ns) == 0 && ns == 120000000000ull);
	CHECK(ltap_parse_duration("1h", &ns) == 0 && ns == 3600000000000ull);
	CHECK(ltap_parse_duration("", &ns) == -EINVAL);
	CHECK(ltap_parse_duration("5 s", &ns) == -EINVAL);
	CHECK(ltap_parse_duration("-1s", &ns) == -EINVAL);
	CHECK(ltap_parse_duration("5parsecs", &ns) == -EINVAL);
	CHECK(ltap_parse_duration("1e30h", &ns) == -EINVAL);
}

static void test_size(void)
{
	uint64_t b;
	CHECK(ltap_parse_size("4096", &b) == 0 && b == 4096);
	CHECK(ltap_parse_size("4K", &b) == 0 && b == 4096);
	CHECK(ltap_parse_size("8M", &b) == 0 && b == 8u << 20);
	CHECK(ltap_parse_size("1GB", &b) == 0 && b == 1u << 30);
	CHECK(ltap_parse_size("2m", &b) == 0 && b == 2u << 20);
	CHECK(ltap_parse_size("M", &b) == -EINVAL);
	CHECK(ltap_parse_size("3X", &b) == -EINVAL);
}

/* numbers as OpenMetrics' canonical form (Python's repr), Accept headers */
static void test_expo(void)
{
	static const struct {
		double v;
		const char *s;
	} nums[] = {{0, "0.0"}, {1, "1.0"}, {-1, "-1.0"}, {0.5, "0.5"}, {1023, "1023.0"}, {0.1, "0.1"},
		    {1e-4, "0.0001"}, {1e-5, "1e-05"}, {1.27e-07, "1.27e-07"}, {1e16, "1e+16"},
		    {1234567890123456.0, "1234567890123456.0"}, {4611686018427387904.0, "4.611686018427388e+18"},
		    {0.30000000000000004, "0.30000000000000004"}, {1.0 / 0.0, "+Inf"}, {-1.0 / 0.0, "-Inf"}};
	struct ltap_expo x;
	char buf[32], *body;
	size_t len;

	for (size_t i = 0; i < sizeof nums / sizeof nums[0]; i++) {
		ltap_expo_double(buf, nums[i].v);
		if (strcmp(buf, nums[i].s))
			fprintf(stderr, "expo: %.17g gave %s, want %s\n", nums[i].v, buf, nums[i].s);
		CHECK(strcmp(buf, nums[i].s) == 0);
	}
	ltap_expo_double(buf, 0.0 / 0.0);
	CHECK(strcmp(buf, "NaN") == 0);
	CHECK(ltap_expo_metric_name("node:cpu_seconds_total") && !ltap_expo_metric_name("1x") && !ltap_expo_metric_name("a-b"));
	CHECK(ltap_expo_label_name("comm") && !ltap_expo_label_name("__name") && !ltap_expo_label_name("a:b"));
	/* what Prometheus 2.42 sends, and others */
	CHECK(ltap_serve_wants_openmetrics("application/openmetrics-text;version=1.0.0,application/openmetrics-text;"
					   "version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1"));
	CHECK(!ltap_serve_wants_openmetrics("text/plain;version=0.0.4;q=1,*/*;q=0.1"));
	CHECK(!ltap_serve_wants_openmetrics("*/*"));
	CHECK(!ltap_serve_wants_openmetrics("application/openmetrics-text;q=0, text/plain"));
	CHECK(!ltap_serve_wants_openmetrics("text/plain, application/openmetrics-text;q=0.5"));
	CHECK(ltap_serve_wants_openmetrics("Application/OpenMetrics-Text ; q=0.9 , text/plain;q=0.2"));
	/* a body over its limit is dropped whole, never cut */
	ltap_expo_init(&x, 1, 64);
	ltap_expo_family(&x, "a", LTAP_EXPO_COUNTER, "help");
	ltap_expo_labels_reset(&x);
	ltap_expo_labels_add(&x, "k", "v", 1);
	for (int i = 0; i < 10; i++)
		ltap_expo_sample(&x, "a", "_total", NULL, "1");
	CHECK(ltap_expo_finish(&x, &len) == NULL);
	ltap_expo_init(&x, 1, 1024);
	ltap_expo_family(&x, "a", LTAP_EXPO_COUNTER, "x\\y");
	ltap_expo_labels_reset(&x);
	ltap_expo_labels_add(&x, "k", "\"\n\xc3\xa9\xc3", 6); /* with the NUL */
	ltap_expo_sample(&x, "a", "_total", NULL, "1");
	body = ltap_expo_finish(&x, &len);
	CHECK(body && strcmp(body, "# HELP a x\\\\y\n# TYPE a counter\na_total{k=\"\\\"\\n\xc3\xa9\\\\xc3\\\\x00\"} 1\n# EOF\n") == 0);
	free(body);
}

static void test_edit_distance(void)
{
	CHECK(ltap_edit_distance("kmem:mm_page_aloc", "kmem:mm_page_alloc") == 1);
	CHECK(ltap_edit_distance("", "abc") == 3);
	CHECK(ltap_edit_distance("same", "same") == 0);
	CHECK(ltap_edit_distance("kitten", "sitting") == 3);
}

static void test_proc(void)
{
	struct ltap_proc *p = ltap_proc_new();
	char self[32];
	FILE *f = fopen("/proc/self/comm", "r");

	CHECK(p != NULL);
	CHECK(f && fgets(self, sizeof self, f));
	if (f)
		fclose(f);
	self[strcspn(self, "\n")] = 0;
	CHECK(strcmp(ltap_proc_comm(p, getpid()), self) == 0);
	CHECK(ltap_proc_tgid(p, getpid()) == getpid());
	CHECK(strcmp(ltap_proc_comm(p, 0), "swapper") == 0);
	/* a task ltap never saw and /proc does not know */
	CHECK(strcmp(ltap_proc_comm(p, 999999999), "<...>") == 0);
	ltap_proc_update(p, 4242, 4240, "worker");
	CHECK(strcmp(ltap_proc_comm(p, 4242), "worker") == 0);
	CHECK(ltap_proc_tgid(p, 4242) == 4240);
	ltap_proc_update(p, 4242, -1, "renamed-to-a-long-name");
	CHECK(strcmp(ltap_proc_comm(p, 4242), "renamed-to-a-lo") == 0);
	CHECK(ltap_proc_tgid(p, 4242) == 4240);
	/* growth keeps every entry */
	for (int i = 1; i <= 20000; i++)
		ltap_proc_update(p, 1000000 + i, 1000000 + i, "t");
	CHECK(ltap_proc_tgid(p, 4242) == 4240);
	CHECK(ltap_proc_tgid(p, 1000000 + 12345) == 1000000 + 12345);
	ltap_proc_free(p);
}

static unsigned put4(char *page, unsigned off, uint32_t v)
{
	memcpy(page + 16 + off, &v, 4);
	return off + 4;
}

/* A page laid out as the kernel writes it: small and large events, a time
 * extend, a discarded event (padding with a delta), an absolute time stamp,
 * and a lost-events count stored after the data. */
static void test_ringpage(void)
{
	char page[4096];
	struct ringpage rp;
	const char *d;
	uint64_t base = 1000, commit;
	unsigned off = 0;
	int size;

	memset(page, 0, sizeof page);
	memcpy(page, &base, 8);
	off = put4(page, off, (5u << 5) | 2);           /* 8 data bytes, +5 ns */
	off = put4(page, off, 0xaaaa);
	off = put4(page, off, 0xbbbb);
	off = put4(page, off, (7u << 5) | 30);          /* time extend: 7 + (1 << 27) */
	off = put4(page, off, 1);
	off = put4(page, off, (3u << 5) | 0);           /* large: length in array[0] */
	off = put4(page, off, 12 + 4);
	off = put4(page, off, 1);
	off = put4(page, off, 2);
	off = put4(page, off, 3);
	off = put4(page, off, (9u << 5) | 29);          /* discarded event, 16 bytes in all */
	off = put4(page, off, 12);                      /* the kernel: total - header */
	off += 8;
	off = put4(page, off, (4u << 5) | 31);          /* absolute time 4 + (2 << 27) */
	off = put4(page, off, 2);
	off = put4(page, off, (1u << 5) | 1);           /* 4 data bytes, +1 */
	off = put4(page, off, 0xcccc);
	commit = off | RP_MISSED_EVENTS | RP_MISSED_STORED;
	memcpy(page + 8, &commit, 8);
	{
		uint64_t lost = 77;
		memcpy(page + 16 + off, &lost, 8);
	}

	ringpage_load(&rp, page, 8, sizeof page);
	CHECK(rp.missed == 77);
	d = ringpage_next(&rp, &size);
	CHECK(d && size == 8 && rp.ts == 1005 && rp_read4(d) == 0xaaaa);
	d = ringpage_next(&rp, &size);
	CHECK(d && size == 12 && rp.ts == 1005 + 7 + (1ull << 27) + 3 && rp_read4(d + 8) == 3);
	d = ringpage_next(&rp, &size);
	CHECK(d && size == 4 && rp.ts == 4 + (2ull << 27) + 1 && rp_read4(d) == 0xcccc);
	CHECK(ringpage_next(&rp, &size) == NULL);
	CHECK(ringpage_next(&rp, &size) == NULL);

	/* a commit beyond the page is cut to the page, never read past it */
	commit = 100000;
	memcpy(page + 8, &commit, 8);
	ringpage_load(&rp, page, 8, sizeof page);
	CHECK(rp.size == sizeof page - 16 && rp.missed == 0);
}

/* The symbols and SDT notes of tests/progs/uprobe_target.c. */
static void test_elf(const char *path)
{
	struct ltap_elf *e = ltap_elf_open(path);
	const struct ltap_elf_func *f, *all;
	const struct ltap_sdt *s;
	unsigned char byte = 0;
	uint64_t off;
	int n, fd;

	CHECK(e != NULL);
	if (!e)
		return;
	f = ltap_elf_func_find(e, "f");
	CHECK(f && f->size > 0 && f->offset > 0);
	CHECK(ltap_elf_func_find(e, "phase_c") != NULL);
	CHECK(ltap_elf_func_find(e, "no_such_function") == NULL);
	n = ltap_elf_funcs(e, &all);
	CHECK(n > 5);
	for (int i = 1; i < n; i++)
		CHECK(strcmp(all[i - 1].name, all[i].name) < 0); /* sorted, each once */
	CHECK(ltap_elf_addr_offset(e, f->addr, &off) == 0 && off == f->offset);
	CHECK(ltap_elf_addr_offset(e, 1ull << 60, &off) == -1);

	n = ltap_elf_sdts(e, &s);
	CHECK(n == 2);
	if (n == 2) {
		CHECK(strcmp(s[0].provider, "ltap_test") == 0 && strcmp(s[0].name, "m") == 0);
		CHECK(strcmp(s[0].args, "-8@%rax -4@$42 -4@$-7") == 0);
		CHECK(strcmp(s[1].name, "guarded") == 0 && s[1].sem_offset && s[0].sem_offset != s[1].sem_offset);
		/* an SDT probe point is a nop in the file, where the uprobe goes */
		fd = open(path, O_RDONLY);
		CHECK(fd >= 0 && pread(fd, &byte, 1, (off_t)s[0].pc_offset) == 1 && byte == 0x90);
		if (fd >= 0)
			close(fd);
	}
	ltap_elf_close(e);
	CHECK(ltap_elf_open("/nonexistent") == NULL && errno == ENOENT);
	CHECK(ltap_elf_open("/etc/passwd") == NULL && errno == ENOEXEC);
}

/* The value of symbol name in the ELF's symtab, read with libelf: an answer
 * found apart from the code under test. */
static uint64_t elf_symbol(const char *path, const char *name)
{
	int fd = open(path, O_RDONLY);
	Elf *elf;
	Elf_Scn *scn = NULL;
	uint64_t v = 0;

	elf_version(EV_CURRENT);
	if (fd < 0 || !(elf = elf_begin(fd, ELF_C_READ, NULL)))
		return 0;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		Elf_Data *d;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || !(d = elf_getdata(scn, NULL)))
			continue;
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			if (gelf_getsym(d, (int)i, &sym) && strcmp(elf_strptr(elf, sh.sh_link, sym.st_name), name) == 0)
				v = sym.st_value;
		}
	}
	elf_end(elf);
	close(fd);
	return v;
}

/* The line of the first line of src holding text. */
static int source_line(const char *src, const char *text)
{
	char line[512];
	int n = 0;
	FILE *f = fopen(src, "r");

	while (f && fgets(line, sizeof line, f)) {
		n++;
		if (strstr(line, text)) {
			fclose(f);
			return n;
		}
	}
	if (f)
		fclose(f);
	return -1;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Symbols of the test program hot (a PIE) mapped at a made-up base in a
 * made-up process, as MMAP2 records would map it; kallsyms; JIT maps. */
static void test_symbols(const char *hot, const char *hot_src)
{
	struct ltap_symbols *s = ltap_symbols_new();
	const uint64_t base = 0x555555554000ull;
	const int pid = 999999901, child = 999999902, jitpid = 999999903;
	uint64_t spin = elf_symbol(hot, "hot_spin"), cold = elf_symbol(hot, "cold_helper");
	int first = source_line(hot_src, "void hot_spin("), last = source_line(hot_src, "HOT_END");
	struct ltap_sym r;
	char path[64];
	FILE *f;
	double t0;
	int ok = 1;

	CHECK(s && spin && cold && first > 0 && last > first);
	ltap_symbols_mmap(s, pid, base, 0x5000, 0, hot);
	CHECK(ltap_symbols_lookup(s, pid, base + spin + 5, 0, &r) == 0);
	CHECK(r.name && strcmp(r.name, "hot_spin") == 0 && r.off == 5 && strcmp(r.module, hot) == 0);
	CHECK(!r.kernel && !r.file);
	CHECK(ltap_symbols_lookup(s, pid, base + cold, 1, &r) == 0);
	CHECK(r.name && strcmp(r.name, "cold_helper") == 0 && r.off == 0);
	/* file:line of an address inside the loop */
	CHECK(ltap_symbols_lookup(s, pid, base + spin + 20, 1, &r) == 0);
	CHECK(r.file && strstr(r.file, "tests/progs/hot.c") && r.line >= first && r.line <= last);
	/* outside every mapping; a process that does not exist */
	CHECK(ltap_symbols_lookup(s, pid, base + 0x100000, 0, &r) == -ENOENT);
	CHECK(ltap_symbols_lookup(s, 999999999, base + spin, 0, &r) == -ENOENT);
	/* a later anonymous mapping over part of it, then fork and exec */
	ltap_symbols_mmap(s, pid, base + 0x4000, 0x1000, 0, "//anon");
	CHECK(ltap_symbols_lookup(s, pid, base + 0x4010, 0, &r) == 0 && !r.name && strcmp(r.module, "//anon") == 0);
	CHECK(ltap_symbols_lookup(s, pid, base + spin, 0, &r) == 0 && r.name && strcmp(r.name, "hot_spin") == 0);
	ltap_symbols_fork(s, pid, child);
	CHECK(ltap_symbols_lookup(s, child, base + cold + 2, 0, &r) == 0 && r.name &&
	      strcmp(r.name, "cold_helper") == 0 && r.off == 2);
	ltap_symbols_exec(s, child);
	CHECK(ltap_symbols_lookup(s, child, base + cold, 0, &r) == -ENOENT);

	/* a million cached frames */
	t0 = now_s();
	for (int i = 0; i < 1000000; i++)
		ok &= ltap_symbols_lookup(s, pid, base + spin + (uint64_t)(i % 40), 0, &r) == 0 && r.name;
	CHECK(ok);
	t0 = now_s() - t0;
	printf("symbols: 1M user frames in %.3f s\n", t0);
	CHECK(t0 < 0.5);

	/* JIT code from /tmp/perf-PID.map */
	snprintf(path, sizeof path, "/tmp/perf-%d.map", jitpid);
	if ((f = fopen(path, "w")) != NULL) {
		fprintf(f, "7f0000001000 100 jitted_fn\n7f0000002000 40 LazyCompile:*run app.js:3\n");
		fclose(f);
	}
	CHECK(ltap_symbols_lookup(s, jitpid, 0x7f0000001010ull, 0, &r) == 0 && strcmp(r.name, "jitted_fn") == 0 &&
	      r.off == 0x10 && strcmp(r.module, path) == 0);
	CHECK(ltap_symbols_lookup(s, jitpid, 0x7f0000002000ull, 0, &r) == 0 &&
	      strcmp(r.name, "LazyCompile:*run app.js:3") == 0);
	CHECK(ltap_symbols_lookup(s, jitpid, 0x7f0000003000ull, 0, &r) == -ENOENT);
	unlink(path);

	/* kallsyms: a function's address, plus one */
	{
		char line[512], name[256], type;
		unsigned long long a = 0, v;
		f = fopen("/proc/kallsyms", "r");
		while (f && fgets(line, sizeof line, f))
			if (sscanf(line, "%llx %c %255s", &v, &type, name) == 3 && strcmp(name, "schedule") == 0) {
				a = v;
				break;
			}
		if (f)
			fclose(f);
		if (a) { /* zero when kptr_restrict hides addresses from this user */
			CHECK(ltap_symbols_lookup(s, 0, a + 1, 0, &r) == 0 && r.kernel);
			CHECK(r.name && strcmp(r.name, "schedule") == 0 && r.off == 1 &&
			      strcmp(r.module, "[kernel.kallsyms]") == 0);
		}
	}
	ltap_symbols_free(s);
}

int main(int argc, char **argv)
{
	test_duration();
	test_size();
	test_edit_distance();
	test_expo();
	test_proc();
	test_ringpage();
	if (argc > 3) {
		test_symbols(argv[1], argv[2]);
		test_elf(argv[3]);
	} else {
		CHECK(!"usage: test_unit HOT_BINARY HOT_SOURCE UPROBE_TARGET");
	}
	printf("%d checks, %d failed\n", checks, failures);
	return failures != 0;
}
