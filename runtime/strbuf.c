/* strbuf.c: doubling growth, from 4 KiB. */
#include "strbuf.h"
#include "grow.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int ltap_strbuf_reserve(struct ltap_strbuf *b, size_t n)
{
	return ltap_grow(&b->p, &b->cap, b->len + n + 1, 1, 4096);
}

int ltap_strbuf_add(struct ltap_strbuf *b, const void *s, size_t n)
{
	if (ltap_strbuf_reserve(b, n))
		return -ENOMEM;
	if (n)
		memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = 0;
	return 0;
}

void ltap_strbuf_free(struct ltap_strbuf *b)
{
	free(b->p);
	b->p = NULL;
	b->len = b->cap = 0;
}
