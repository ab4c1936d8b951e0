/* owner.h: whose a kernel object is. What ltap makes in the kernel is
 * named after the process and the host that owns it: the instance
 * "ltap-PID" and uprobe group "ltap_PID" of a process's first host, then
 * "ltap-PID-N" and "ltap_PID_N" for its N-th host alive at the same time;
 * commands' cgroups are "ltap-PID-CHILD" (cgroup.c). A leftover is stale
 * when its PID no longer runs. */
#ifndef LTAP_OWNER_H
#define LTAP_OWNER_H

#include <stddef.h>
#include <sys/types.h>

#define LTAP_OWNER_MAX 64 /* hosts alive at once in one process */

/* A new host's number: the lowest free, from 1; -EMFILE past LTAP_OWNER_MAX.
 * Thread-safe. */
int ltap_owner_take(void);
void ltap_owner_release(int serial);
/* "ltap" SEP PID, then SEP N when serial > 1 */
void ltap_owner_name(char *buf, size_t len, char sep, int serial);
/* Whether name is one of ltap's ("ltap" SEP PID [SEP N], nothing more):
 * 1 and *pid, else 0. */
int ltap_owner_parse(const char *name, char sep, pid_t *pid);
/* Whether process pid runs, whatever its name: an ltap embedded in any
 * program owns what it made while it lives. A pid reused after its ltap
 * died keeps the leftovers until it ends too (the guardian removes them
 * first in all but the rarest cases). */
int ltap_owner_alive(pid_t pid);

#endif
