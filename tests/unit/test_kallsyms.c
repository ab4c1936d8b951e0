/* test_kallsyms.c: /proc/kallsyms text parsed: code symbols only, the
 * unsorted tail of module symbols merged into the sorted kernel ones (and
 * that merge on its own), the
 * symbol at or below an address; the machine's own file read. */
#include "check.h"
#include "kallsyms.h"
#include "merge.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct ltap_kallsyms *parse(const char *text)
{
	return ltap_kallsyms_parse(strdup(text), strlen(text));
}

static int is(const struct ltap_kallsyms *k, uint64_t addr, const char *name, uint64_t off, const char *module)
{
	const char *n, *m;
	uint64_t o;

	return ltap_kallsyms_find(k, addr, &n, &o, &m) == 0 && strcmp(n, name) == 0 && o == off &&
	       strcmp(m, module) == 0;
}

static void test_parse(void)
{
	/* data symbols (D, b, r), zero addresses and a line of noise are left
	 * out; modules come after the kernel, in their own order; the last line
	 * has no newline */
	struct ltap_kallsyms *k = parse("0000000000000000 A fixed_percpu_data\n"
					"ffffffff81000000 T _text\n"
					"ffffffff81000100 t helper\n"
					"ffffffff81000200 D some_data\n"
					"ffffffff81000300 W weak_fn\n"
					"not a line\n"
					"ffffffff8100030g T bad_digit\n"
					"ffffffff810003 T short_address\n"
					"FFFFFFFF81000400 T schedule\n"
					"ffffffffc0010100 t ext4_b\t[ext4]\n"
					"ffffffffc0010000 t ext4_a\t[ext4]\n"
					"ffffffffa0000000 t xfs_a\t[xfs]\n"
					"ffffffffc0020000 t bpf_prog_1_f\t[bpf]");
	const char *n, *m;
	uint64_t o;

	CHECK(k && ltap_kallsyms_count(k) == 8);
	CHECK(ltap_kallsyms_find(k, 0xffffffff80ffffffull, &n, &o, &m) == -ENOENT);
	CHECK(is(k, 0xffffffff81000000ull, "_text", 0, "[kernel.kallsyms]"));
	CHECK(is(k, 0xffffffff81000210ull, "helper", 0x110, "[kernel.kallsyms]"));
	CHECK(is(k, 0xffffffff81000301ull, "weak_fn", 1, "[kernel.kallsyms]"));
	CHECK(is(k, 0xffffffff81000401ull, "schedule", 1, "[kernel.kallsyms]"));
	CHECK(is(k, 0xffffffffa0000010ull, "xfs_a", 0x10, "[xfs]"));
	CHECK(is(k, 0xffffffffc0010010ull, "ext4_a", 0x10, "[ext4]"));
	CHECK(is(k, 0xffffffffc0010100ull, "ext4_b", 0, "[ext4]"));
	CHECK(is(k, 0xffffffffc0020001ull, "bpf_prog_1_f", 1, "[bpf]"));
	ltap_kallsyms_free(k);

	k = parse("");
	CHECK(k && ltap_kallsyms_count(k) == 0 && ltap_kallsyms_find(k, 1, &n, &o, &m) == -ENOENT);
	ltap_kallsyms_free(k);
	/* kptr_restrict: every address zero */
	k = parse("0000000000000000 T _text\n0000000000000000 T schedule\n");
	CHECK(k && ltap_kallsyms_count(k) == 0);
	ltap_kallsyms_free(k);
}

/* A table of several strides (a lookup searches every 64th address, then
 * one stride): every address from below the first symbol to past the last
 * gives the last symbol at or below it, as a search of the whole table
 * does, also where symbols share an address across a stride's edge. */
static void test_strides(void)
{
	enum { N = 300 };
	static char text[N * 48];
	uint64_t addr[N];
	size_t len = 0;
	struct ltap_kallsyms *k;
	int ok = 1;

	for (int i = 0; i < N; i++) {
		/* 62..65 share one address: 63 | 64 is the first stride's edge */
		addr[i] = 0xffffffff81000000ull + (uint64_t)(i >= 62 && i <= 65 ? 62 : i) * 16;
		len += (size_t)snprintf(text + len, sizeof text - len, "%016llx t f%d\n", (unsigned long long)addr[i], i);
	}
	k = ltap_kallsyms_parse(strdup(text), len);
	CHECK(k && ltap_kallsyms_count(k) == N);
	for (uint64_t a = addr[0] - 1; k && a < addr[N - 1] + 40; a += 3) {
		const char *n, *m;
		uint64_t o;
		char want[16];
		int j = -1;

		for (int i = 0; i < N; i++)
			if (addr[i] <= a)
				j = i;
		if (j < 0) {
			ok &= ltap_kallsyms_find(k, a, &n, &o, &m) == -ENOENT;
			continue;
		}
		snprintf(want, sizeof want, "f%d", j);
		ok &= ltap_kallsyms_find(k, a, &n, &o, &m) == 0 && strcmp(n, want) == 0 && o == a - addr[j];
	}
	CHECK(ok);
	ltap_kallsyms_free(k);
}

/* The machine's table (test_unit looks schedule up through symbols.c). */
static void test_machine(void)
{
	struct ltap_kallsyms *k = ltap_kallsyms_load("/proc/kallsyms");

	CHECK(k != NULL);
	ltap_kallsyms_free(k);
	CHECK(ltap_kallsyms_load("/nonexistent") == NULL && errno == ENOENT);
}

static int int_cmp(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

/* ltap_merge_tail against qsort of the whole, on sorted heads and random
 * tails of every length up to 40 (ties included), and ltap_sorted_head. */
static void test_merge(void)
{
	int a[80], b[80], ok = 1;
	unsigned seed = 7;

	for (int n = 0; n <= 40; n++)
		for (int head = 0; head <= n; head++) {
			for (int i = 0; i < n; i++)
				a[i] = (int)((seed = seed * 1103515245 + 12345) >> 16) % 25;
			qsort(a, (size_t)head, sizeof *a, int_cmp);
			memcpy(b, a, sizeof a);
			qsort(b, (size_t)n, sizeof *b, int_cmp);
			ok &= ltap_sorted_head(a, (size_t)n, sizeof *a, int_cmp) >= (size_t)(head ? head : n > 0);
			ok &= ltap_merge_tail(a, (size_t)head, (size_t)n, sizeof *a, int_cmp) == 0 &&
			      memcmp(a, b, (size_t)n * sizeof *a) == 0;
		}
	CHECK(ok);
	CHECK(ltap_sorted_head(a, 0, sizeof *a, int_cmp) == 0);
}

int main(void)
{
	test_merge();
	test_parse();
	test_strides();
	test_machine();
	printf("%d checks, %d failed\n", checks, failures);
	return failures != 0;
}
