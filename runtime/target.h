/* target.h: what a run traces: a -p process, or a -c command held at a start
 * gate until the probes are attached. */
#ifndef LTAP_TARGET_H
#define LTAP_TARGET_H

#include <sys/types.h>

struct ltap_child {
	pid_t pid;
	int gate_fd; /* write end: one byte lets the child exec */
	int err_fd;  /* read end: the child's errno if exec failed, EOF on success */
	int exited, status;
};

/* Forks a child that waits at the gate, then runs cmd (through /bin/sh when
 * it holds shell syntax). 0 or -errno. */
int ltap_target_spawn(const char *cmd, struct ltap_child *c);
/* Opens the gate. 0 when the command runs, -errno when it could not exec. */
int ltap_target_release(struct ltap_child *c);
/* Reaps the child if it ended: 1 ended (c->status set), 0 still running. */
int ltap_target_reap(struct ltap_child *c);
/* Kills (SIGKILL) and reaps a child that never passed the gate. */
void ltap_target_abort(struct ltap_child *c);

/* The thread ids of process pid. -ESRCH when it does not exist. */
int ltap_target_threads(pid_t pid, pid_t **tids, int *n);

#endif
