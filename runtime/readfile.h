/* readfile.h: a whole file into memory: the script ltap runs, a stdlib or
 * bundled script from LTAP_SOURCE_DIR. */
#ifndef LTAP_READFILE_H
#define LTAP_READFILE_H

#include <stddef.h>

/* a script is code someone wrote: more than this is a wrong file */
#define LTAP_SCRIPT_MAX (16u << 20)

/* The bytes of path, NUL-terminated (*len without the NUL; free() it), read
 * to the end, so a pipe (ltap <(...), /dev/stdin) reads too. NULL with errno,
 * EFBIG past max bytes. */
char *ltap_file_read(const char *path, size_t max, size_t *len);

#endif
