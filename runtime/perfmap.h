/* perfmap.h: the names a JIT writes for its code in /tmp/perf-PID.map
 * ("START SIZE NAME" lines, hexadecimal, perf's format).
 *
 * Anyone may create a file in /tmp, and ltap reads it as root, so the file is
 * used only when it is a regular file (not followed through a symbolic link,
 * never a FIFO or device) owned by the process's own user or by root, and at
 * most LTAP_PERFMAP_MAX bytes of it are read. A refused file is named in one
 * warning. The file is read again (at most once a second) when an address
 * misses and the file has changed: JITs append as they compile. */
#ifndef LTAP_PERFMAP_H
#define LTAP_PERFMAP_H

#include <stdint.h>

#define LTAP_PERFMAP_MAX (64u << 20)

struct ltap_perfmap;

struct ltap_perfmap *ltap_perfmap_new(int pid);
void ltap_perfmap_free(struct ltap_perfmap *pm);

/* The entry covering addr: 0 with *name (valid until the next lookup that
 * reads the file again) and *off, or -ENOENT. */
int ltap_perfmap_lookup(struct ltap_perfmap *pm, uint64_t addr, const char **name, uint64_t *off);
/* "/tmp/perf-PID.map", the module of its names */
const char *ltap_perfmap_path(const struct ltap_perfmap *pm);

#endif
