/* test_unit.c: runtime pieces that need no kernel: parsers, edit distance,
 * the task cache, the ring-buffer page walker, ELF and JIT symbols, command
 * words, the exec gate. */
#include "catalog.h"
#include "check.h"
#include "command.h"
#include "gate.h"
#include "lazylib.h"
#include "log.h"
#include "parse.h"
#include "perfmap.h"
#include "proc.h"
#include "readfile.h"
#include "dwfile.h"
#include "elffile.h"
#include "symtab.h"
#include "ringpage.h"
#include "expo.h"
#include "serve.h"
#include "symbols.h"

#include "check.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <gelf.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>
#include <elfutils/libdwelf.h>

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
	/* past INT64_MAX ns, still in a uint64_t (llround overflowed here) */
	CHECK(ltap_parse_duration("1.7e10", &ns) == 0 && ns == 17000000000000000000ull);
	CHECK(ltap_parse_seconds(0.3, &ns) == 0 && ns == 300000000ull);
	CHECK(ltap_parse_seconds(1.5, &ns) == 0 && ns == 1500000000ull);
	CHECK(ltap_parse_seconds(0, &ns) == 0 && ns == 0);
	CHECK(ltap_parse_seconds(-1, &ns) == -EINVAL);
	CHECK(ltap_parse_seconds(INFINITY, &ns) == -EINVAL);
	CHECK(ltap_parse_seconds(NAN, &ns) == -EINVAL);
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
	CHECK(ltap_parse_size("15E", &b) == -EINVAL);
	CHECK(ltap_parse_size("16000000T", &b) == 0 && b == 16000000ull << 40);
}

/* A script read whole: from a file, from a pipe (ltap <(...): no size to
 * ask for; this read past a 1-byte buffer before), never past the limit. */
static void test_file_read(void)
{
	char path[64], *s;
	size_t len = 0;
	int fds[2];

	s = ltap_file_read("/proc/self/comm", 4096, &len);
	CHECK(s && len > 1 && s[len - 1] == '\n' && s[len] == 0);
	free(s);
	CHECK(pipe(fds) == 0);
	CHECK(write(fds[1], "print(1)\n", 9) == 9);
	close(fds[1]);
	snprintf(path, sizeof path, "/proc/self/fd/%d", fds[0]);
	s = ltap_file_read(path, 4096, &len);
	CHECK(s && len == 9 && strcmp(s, "print(1)\n") == 0);
	free(s);
	close(fds[0]);
	CHECK(ltap_file_read("/proc/self/maps", 8, &len) == NULL && errno == EFBIG);
	CHECK(ltap_file_read("/nonexistent", 8, &len) == NULL && errno == ENOENT);
	CHECK(ltap_file_read("/", 8, &len) == NULL && errno == EISDIR);
}

static void test_strip_prefix(void)
{
	CHECK(strcmp(ltap_catalog_strip_prefix("tracepoint:sched:sched_switch"), "sched:sched_switch") == 0);
	CHECK(strcmp(ltap_catalog_strip_prefix("t:kmem:*"), "kmem:*") == 0);
	CHECK(strcmp(ltap_catalog_strip_prefix("sched:sched_switch"), "sched:sched_switch") == 0);
	CHECK(strcmp(ltap_catalog_strip_prefix("tracepoint"), "tracepoint") == 0);
	CHECK(strcmp(ltap_catalog_strip_prefix("t"), "t") == 0);
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
	/* a replayed trace can name any tid: the ends of int are tasks too */
	ltap_proc_update(p, INT_MAX, INT_MAX, "max");
	ltap_proc_update(p, -1, -1, "minus-one");
	ltap_proc_update(p, INT_MIN, 7, "min");
	CHECK(strcmp(ltap_proc_comm(p, INT_MAX), "max") == 0 && ltap_proc_tgid(p, INT_MAX) == INT_MAX);
	CHECK(strcmp(ltap_proc_comm(p, -1), "minus-one") == 0);
	CHECK(strcmp(ltap_proc_comm(p, INT_MIN), "min") == 0 && ltap_proc_tgid(p, INT_MIN) == 7);
	CHECK(ltap_proc_tgid(p, 4242) == 4240);
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

/* Loads a page of `len` bytes of events after a zeroed header and returns
 * how many events the walk yields, -1 if one has a negative size. */
static int ringpage_count(char *page, unsigned len, unsigned page_size)
{
	struct ringpage rp;
	uint64_t commit = len;
	int size, n = 0;

	memset(page, 0, 16);
	memcpy(page + 8, &commit, 8);
	ringpage_load(&rp, page, 8, page_size);
	while (ringpage_next(&rp, &size)) {
		if (size < 0)
			return -1;
		n++;
	}
	return n;
}

/* Damaged pages: a length that does not fit ends the walk of the page; none
 * wraps the offset (a large event's length under 4 used to: a negative size,
 * and the walk went on from the wrapped offset). */
static void test_ringpage_damaged(void)
{
	static const uint32_t small_lens[] = {0, 1, 3, 4, 0xffffffff, 0xfffffffc};
	char page[4096];
	unsigned off;

	for (size_t i = 0; i < sizeof small_lens / sizeof small_lens[0]; i++) {
		off = put4(page, 0, 0);                 /* large event */
		off = put4(page, off, small_lens[i]);   /* its length, counting itself */
		off = put4(page, off, (1u << 5) | 1);   /* a 4-byte event after it */
		off = put4(page, off, 0xcccc);
		CHECK(ringpage_count(page, off, sizeof page) == 0);
	}
	off = put4(page, 0, 0);                         /* 5 bytes of data: 8 with padding */
	off = put4(page, off, 4 + 5);
	off = put4(page, off, 1);
	off = put4(page, off, 2);
	CHECK(ringpage_count(page, off, sizeof page) == 1);
	CHECK(ringpage_count(page, off - 4, sizeof page) == 0); /* its data past the commit */

	/* padding whose length wraps the offset back into the event before */
	off = put4(page, 0, (1u << 5) | 1);             /* 4 bytes of data ... */
	off = put4(page, off, (1u << 5) | 1);           /* ... that read as a header */
	off = put4(page, off, (1u << 5) | RP_TYPE_PADDING);
	off = put4(page, off, 0xfffffff8);              /* 4 + this: back 4 bytes */
	CHECK(ringpage_count(page, off, sizeof page) == 1);

	off = put4(page, 0, (3u << 5) | 3);             /* 12 bytes, 8 left */
	off = put4(page, off, 1);
	off = put4(page, off, 2);
	CHECK(ringpage_count(page, off, sizeof page) == 0);
	off = put4(page, 0, (1u << 5) | RP_TYPE_TIME_EXTEND); /* no room for array[0] */
	CHECK(ringpage_count(page, off, sizeof page) == 0);
	CHECK(ringpage_count(page, 0, 10) == 0);         /* less than a page header */
}

/* What the one ELF reader tells of the file at path, against libelf,
 * libdw and zlib asked apart: offset <-> address through every loadable
 * segment, the build id, the CRC of a debug link; the descriptor handed
 * over (to libdwfl) while the file stays readable. */
static void test_elf_file(struct ltap_elf *e, const char *path)
{
	const struct ltap_sdt *sdts;
	int fd = open(path, O_RDONLY), loads = 0, given;
	Elf *elf = fd >= 0 ? elf_begin(fd, ELF_C_READ_MMAP, NULL) : NULL;
	size_t nph = 0, len, size;
	const unsigned char *id;
	const void *want;
	char *raw;
	uint64_t v;

	CHECK(elf && elf_getphdrnum(elf, &nph) == 0);
	for (size_t i = 0; elf && i < nph; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		loads++;
		CHECK(ltap_elf_offset_addr(e, ph.p_offset, &v) == 0 && v == ph.p_vaddr);
		CHECK(ltap_elf_offset_addr(e, ph.p_offset + ph.p_filesz - 1, &v) == 0 && v == ph.p_vaddr + ph.p_filesz - 1);
		CHECK(ltap_elf_addr_offset(e, ph.p_vaddr + ph.p_filesz - 1, &v) == 0 && v == ph.p_offset + ph.p_filesz - 1);
	}
	CHECK(loads >= 2);
	CHECK(ltap_elf_offset_addr(e, 1ull << 60, &v) == -1);
	len = ltap_elf_build_id(e, &id);
	CHECK(len == 20 && (size_t)dwelf_elf_gnu_build_id(elf, &want) == len && memcmp(id, want, len) == 0);
	raw = elf ? elf_rawfile(elf, &size) : NULL;
	CHECK(raw && ltap_elf_crc32(e) == (uint32_t)crc32(0, (const Bytef *)raw, (uInt)size));
	if (elf)
		elf_end(elf);
	if (fd >= 0)
		close(fd);
	/* the descriptor taken before anything else is read */
	e = ltap_elf_open(path);
	given = e ? ltap_elf_take_fd(e) : -1;
	CHECK(given >= 0 && ltap_elf_take_fd(e) == -1 && lseek(given, 0, SEEK_SET) == 0);
	if (given >= 0)
		close(given);
	CHECK(e && ltap_elf_sdts(e, &sdts) == 2);
	ltap_elf_close(e);
}

/* The symbols and SDT notes of tests/progs/uprobe_target.c: its functions
 * by name (symtab.h, through dwfile.h), at the file offsets uprobes want. */
static void test_elf(const char *path)
{
	struct ltap_elf *e = ltap_elf_open(path);
	const struct ltap_symtab_sym *f, *const *all;
	const struct ltap_sdt *s;
	struct ltap_dwfile file;
	struct ltap_symtab *t;
	unsigned char byte = 0;
	uint64_t off, size, off2;
	size_t nf;
	int n, fd;

	CHECK(e != NULL);
	if (!e)
		return;
	CHECK(ltap_dwfile_open(&file, path) == 0);
	t = ltap_dwfile_symtab(&file);
	CHECK(t != NULL);
	if (!t)
		return;
	f = ltap_symtab_func(t, "f", 0);
	CHECK(f && f->size > 0);
	CHECK(ltap_dwfile_func(&file, "f", &off, &size) == 0 && off > 0 && size == f->size);
	CHECK(ltap_elf_addr_offset(e, f->addr - file.bias, &off2) == 0 && off2 == off);
	CHECK(ltap_symtab_func(t, "phase_c", 0) != NULL);
	CHECK(ltap_symtab_func(t, "no_such_function", 0) == NULL);
	CHECK(ltap_dwfile_func(&file, "no_such_function", &off, &size) == -ENOENT);
	nf = ltap_symtab_funcs(t, &all);
	CHECK(nf > 5);
	for (size_t i = 1; i < nf; i++)
		CHECK(strcmp(all[i - 1]->name, all[i]->name) < 0); /* sorted, each once */
	for (size_t i = 0; i < nf; i++)
		CHECK(!strstr(all[i]->name, "@plt")); /* functions of the file, no PLT entries */
	/* by name and by address agree */
	CHECK(strcmp(ltap_symtab_find(t, f->addr + 1, &off2), "f") == 0 && off2 == 1);
	ltap_dwfile_close(&file);
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
	test_elf_file(e, path);
	ltap_elf_close(e);
	CHECK(ltap_elf_open("/nonexistent") == NULL && errno == ENOENT);
	CHECK(ltap_elf_open("/etc/passwd") == NULL && errno == ENOEXEC);
	/* a FIFO is no ELF file, and opening it must not wait for a writer */
	{
		char fifo[64];
		snprintf(fifo, sizeof fifo, "/tmp/ltap-unit-fifo-%d", (int)getpid());
		unlink(fifo);
		CHECK(mkfifo(fifo, 0600) == 0);
		CHECK(ltap_elf_open(fifo) == NULL && errno == ENOEXEC);
		unlink(fifo);
	}
	/* an ELF without defined functions (a stripped executable's .dynsym
	 * holds only imports) is a valid ELF with none */
	CHECK(ltap_dwfile_open(&file, "/usr/bin/true") == 0);
	t = ltap_dwfile_symtab(&file);
	CHECK(t && ltap_symtab_funcs(t, &all) == 0 && ltap_symtab_func(t, "main", 0) == NULL);
	ltap_dwfile_close(&file);
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

/* The address of section name in the ELF, read with libelf. */
static uint64_t elf_section(const char *path, const char *name)
{
	int fd = open(path, O_RDONLY);
	Elf *elf;
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	uint64_t v = 0;

	elf_version(EV_CURRENT);
	if (fd < 0 || !(elf = elf_begin(fd, ELF_C_READ, NULL)))
		return 0;
	while (elf_getshdrstrndx(elf, &shstrndx) == 0 && (scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		const char *n;
		if (gelf_getshdr(scn, &sh) && (n = elf_strptr(elf, shstrndx, sh.sh_name)) && strcmp(n, name) == 0)
			v = sh.sh_addr;
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
	CHECK(r.file && r.file[0] == '/' && strstr(r.file, "tests/progs/hot.c") && r.line >= first && r.line <= last);
	/* the PLT: its header and entries have names of their own, not _init's */
	{
		uint64_t plt = elf_section(hot, ".plt");
		CHECK(plt && ltap_symbols_lookup(s, pid, base + plt + 4, 0, &r) == 0 && r.name &&
		      strcmp(r.name, ".plt") == 0 && r.off == 4);
		CHECK(ltap_symbols_lookup(s, pid, base + plt + 0x16, 0, &r) == 0 && r.name && r.off == 6 &&
		      strlen(r.name) > 4 && strcmp(r.name + strlen(r.name) - 4, "@plt") == 0);
	}
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
	/* where a frame-pointer walk must end: outside every mapping */
	CHECK(ltap_symbols_mapped(s, pid, base + spin) && ltap_symbols_mapped(s, pid, base + 0x4010));
	CHECK(!ltap_symbols_mapped(s, pid, base + 0x100000) && !ltap_symbols_mapped(s, pid, 0x10));
	CHECK(ltap_symbols_mapped(s, 0, LTAP_KERNEL_ADDR + 1) && !ltap_symbols_mapped(s, 999999999, base));
	/* the fork of a process with no mapping known (memcpy from NULL before) */
	ltap_symbols_fork(s, 999999904, 999999905);
	CHECK(ltap_symbols_lookup(s, 999999905, base + spin, 0, &r) == -ENOENT);

	/* a million cached frames */
	t0 = now_s();
	for (int i = 0; i < 1000000; i++)
		ok &= ltap_symbols_lookup(s, pid, base + spin + (uint64_t)(i % 40), 0, &r) == 0 && r.name;
	CHECK(ok);
	t0 = now_s() - t0;
	printf("symbols: 1M user frames in %.3f s\n", t0);
	CHECK(t0 < 0.5);

	/* JIT code from /tmp/perf-PID.map, in anonymous executable memory
	 * (as perf reads it); an address in no mapping is no code, even where
	 * the map has a name for it */
	snprintf(path, sizeof path, "/tmp/perf-%d.map", jitpid);
	if ((f = fopen(path, "w")) != NULL) {
		fprintf(f, "7f0000001000 100 jitted_fn\n7f0000002000 40 LazyCompile:*run app.js:3\n"
			   "7f0000005000 40 unmapped_fn\n");
		fclose(f);
	}
	ltap_symbols_mmap(s, jitpid, 0x7f0000001000ull, 0x2000, 0, "//anon");
	CHECK(ltap_symbols_lookup(s, jitpid, 0x7f0000005010ull, 0, &r) == -ENOENT);
	CHECK(ltap_symbols_lookup(s, jitpid, 0x7f0000001010ull, 0, &r) == 0 && strcmp(r.name, "jitted_fn") == 0 &&
	      r.off == 0x10 && strcmp(r.module, path) == 0);
	CHECK(ltap_symbols_lookup(s, jitpid, 0x7f0000002000ull, 0, &r) == 0 &&
	      strcmp(r.name, "LazyCompile:*run app.js:3") == 0);
	CHECK(ltap_symbols_lookup(s, jitpid, 0x7f0000003000ull, 0, &r) == -ENOENT);
	CHECK(ltap_symbols_mapped(s, jitpid, 0x7f0000002010ull) && !ltap_symbols_mapped(s, jitpid, 0x7f0000003000ull));
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
		/* a chain: kernel frames, user frames; a kernel address among
		 * the user frames is stack garbage that ends the chain (the
		 * kernel's table is not searched for it) */
		if (a) {
			const uint64_t chain[] = {PERF_CONTEXT_KERNEL, a + 1,	  PERF_CONTEXT_USER,
						  base + spin + 5,     0xffffffff00000001ull, base + spin};
			struct ltap_frame fr[8];
			int n = ltap_symbols_chain(s, pid, chain, 6, fr, NULL, 8);

			CHECK(n == 3 && fr[0].kernel && !fr[1].kernel && !fr[2].kernel && fr[2].module == NULL &&
			      fr[2].addr == 0xffffffff00000001ull);
			CHECK(ltap_symbols_frame_sym(s, &fr[0], 0, &r) == 0 && r.kernel && strcmp(r.name, "schedule") == 0);
			CHECK(ltap_symbols_frame_sym(s, &fr[1], 0, &r) == 0 && strcmp(r.name, "hot_spin") == 0);
		}
	}
	ltap_symbols_free(s);
}

/* Warnings captured: the last one and how many. */
static char last_warning[1024];
static int warnings;

static void capture_log(void *ud, enum ltap_log_level level, const char *msg)
{
	(void)ud;
	if (level == LTAP_LOG_WARN) {
		warnings++;
		snprintf(last_warning, sizeof last_warning, "%s", msg);
	}
}

static int perfmap_name(struct ltap_perfmap *pm, uint64_t addr, const char *want, uint64_t want_off)
{
	const char *name;
	uint64_t off;
	int rc = ltap_perfmap_lookup(pm, addr, &name, &off);

	if (!want)
		return rc == -ENOENT;
	return rc == 0 && strcmp(name, want) == 0 && off == want_off;
}

/* /tmp/perf-PID.map of this process: lines good and bad, a line longer than
 * the reader's buffer, the size bound, a FIFO, a file that grows. */
static void test_perfmap(void)
{
	char path[64], expect[256];
	struct ltap_perfmap *pm;
	FILE *f;
	int fd;

	ltap_log_set_sink(capture_log, NULL);
	snprintf(path, sizeof path, "/tmp/perf-%d.map", (int)getpid());
	unlink(path);
	f = fopen(path, "w");
	CHECK(f != NULL);
	if (!f)
		return;
	fprintf(f, "0x1000 10 first\n2000 zz bad size\ngarbage\n3000 0 empty\n4000 100 old\n4000 80 new\n");
	fprintf(f, "5000 10 ");
	for (int i = 0; i < 70000; i++)
		fputc('x', f);
	fprintf(f, "\n6000 10 after long\n7000 10 last without newline");
	fclose(f);
	pm = ltap_perfmap_new(getpid());
	CHECK(strcmp(ltap_perfmap_path(pm), path) == 0);
	CHECK(perfmap_name(pm, 0x1005, "first", 5));
	CHECK(perfmap_name(pm, 0x1010, NULL, 0));
	CHECK(perfmap_name(pm, 0x2000, NULL, 0) && perfmap_name(pm, 0x3000, NULL, 0));
	CHECK(perfmap_name(pm, 0x4050, "new", 0x50)); /* the later entry at one start */
	CHECK(perfmap_name(pm, 0x40a0, NULL, 0));
	CHECK(perfmap_name(pm, 0x5005, NULL, 0));
	CHECK(perfmap_name(pm, 0x6001, "after long", 1));
	CHECK(perfmap_name(pm, 0x700f, "last without newline", 0xf));
	snprintf(expect, sizeof expect, "symbols: %s: 1 lines longer than 4096 bytes skipped", path);
	CHECK(warnings == 1 && strcmp(last_warning, expect) == 0);
	ltap_perfmap_free(pm);

	/* a JIT appends after the first read: a miss reads the file again, at
	 * most once a second */
	pm = ltap_perfmap_new(getpid());
	CHECK(perfmap_name(pm, 0x1000, "first", 0) && perfmap_name(pm, 0x8000, NULL, 0));
	f = fopen(path, "a");
	CHECK(f && fprintf(f, "\n8000 10 appended\n") > 0);
	if (f)
		fclose(f);
	CHECK(perfmap_name(pm, 0x8000, NULL, 0)); /* checked less than a second ago */
	usleep(1100000);
	CHECK(perfmap_name(pm, 0x8000, "appended", 0));
	ltap_perfmap_free(pm);

	/* at most LTAP_PERFMAP_MAX bytes: a sparse file past the bound */
	warnings = 0;
	fd = open(path, O_WRONLY | O_TRUNC);
	CHECK(fd >= 0 && write(fd, "1000 10 head\n", 13) == 13 && ftruncate(fd, LTAP_PERFMAP_MAX + 4096) == 0);
	if (fd >= 0)
		close(fd);
	pm = ltap_perfmap_new(getpid());
	CHECK(perfmap_name(pm, 0x1001, "head", 1));
	snprintf(expect, sizeof expect, "symbols: %s: read only its first %u MiB", path, LTAP_PERFMAP_MAX >> 20);
	CHECK(warnings == 2 && strcmp(last_warning, expect) == 0); /* and its zeros: one long line */
	ltap_perfmap_free(pm);

	/* a FIFO would block a reader for good */
	unlink(path);
	CHECK(mkfifo(path, 0600) == 0);
	pm = ltap_perfmap_new(getpid());
	CHECK(perfmap_name(pm, 0x1001, NULL, 0) && perfmap_name(pm, 0x1001, NULL, 0));
	snprintf(expect, sizeof expect, "symbols: ignoring %s: not a regular file", path);
	CHECK(warnings == 3 && strcmp(last_warning, expect) == 0); /* once, not per lookup */
	ltap_perfmap_free(pm);
	unlink(path);
	ltap_log_set_sink(NULL, NULL);
}

/* words of s joined by '|', or "sh:" + s when it needs the shell, or "error: why" */
static const char *cmd_words(const char *s)
{
	static char out[512];
	struct ltap_cmd c;
	const char *why;

	if (ltap_cmd_parse(s, &c, &why)) {
		snprintf(out, sizeof out, "error: %s", why);
		return out;
	}
	out[0] = 0;
	if (c.shell) {
		CHECK(c.argc == 3 && strcmp(c.argv[0], "/bin/sh") == 0 && strcmp(c.argv[1], "-c") == 0 && !c.argv[3]);
		snprintf(out, sizeof out, "sh:%s", c.argv[2]);
	} else {
		CHECK(c.argv[c.argc] == NULL);
		for (int i = 0; i < c.argc; i++)
			snprintf(out + strlen(out), sizeof out - strlen(out), "%s%s", i ? "|" : "", c.argv[i]);
	}
	CHECK(strcmp(c.text, s) == 0);
	ltap_cmd_free(&c);
	return out;
}

static void test_command(void)
{
	/* words as sh splits them: quotes and backslashes are not shell syntax */
	CHECK(strcmp(cmd_words("prog a  b\tc"), "prog|a|b|c") == 0);
	CHECK(strcmp(cmd_words("python3 -c x=1"), "python3|-c|x=1") == 0);
	CHECK(strcmp(cmd_words("dd if=/dev/zero of=/dev/null bs=1M count=10"), "dd|if=/dev/zero|of=/dev/null|bs=1M|count=10") == 0);
	CHECK(strcmp(cmd_words("python3 -c 'print(1); x = \"a b\"'"), "python3|-c|print(1); x = \"a b\"") == 0);
	CHECK(strcmp(cmd_words("echo \"it's\" 'say \"hi\"' a\\ b \\$HOME \"a\\\"b\\\\c\\d\""), "echo|it's|say \"hi\"|a b|$HOME|a\"b\\c\\d") == 0);
	CHECK(strcmp(cmd_words("echo '' \"\" x"), "echo|||x") == 0);
	CHECK(strcmp(cmd_words("prog a#b c~ d=e 100%"), "prog|a#b|c~|d=e|100%") == 0);
	CHECK(strcmp(cmd_words("'x=1' prog"), "x=1|prog") == 0);
	CHECK(strcmp(cmd_words("prog a\\\nb"), "prog|ab") == 0);
	/* real shell syntax: /bin/sh -c */
	CHECK(strcmp(cmd_words("prog; true"), "sh:prog; true") == 0);
	CHECK(strcmp(cmd_words("a | b"), "sh:a | b") == 0);
	CHECK(strcmp(cmd_words("a && b"), "sh:a && b") == 0);
	CHECK(strcmp(cmd_words("a > f"), "sh:a > f") == 0);
	CHECK(strcmp(cmd_words("a <f"), "sh:a <f") == 0);
	CHECK(strcmp(cmd_words("(a)"), "sh:(a)") == 0);
	CHECK(strcmp(cmd_words("echo $HOME"), "sh:echo $HOME") == 0);
	CHECK(strcmp(cmd_words("echo \"$HOME\""), "sh:echo \"$HOME\"") == 0);
	CHECK(strcmp(cmd_words("echo `id`"), "sh:echo `id`") == 0);
	CHECK(strcmp(cmd_words("ls *.c"), "sh:ls *.c") == 0);
	CHECK(strcmp(cmd_words("ls a?"), "sh:ls a?") == 0);
	CHECK(strcmp(cmd_words("ls [ab]"), "sh:ls [ab]") == 0);
	CHECK(strcmp(cmd_words("ls ~/x"), "sh:ls ~/x") == 0);
	CHECK(strcmp(cmd_words("prog # comment"), "sh:prog # comment") == 0);
	CHECK(strcmp(cmd_words("X=1 prog"), "sh:X=1 prog") == 0);
	CHECK(strcmp(cmd_words("exit 3"), "sh:exit 3") == 0);
	CHECK(strcmp(cmd_words("cd /tmp"), "sh:cd /tmp") == 0);
	CHECK(strcmp(cmd_words("while true"), "sh:while true") == 0);
	CHECK(strcmp(cmd_words("a\nb"), "sh:a\nb") == 0);
	/* quoted, the same characters are words */
	CHECK(strcmp(cmd_words("echo 'a|b;c' \"*\" '$x' \\*"), "echo|a|b;c|*|$x|*") == 0);
	CHECK(strcmp(cmd_words("'exit' 3"), "exit|3") == 0);
	/* mistakes */
	CHECK(strcmp(cmd_words("echo 'a"), "error: a ' is not closed") == 0);
	CHECK(strcmp(cmd_words("echo \"a"), "error: a \" is not closed") == 0);
	CHECK(strcmp(cmd_words("  "), "error: no command") == 0);
	CHECK(strcmp(cmd_words(""), "error: no command") == 0);
	{
		const char *argv[] = {"prog", "a b", "$x"};
		struct ltap_cmd c;
		CHECK(ltap_cmd_from_argv(3, argv, &c) == 0 && !c.shell && c.argc == 3 && strcmp(c.argv[1], "a b") == 0 &&
		      strcmp(c.argv[2], "$x") == 0 && !c.argv[3] && strcmp(c.text, "prog a b $x") == 0);
		ltap_cmd_free(&c);
		CHECK(ltap_cmd_from_argv(0, argv, &c) == -EINVAL);
	}
}

static void test_gate(void)
{
	struct ltap_gate g;

	ltap_gate_init(&g);
	CHECK(!g.active && !ltap_gate_drop(&g, 0, LTAP_GATE_EVENT));
	ltap_gate_hold(&g, 100);
	CHECK(g.active);
	/* before the exec: dropped; other tasks pass */
	CHECK(ltap_gate_drop(&g, 100, LTAP_GATE_EVENT) == 1);
	CHECK(ltap_gate_drop(&g, 101, LTAP_GATE_EVENT) == 0);
	/* the rename of the exec opens it, and counts */
	CHECK(ltap_gate_drop(&g, 100, LTAP_GATE_EXEC) == 0);
	CHECK(!g.active && ltap_gate_drop(&g, 100, LTAP_GATE_EVENT) == 0);
	/* a held task that exits before its exec: nothing of it counts */
	ltap_gate_hold(&g, 200);
	CHECK(ltap_gate_drop(&g, 200, LTAP_GATE_EXIT) == 1 && g.nwait == 0 && !g.active);
	/* a new task of a held number: the held one is gone */
	ltap_gate_hold(&g, 100);
	ltap_gate_newtask(&g, 100);
	CHECK(!g.active && ltap_gate_drop(&g, 100, LTAP_GATE_EVENT) == 0);
	/* a bounded list: the oldest held goes first */
	for (int i = 0; i < LTAP_GATE_WAIT + 1; i++)
		ltap_gate_hold(&g, 300 + i);
	CHECK(g.nwait == LTAP_GATE_WAIT && ltap_gate_drop(&g, 300, LTAP_GATE_EVENT) == 0 &&
	      ltap_gate_drop(&g, 300 + LTAP_GATE_WAIT, LTAP_GATE_EVENT) == 1);
}

static int (*lazy_puts)(const char *);
static const struct ltap_lazysym lazy_libc_syms[] = {{"puts", &lazy_puts}, {0, 0}};
static const struct ltap_lazysym lazy_none_syms[] = {{"no_such_function_here", &lazy_puts}, {0, 0}};

/* lazylib: a library found, a soname that is not there, a missing symbol */
static void test_lazylib(void)
{
	struct ltap_lazylib libc = {.soname = "libc.so.6", .syms = lazy_libc_syms};
	struct ltap_lazylib none = {.soname = "libltap-not-there.so.9", .syms = lazy_libc_syms};
	struct ltap_lazylib nosym = {.soname = "libc.so.6", .syms = lazy_none_syms};

	CHECK(ltap_lazylib_load(&libc) == 0 && lazy_puts != NULL && libc.state == 1);
	CHECK(ltap_lazylib_load(&libc) == 0);
	CHECK(ltap_lazylib_load(&none) == -1 && strstr(none.why, "libltap-not-there.so.9") != NULL);
	CHECK(ltap_lazylib_load(&none) == -1);
	CHECK(ltap_lazylib_load(&nosym) == -1 && strcmp(nosym.why, "libc.so.6 has no no_such_function_here") == 0);
}

int main(int argc, char **argv)
{
	test_duration();
	test_size();
	test_edit_distance();
	test_strip_prefix();
	test_file_read();
	test_expo();
	test_proc();
	test_ringpage();
	test_ringpage_damaged();
	test_perfmap();
	test_command();
	test_gate();
	test_lazylib();
	if (argc > 3) {
		test_symbols(argv[1], argv[2]);
		test_elf(argv[3]);
	} else {
		CHECK(!"usage: test_unit HOT_BINARY HOT_SOURCE UPROBE_TARGET");
	}
	printf("%d checks, %d failed\n", checks, failures);
	return failures != 0;
}
