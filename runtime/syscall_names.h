/* syscall_names.h: syscall number -> name for this architecture (generated
 * at build time from <asm/unistd.h>, see cmake/syscalls.cmake). */
#ifndef LTAP_SYSCALL_NAMES_H
#define LTAP_SYSCALL_NAMES_H

extern const char *const ltap_syscall_names[]; /* NULL where no syscall has the number */
extern const int ltap_nsyscall_names;

#endif
