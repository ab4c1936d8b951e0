/* fuzz_ringpage.c: libFuzzer harness for the ring-buffer page walker
 * (runtime/ringpage.h), which reads the sub-buffers trace_pipe_raw hands
 * out and trace.dat files hold.
 *
 * The input's first byte picks the kernel's long size (bit 0: 4, else 8);
 * the rest is the page, copied into a heap buffer of exactly its size, so
 * ASan sees any read past it. Every event the walk yields must lie inside
 * the page's data and is read whole; the walk must end (a wrapped offset
 * that loops is a libFuzzer timeout). */
#include "ringpage.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	volatile unsigned sink = 0;
	struct ringpage rp;
	int long_size, n = 0, len;
	const unsigned char *ev;
	char *page;

	if (size < 1 || size > (1u << 20))
		return 0;
	long_size = data[0] & 1 ? 4 : 8;
	size--;
	page = malloc(size ? size : 1);
	if (!page)
		abort();
	memcpy(page, data + 1, size);
	ringpage_load(&rp, page, long_size, (unsigned)size);
	if (rp.size > size || (rp.size && rp.data != page + 8 + long_size))
		abort();
	while ((ev = ringpage_next(&rp, &len)) != NULL) {
		/* at least a header before each event: more events than that
		 * means the walk went back */
		if (len < 0 || ++n > (int)(rp.size / 4) ||
		    (const char *)ev < rp.data || (const char *)ev + len > rp.data + rp.size)
			abort();
		for (int i = 0; i < len; i++)
			sink += ev[i];
	}
	(void)sink;
	free(page);
	return 0;
}
