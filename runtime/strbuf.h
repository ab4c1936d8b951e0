/* strbuf.h: a growing text, kept NUL-terminated (its bytes may hold NULs). */
#ifndef LTAP_STRBUF_H
#define LTAP_STRBUF_H

#include <stddef.h>

struct ltap_strbuf {
	char *p;
	size_t len, cap;
};

/* Appends n bytes of s: 0 or -ENOMEM (the text unchanged). */
int ltap_strbuf_add(struct ltap_strbuf *b, const void *s, size_t n);
/* Room for n more bytes without another allocation: 0 or -ENOMEM. */
int ltap_strbuf_reserve(struct ltap_strbuf *b, size_t n);
void ltap_strbuf_free(struct ltap_strbuf *b);

#endif
