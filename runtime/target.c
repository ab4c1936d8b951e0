/* target.c: the start gate of -c and the thread list of -p. */
#include "target.h"

#include "cgroup.h"
#include "command.h"
#include "log.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void target_child(char *const *argv, int gate, int err)
{
	sigset_t none;
	char buf;
	int e;

	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	signal(SIGPIPE, SIG_DFL);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	/* EOF instead of a byte: ltap gave up before attaching */
	if (read(gate, &buf, 1) != 1)
		_exit(127);
	close(gate);
	/* nothing between the gate and the exec: the words were split before the fork */
	execvp(argv[0], argv);
	e = errno;
	if (write(err, &e, sizeof e) < 0)
		_exit(126);
	_exit(127);
}

int ltap_target_spawn(const struct ltap_cmd *cmd, struct ltap_child *c)
{
	int gate[2], err[2];
	char why[512];

	memset(c, 0, sizeof *c);
	c->gate_fd = c->err_fd = -1;
	if (pipe2(gate, O_CLOEXEC) < 0)
		return -errno;
	if (pipe2(err, O_CLOEXEC) < 0) {
		int e = errno;
		close(gate[0]);
		close(gate[1]);
		return -e;
	}
	fflush(NULL);
	c->pid = fork();
	if (c->pid < 0) {
		int e = errno;
		close(gate[0]);
		close(gate[1]);
		close(err[0]);
		close(err[1]);
		return -e;
	}
	if (c->pid == 0) {
		close(gate[1]);
		close(err[0]);
		target_child(cmd->argv, gate[0], err[1]);
	}
	close(gate[0]);
	close(err[1]);
	c->gate_fd = gate[1];
	c->err_fd = err[0];
	/* still at the gate: whatever it starts will be in the cgroup */
	c->cgroup = ltap_cgroup_make(c->pid, why, sizeof why);
	if (!c->cgroup)
		ltap_warn("target: %s: only the command's first process is ended with the run", why);
	return 0;
}

int ltap_target_release(struct ltap_child *c)
{
	int e = 0;
	ssize_t n;

	if (write(c->gate_fd, "g", 1) != 1)
		e = errno;
	close(c->gate_fd);
	c->gate_fd = -1;
	if (e)
		return -e;
	do
		n = read(c->err_fd, &e, sizeof e);
	while (n < 0 && errno == EINTR);
	close(c->err_fd);
	c->err_fd = -1;
	return n == sizeof e ? -e : 0;
}

int ltap_target_reap(struct ltap_child *c)
{
	int st;
	pid_t r;

	if (c->exited || c->pid <= 0)
		return c->exited;
	r = waitpid(c->pid, &st, WNOHANG);
	if (r == c->pid) {
		c->exited = 1;
		c->status = st;
	}
	return c->exited;
}

void ltap_target_end(struct ltap_child *c, int grace_ms)
{
	if (c->pid <= 0)
		return;
	if (c->gate_fd >= 0) {
		close(c->gate_fd); /* it exits at the gate */
		c->gate_fd = -1;
	}
	if (c->err_fd >= 0) {
		close(c->err_fd);
		c->err_fd = -1;
	}
	if (!c->exited && !c->cgroup) {
		kill(c->pid, grace_ms > 0 ? SIGTERM : SIGKILL);
		for (int i = 0; i < grace_ms / 10 && !ltap_target_reap(c); i++)
			usleep(10000);
		if (!c->exited)
			kill(c->pid, SIGKILL);
	}
	ltap_cgroup_end(c->cgroup, grace_ms);
	free(c->cgroup);
	c->cgroup = NULL;
	if (!c->exited && waitpid(c->pid, &c->status, 0) == c->pid)
		c->exited = 1;
}

const char *ltap_target_cgroup(const struct ltap_child *c)
{
	return c->cgroup;
}

int ltap_target_threads(pid_t pid, pid_t **tids, int *n)
{
	char path[64];
	DIR *d;
	struct dirent *de;
	int cap = 16;

	*n = 0;
	snprintf(path, sizeof path, "/proc/%d/task", (int)pid);
	d = opendir(path);
	if (!d)
		return errno == ENOENT ? -ESRCH : -errno;
	*tids = malloc((size_t)cap * sizeof **tids);
	if (!*tids) {
		closedir(d);
		return -ENOMEM;
	}
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		if (*n == cap) {
			pid_t *nt = realloc(*tids, (size_t)(cap *= 2) * sizeof *nt);
			if (!nt)
				break;
			*tids = nt;
		}
		(*tids)[(*n)++] = (pid_t)atoi(de->d_name);
	}
	closedir(d);
	return 0;
}
