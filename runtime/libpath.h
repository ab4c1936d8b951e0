/* libpath.h: finds the binary or library a probe names. A name with a '/'
 * is a path; another is looked up as the target's mapped files, then $PATH,
 * then the library directories; a library may be named without its "lib"
 * and its ".so..." ("libc" and "c" find libc.so.6). */
#ifndef LTAP_LIBPATH_H
#define LTAP_LIBPATH_H

#include <stddef.h>

/* The real path of the file `name` stands for into out, looking in the
 * mapped files of pid first (0: none). 0; -ENOENT with out empty when no
 * file has that name; or realpath's -errno with out the path it was given. */
int ltap_libpath_find(const char *name, int pid, char *out, size_t len);
/* The same in the given command and library directories (colon-separated)
 * instead of $PATH and this machine's library directories. */
int ltap_libpath_search(const char *name, int pid, const char *bindirs, const char *libdirs,
			char *out, size_t len);

#endif
