/* symtab_time.c: what reading a file's symbols costs (runtime/symtab.c, the
 * one reader): the table of a file opened and read (a profile's first
 * frame in it), a lookup by address (every frame after), and a function by
 * name with the file opened for it (a uprobe, ltap list). No kernel.
 *
 *   bench/symtab.sh [FILE [FUNCTION]]     (default: libc and malloc) */
#include "dwfile.h"
#include "symtab.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	const char *path = argc > 1 ? argv[1] : "/lib/x86_64-linux-gnu/libc.so.6";
	const char *name = argc > 2 ? argv[2] : "malloc";
	const int rounds = 30, lookups = 2000000;
	struct ltap_dwfile f;
	struct ltap_symtab *t;
	volatile uint64_t sink = 0;
	uint64_t x = 88172645463325252ull, off, size, lo, span;
	double t0;

	t0 = now();
	for (int r = 0; r < rounds; r++) {
		if (ltap_dwfile_open(&f, path) || !ltap_dwfile_symtab(&f))
			return fprintf(stderr, "symtab_time: cannot read %s\n", path), 2;
		ltap_dwfile_close(&f);
	}
	printf("open and read the table   %8.3f ms\n", (now() - t0) * 1e3 / rounds);

	if (ltap_dwfile_open(&f, path) || !(t = ltap_dwfile_symtab(&f)))
		return 2;
	/* addresses spread over the first 1.5 MB of the file's code */
	lo = f.bias + 0x28000;
	span = 0x150000;
	t0 = now();
	for (int i = 0; i < lookups; i++) {
		const char *s;
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		s = ltap_symtab_find(t, lo + x % span, &off);
		sink += s ? off : 1;
	}
	printf("lookup by address         %8.1f ns\n", (now() - t0) * 1e9 / lookups);
	ltap_dwfile_close(&f);

	t0 = now();
	for (int r = 0; r < rounds; r++) {
		if (ltap_dwfile_open(&f, path))
			return 2;
		if (ltap_dwfile_func(&f, name, &off, &size))
			return fprintf(stderr, "symtab_time: %s has no function %s\n", path, name), 2;
		sink += off;
		ltap_dwfile_close(&f);
	}
	printf("open and find by name     %8.3f ms\n", (now() - t0) * 1e3 / rounds);
	return (int)(sink & 0);
}
