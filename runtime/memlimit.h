/* memlimit.h: how much memory this process may take, to size the default
 * limit of a script's memory. */
#ifndef LTAP_MEMLIMIT_H
#define LTAP_MEMLIMIT_H

#include <stddef.h>
#include <stdint.h>

/* The smallest of MemTotal, this process's memory cgroup limit (v2
 * memory.max, v1 memory.limit_in_bytes), RLIMIT_AS and RLIMIT_DATA, in
 * bytes; *what names it ("MemTotal", "the cgroup's memory limit",
 * "RLIMIT_AS", "RLIMIT_DATA"). 0 when none is known. */
uint64_t ltap_memlimit_available(const char **what);
/* "1.5 GiB", "256 MiB", "4096 bytes" */
void ltap_memlimit_format(uint64_t bytes, char *out, size_t len);

#endif
