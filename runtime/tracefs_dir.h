/* tracefs_dir.h: finding (and if need be mounting) tracefs, and small file helpers. */
#ifndef LTAP_TRACEFS_H
#define LTAP_TRACEFS_H

#include <stddef.h>

/* The tracefs directory, mounted on /sys/kernel/tracing if it was not mounted
 * anywhere (as perf does). NULL with errno and a logged reason on failure. */
const char *ltap_tracefs_dir(void);

/* Reads a whole file below the tracefs dir; caller frees. NULL with errno. */
char *ltap_tracefs_read(const char *relpath, size_t *len);
/* Writes s to a file below the tracefs dir. 0 or -errno. */
int ltap_tracefs_write(const char *relpath, const char *s, int append);

#endif
