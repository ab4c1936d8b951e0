/* fuzz_file.h: a fuzzer's input as a file ltap opens by path, as it opens
 * --input FILE. */
#ifndef LTAP_FUZZ_FILE_H
#define LTAP_FUZZ_FILE_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

/* The input in a memfd: its fd (close it after), its path in path. */
static inline int fuzz_file(const char *name, const uint8_t *data, size_t size, char *path, size_t len)
{
	int fd = memfd_create(name, MFD_CLOEXEC);

	if (fd < 0)
		abort();
	for (size_t off = 0; off < size;) {
		ssize_t n = write(fd, data + off, size - off);
		if (n <= 0)
			abort();
		off += (size_t)n;
	}
	snprintf(path, len, "/proc/self/fd/%d", fd);
	return fd;
}

#endif
