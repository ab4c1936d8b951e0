/* target.h: what a run traces: a -p process, or a -c command held at a start
 * gate until the probes are attached, and ended with its whole tree. */
#ifndef LTAP_TARGET_H
#define LTAP_TARGET_H

#include <sys/types.h>

struct ltap_cmd;

struct ltap_child {
	pid_t pid;
	int gate_fd; /* write end: one byte lets the child exec */
	int err_fd;  /* read end: the child's errno if exec failed, EOF on success */
	int exited, status;
	char *cgroup; /* the command tree's own cgroup, or NULL (cgroup.h) */
};

/* Forks a child that waits at the gate, then execs cmd->argv, in a cgroup of
 * its own when the machine allows. 0 or -errno. */
int ltap_target_spawn(const struct ltap_cmd *cmd, struct ltap_child *c);
/* Opens the gate. 0 when the command runs, -errno when it could not exec. */
int ltap_target_release(struct ltap_child *c);
/* Reaps the child if it ended: 1 ended (c->status set), 0 still running. */
int ltap_target_reap(struct ltap_child *c);
/* Ends every process of the command's tree (SIGTERM, grace_ms, SIGKILL;
 * at once with 0), reaps the child, removes its cgroup. Also for a child
 * that never passed the gate. */
void ltap_target_end(struct ltap_child *c, int grace_ms);
/* The path of the command's cgroup (what ends its tree even after ltap
 * died: ltap_cgroup_end), or NULL when it has none. */
const char *ltap_target_cgroup(const struct ltap_child *c);

/* The thread ids of process pid. -ESRCH when it does not exist. */
int ltap_target_threads(pid_t pid, pid_t **tids, int *n);

#endif
