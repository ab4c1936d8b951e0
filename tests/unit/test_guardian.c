/* test_guardian.c: the guardian of a process ("ltap" here: a forked child)
 * undoes what is still listed when that process is SIGKILLed, leaves what
 * was forgotten, does nothing after a normal end, shrugs off the signals a
 * terminal or a kill of the job sends it, and exits with its process. The
 * things undone are process groups of sleeping children, and as root a
 * cgroup (v2 cgroup.kill, or v1 SIGKILL to its tasks) with one inside. */
#include "check.h"
#include "guardian.h"
#include "undo.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* the process group of pid, field 5 of /proc/PID/stat (after the comm's ')') */
static pid_t pgrp_of(pid_t pid)
{
	char path[64], line[512], *paren;
	int pgrp = -1;
	FILE *f;

	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	if ((f = fopen(path, "r")) == NULL)
		return -1;
	if (fgets(line, sizeof line, f) && (paren = strrchr(line, ')')) != NULL)
		sscanf(paren + 1, " %*c %*d %d", &pgrp);
	fclose(f);
	return (pid_t)pgrp;
}

static void nap_ms(int ms)
{
	struct timespec ts = {0, (long)ms * 1000000L};
	nanosleep(&ts, NULL);
}

/* a sleeping child, leader of its own process group */
static pid_t sleeper(void)
{
	pid_t p = fork();
	if (p == 0) {
		setpgid(0, 0);
		pause();
		_exit(0);
	}
	setpgid(p, p);
	return p;
}

/* 1 when child p was killed by SIGKILL within a second, reaping it */
static int killed_within_1s(pid_t p)
{
	int st;
	for (int ms = 0; ms < 1000; ms += 5) {
		if (waitpid(p, &st, WNOHANG) == p)
			return WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL;
		nap_ms(5);
	}
	return 0;
}

/* 1 when pid (not a child of ours) has exited within a second: gone, or a
 * zombie its new parent has not reaped yet */
static int gone_within_1s(pid_t pid)
{
	char path[64], buf[512], *paren;
	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	for (int ms = 0; ms < 1000; ms += 5) {
		FILE *f = fopen(path, "r");
		size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
		if (f)
			fclose(f);
		buf[n] = 0;
		paren = strrchr(buf, ')');
		if (!f || (paren && paren[1] == ' ' && paren[2] == 'Z'))
			return 1;
		nap_ms(5);
	}
	return 0;
}

/* Forks the guarded process: it lists what `setup` says, tells its
 * guardian's pid (0 when setup failed), and waits to be killed (or exits). */
static pid_t guarded(int (*setup)(void *), void *ud, int exit_after, pid_t *guardian)
{
	int fds[2];
	pid_t p;
	int g = 0;

	if (pipe(fds) < 0)
		return -1;
	p = fork();
	if (p == 0) {
		close(fds[0]);
		g = setup(ud) == 0 ? ltap_guardian_pid() : 0;
		if (write(fds[1], &g, sizeof g) != sizeof g)
			_exit(2);
		if (exit_after)
			_exit(0);
		pause();
		_exit(0);
	}
	close(fds[1]);
	if (read(fds[0], &g, sizeof g) != sizeof g)
		g = 0;
	close(fds[0]);
	*guardian = g;
	return p;
}

static void name_of(pid_t p, char *out, size_t len)
{
	snprintf(out, len, "%d", (int)p);
}

struct groups {
	pid_t keep, undo;
};

static int list_groups(void *ud)
{
	struct groups *g = ud;
	char a[16], b[16];
	name_of(g->undo, a, sizeof a);
	name_of(g->keep, b, sizeof b);
	return ltap_guardian_add(LTAP_GUARD_PGRP, a) || ltap_guardian_add(LTAP_GUARD_PGRP, b) ||
	       ltap_guardian_forget(LTAP_GUARD_PGRP, b);
}

static void test_sigkill(void)
{
	struct groups g = {sleeper(), sleeper()};
	pid_t gpid, p = guarded(list_groups, &g, 0, &gpid);
	char comm[32] = "", path[64];
	FILE *f;
	int st;

	CHECK(p > 0 && gpid > 0);
	snprintf(path, sizeof path, "/proc/%d/comm", (int)gpid);
	if ((f = fopen(path, "r")) != NULL) {
		if (!fgets(comm, sizeof comm, f))
			comm[0] = 0;
		fclose(f);
	}
	CHECK(strcmp(comm, "ltap-guardian\n") == 0);
	/* its own process group: a kill of the job's group does not reach it
	 * (read from /proc, not getpgid(): the live tests count getpgid calls
	 * system-wide, and a second checkout's suite may run this meanwhile) */
	CHECK(pgrp_of(gpid) == gpid);
	/* what a terminal or a polite kill sends does not end it */
	kill(gpid, SIGINT);
	kill(gpid, SIGQUIT);
	kill(gpid, SIGTERM);
	kill(gpid, SIGHUP);
	kill(gpid, SIGTSTP);
	nap_ms(50);
	CHECK(kill(gpid, 0) == 0);

	kill(p, SIGKILL);
	waitpid(p, &st, 0);
	CHECK(killed_within_1s(g.undo));
	CHECK(gone_within_1s(gpid));
	CHECK(kill(g.keep, 0) == 0); /* forgotten: left alone */
	kill(g.keep, SIGKILL);
	waitpid(g.keep, &st, 0);
}

static int list_and_forget(void *ud)
{
	struct groups *g = ud;
	char a[16];
	name_of(g->keep, a, sizeof a);
	return ltap_guardian_add(LTAP_GUARD_PGRP, a) || ltap_guardian_forget(LTAP_GUARD_PGRP, a);
}

/* a normal end with everything undone: the guardian just goes */
static void test_normal_end(void)
{
	struct groups g = {sleeper(), 0};
	pid_t gpid, p = guarded(list_and_forget, &g, 1, &gpid);
	int st;

	CHECK(p > 0 && gpid > 0);
	waitpid(p, &st, 0);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	CHECK(gone_within_1s(gpid));
	CHECK(kill(g.keep, 0) == 0);
	kill(g.keep, SIGKILL);
	waitpid(g.keep, &st, 0);
}

static int list_cgroup(void *ud)
{
	return ltap_guardian_add(LTAP_GUARD_CGROUP, ud);
}

/* as root: a cgroup is emptied and removed (v2 cgroup.kill, v1 its tasks) */
static void test_cgroup(void)
{
	char dir[256], procs[300], pid[16];
	const char *const roots[] = {"/sys/fs/cgroup/pids", "/sys/fs/cgroup/unified", "/sys/fs/cgroup"};
	pid_t s, gpid, p;
	int fd, st, made = 0;

	for (size_t i = 0; i < sizeof roots / sizeof roots[0] && !made; i++) {
		snprintf(dir, sizeof dir, "%s/ltap-guardian-test-%d", roots[i], (int)getpid());
		made = mkdir(dir, 0755) == 0;
	}
	if (!made) {
		printf("skip: guardian cgroup: cannot make a cgroup here (%s)\n", strerror(errno));
		return;
	}
	s = sleeper();
	snprintf(procs, sizeof procs, "%s/cgroup.procs", dir);
	name_of(s, pid, sizeof pid);
	fd = open(procs, O_WRONLY);
	CHECK(fd >= 0 && write(fd, pid, strlen(pid)) > 0);
	if (fd >= 0)
		close(fd);
	p = guarded(list_cgroup, dir, 0, &gpid);
	CHECK(p > 0 && gpid > 0);
	kill(p, SIGKILL);
	waitpid(p, &st, 0);
	CHECK(killed_within_1s(s));
	CHECK(gone_within_1s(gpid));
	CHECK(access(dir, F_OK) < 0);
	rmdir(dir);
}

int main(void)
{
	ltap_guardian_hold(ltap_undo_table); /* as a host does: the kinds' undo */
	test_sigkill();
	test_normal_end();
	test_cgroup();
	printf("%d checks, %d failed\n", checks, failures);
	return failures != 0;
}
