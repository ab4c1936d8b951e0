/* embedded.h: the stdlib and bundled scripts compiled into the binary. */
#ifndef LTAP_EMBEDDED_H
#define LTAP_EMBEDDED_H

#include <stddef.h>

enum { LTAP_EMBED_STDLIB = 1, LTAP_EMBED_SCRIPT = 2 };

struct ltap_embedded {
	int kind;
	const char *name;
	const char *src;
	size_t len;
};

extern const struct ltap_embedded ltap_embedded[];

/* The source of a stdlib module or bundled script. With LTAP_SOURCE_DIR set,
 * it is read from that source tree instead (for development); *owned is then
 * set and the caller frees the result. NULL when there is no such name. */
const char *ltap_embedded_find(int kind, const char *name, size_t *len, int *owned);

#endif
