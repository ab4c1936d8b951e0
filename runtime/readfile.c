/* readfile.c: reads to the end, not to the size stat or ftell tells: a pipe
 * has none. */
#include "readfile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

char *ltap_file_read(const char *path, size_t max, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL, *nb;
	size_t n = 0, cap = 0, got;
	int e = 0;

	if (!f)
		return NULL;
	errno = 0;
	do {
		if (n == cap) {
			cap = cap ? cap * 2 : 8192;
			if (!(nb = realloc(buf, cap + 1))) {
				e = ENOMEM;
				break;
			}
			buf = nb;
		}
		got = fread(buf + n, 1, cap - n, f);
		n += got;
		if (n > max)
			e = EFBIG;
	} while (!e && got > 0);
	if (!e && ferror(f))
		e = errno ? errno : EIO; /* read(2)'s reason: EISDIR for a directory */
	fclose(f);
	if (e) {
		free(buf);
		errno = e;
		return NULL;
	}
	buf[n] = 0;
	*len = n;
	return buf;
}
