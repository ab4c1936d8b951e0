/* cgroup.h: a cgroup v2 of its own for a command ltap starts, so the whole
 * tree the command makes (children, daemons re-parented to init) ends with
 * the run: the kernel keeps every descendant in the cgroup, and cgroup.kill
 * ends them all at once. Made under ltap's own cgroup, so the command stays
 * under the limits ltap runs under; named ltap-<ltap pid>-<command pid>. */
#ifndef LTAP_CGROUP_H
#define LTAP_CGROUP_H

#include <stddef.h>
#include <sys/types.h>

/* Makes the cgroup and moves pid into it (pid must not have forked yet).
 * The path (caller frees), or NULL with why filled (no cgroup2 mounted,
 * read-only, ...). */
char *ltap_cgroup_make(pid_t pid, char *why, size_t len);
/* Ends every process in the cgroup: SIGTERM, up to grace_ms for them to go,
 * then ltap_cgroup_remove; the guardian forgets it. 0, or -errno when the
 * cgroup could not be emptied or removed (said). */
int ltap_cgroup_end(const char *path, int grace_ms);
/* The one removal of a cgroup: every process in it killed (cgroup.kill,
 * or SIGKILL to each on kernels before 5.14) until none is left, then the
 * directory removed. Needs nothing but the path (the guardian's undo of
 * it). 1 removed, 0 it was not there, -errno. */
int ltap_cgroup_remove(const char *path);
/* Whether no process is left in the cgroup (cgroup.events). */
int ltap_cgroup_empty(const char *path);
/* Ends and removes the command cgroups of ltaps that no longer run. */
int ltap_cgroup_reap_stale(void);

#endif
