/* lines.h: the lines of a text given in two parts, what was already read
 * (a prefix) and a stream to read the rest from, a large block at a time:
 * how flame graph inputs are read, each line without its '\n' (a '\r'
 * before it stays, as Lua's io.lines keeps it). */
#ifndef LTAP_LINES_H
#define LTAP_LINES_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct ltap_lines {
	const char *pre; /* the prefix, its len bytes */
	size_t prelen, prepos;
	FILE *f;         /* the rest, or NULL */
	char *buf;
	size_t cap, len, pos;
	int eof;
	/* optional: called after each block read from f with the bytes read
	 * from it so far (a progress line) */
	void (*on_read)(void *ud, uint64_t nread);
	void *on_read_ud;
	uint64_t nread;
};

void ltap_lines_init(struct ltap_lines *r, const char *pre, size_t prelen, FILE *f);
void ltap_lines_free(struct ltap_lines *r);
/* The next line (valid until the next call): 1, 0 at the end, -errno. A
 * line the prefix ends in the middle of continues in the stream. */
int ltap_lines_next(struct ltap_lines *r, const char **line, size_t *len);

#endif
