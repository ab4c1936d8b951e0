/* lines.c: lines are cut in place in one buffer; what is left of it moves
 * to its start before the next read. */
#include "lines.h"
#include "grow.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define LINES_BLOCK (1u << 20)

void ltap_lines_init(struct ltap_lines *r, const char *pre, size_t prelen, FILE *f)
{
	memset(r, 0, sizeof *r);
	r->pre = pre;
	r->prelen = pre ? prelen : 0;
	r->f = f;
	r->eof = !f;
}

void ltap_lines_free(struct ltap_lines *r)
{
	free(r->buf);
	r->buf = NULL;
}

/* Appends n bytes to the buffer (after what is unread), growing it. */
static int lines_room(struct ltap_lines *r, size_t n)
{
	if (r->pos) {
		memmove(r->buf, r->buf + r->pos, r->len - r->pos);
		r->len -= r->pos;
		r->pos = 0;
	}
	return ltap_grow(&r->buf, &r->cap, r->len + n, 1, LINES_BLOCK);
}

int ltap_lines_next(struct ltap_lines *r, const char **line, size_t *len)
{
	/* whole lines of the prefix, while nothing of it is in the buffer */
	if (r->prepos < r->prelen && r->len == r->pos) {
		const char *p = r->pre + r->prepos, *nl = memchr(p, '\n', r->prelen - r->prepos);
		if (nl) {
			*line = p;
			*len = (size_t)(nl - p);
			r->prepos += *len + 1;
			return 1;
		}
		/* its last line goes on in the stream */
		if (lines_room(r, r->prelen - r->prepos))
			return -ENOMEM;
		memcpy(r->buf + r->len, p, r->prelen - r->prepos);
		r->len += r->prelen - r->prepos;
		r->prepos = r->prelen;
	}
	for (;;) {
		char *start = r->buf + r->pos, *nl = r->len > r->pos ? memchr(start, '\n', r->len - r->pos) : NULL;
		size_t got;
		if (nl) {
			*line = start;
			*len = (size_t)(nl - start);
			r->pos += *len + 1;
			return 1;
		}
		if (r->eof) {
			if (r->len == r->pos)
				return 0;
			*line = start; /* a last line without '\n' */
			*len = r->len - r->pos;
			r->pos = r->len;
			return 1;
		}
		if (lines_room(r, LINES_BLOCK))
			return -ENOMEM;
		got = fread(r->buf + r->len, 1, r->cap - r->len, r->f);
		r->len += got;
		r->nread += got;
		if (r->on_read && got)
			r->on_read(r->on_read_ud, r->nread);
		if (got == 0) {
			if (ferror(r->f))
				return errno ? -errno : -EIO;
			r->eof = 1;
		}
	}
}
