/* target.c: the start gate of -c and the thread list of -p. */
#include "target.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int target_needs_shell(const char *cmd)
{
	return strpbrk(cmd, "|&;<>()$`\\\"'*?[#~=%{}\n") != NULL;
}

static void target_child(const char *cmd, int gate, int err)
{
	sigset_t none;
	char buf;
	char *copy, *argv[256];
	int argc = 0;

	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	signal(SIGPIPE, SIG_DFL);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	/* EOF instead of a byte: ltap gave up before attaching */
	if (read(gate, &buf, 1) != 1)
		_exit(127);
	close(gate);
	if (target_needs_shell(cmd)) {
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
	} else {
		copy = strdup(cmd);
		for (char *tok = strtok(copy, " \t"); tok && argc < 255; tok = strtok(NULL, " \t"))
			argv[argc++] = tok;
		argv[argc] = NULL;
		if (argc == 0)
			errno = ENOENT;
		else
			execvp(argv[0], argv);
	}
	int e = errno;
	if (write(err, &e, sizeof e) < 0)
		_exit(126);
	_exit(127);
}

int ltap_target_spawn(const char *cmd, struct ltap_child *c)
{
	int gate[2], err[2];

	memset(c, 0, sizeof *c);
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
		target_child(cmd, gate[0], err[1]);
	}
	close(gate[0]);
	close(err[1]);
	c->gate_fd = gate[1];
	c->err_fd = err[0];
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

void ltap_target_abort(struct ltap_child *c)
{
	if (c->pid <= 0)
		return;
	if (c->gate_fd >= 0) {
		close(c->gate_fd);
		c->gate_fd = -1;
	}
	if (c->err_fd >= 0) {
		close(c->err_fd);
		c->err_fd = -1;
	}
	if (!c->exited) {
		kill(c->pid, SIGKILL);
		if (waitpid(c->pid, &c->status, 0) == c->pid)
			c->exited = 1;
	}
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
