/* guardian.c: the process that undoes ltap's kernel changes when ltap dies
 * without undoing them itself (see guardian.h).
 *
 * Why a process: an instance, its filters and pid lists, uprobes and kprobes
 * outlive the process that made them, and nothing ltap does in itself runs
 * after SIGKILL or the OOM killer. Why woken by a pidfd: it becomes readable
 * when ltap has exited, after the kernel closed all of ltap's files (so the
 * instance can be removed), whatever held copies of ltap's socket; no
 * polling, no signal. The socket (SOCK_SEQPACKET: one message per add or
 * forget, kept readable after ltap's death) carries the names; its EOF alone
 * wakes the guardian where there is no pidfd_open (kernels before 5.3).
 *
 * What it undoes, and how, is the undo table its holders hand it (undo.h:
 * a row per kind with its removal and its reap of dead ltaps' leftovers):
 * the guardian calls the kinds' files through the table, and they call the
 * guardian to add and forget, so neither depends on the other. */
#include "guardian.h"

#include "log.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

struct guard_msg {
	char op;   /* '+' add, '-' forget, '!' undo now (and forget) */
	char kind; /* enum ltap_guard_kind */
	char name[LTAP_GUARD_NAME_MAX];
};

/* Process-wide: one guardian per process, for all its hosts; it goes when
 * the last host does (ltap_guardian_release). */
static struct {
	pid_t owner; /* the process it guards; in a fork of it, calls do nothing */
	pid_t pid;
	int sock;
	int broken; /* said once that the guardian is gone */
	int reap;   /* reap dead ltaps' leftovers when it starts */
	int holders; /* hosts alive (ltap_guardian_hold) */
	const struct ltap_guard_undo *undo; /* the undo table its holders hand it */
} guardian = {.sock = -1};
static pthread_mutex_t guardian_lock = PTHREAD_MUTEX_INITIALIZER;

/* --- in the guardian ------------------------------------------------ */

struct guard_list {
	struct guard_entry {
		int kind;
		char *name;
	} *e;
	int n, cap;
};

static int undo(int kind, const char *name);

static void list_apply(struct guard_list *l, const struct guard_msg *m, size_t len)
{
	char name[LTAP_GUARD_NAME_MAX + 1];

	if (len < 3 || m->kind < 0 || m->kind >= LTAP_GUARD_NKINDS)
		return;
	memcpy(name, m->name, len - 2);
	name[len - 2] = 0;
	if (m->op == '!') {
		/* undo it now, and forget it: ltap is done with it (if it cannot
		 * be undone yet, it stays listed: ltap's end undoes it) */
		if (undo(m->kind, name) < 0)
			return;
		for (int i = 0; i < l->n; i++)
			if (l->e[i].kind == m->kind && strcmp(l->e[i].name, name) == 0) {
				free(l->e[i].name);
				l->e[i] = l->e[--l->n];
				break;
			}
		return;
	}
	for (int i = 0; i < l->n; i++) {
		if (l->e[i].kind != m->kind || strcmp(l->e[i].name, name) != 0)
			continue;
		if (m->op == '-') {
			free(l->e[i].name);
			l->e[i] = l->e[--l->n];
		}
		return;
	}
	if (m->op != '+')
		return;
	if (l->n == l->cap) {
		int cap = l->cap ? l->cap * 2 : 8;
		struct guard_entry *ne = realloc(l->e, (size_t)cap * sizeof *ne);
		if (!ne)
			return;
		l->e = ne;
		l->cap = cap;
	}
	if ((l->e[l->n].name = strdup(name)) != NULL)
		l->e[l->n++].kind = m->kind;
}

/* Reads what is in the socket now; 1 at EOF. */
static int list_read(struct guard_list *l, int sock)
{
	struct guard_msg m;
	ssize_t k;

	while ((k = recv(sock, &m, sizeof m, MSG_DONTWAIT)) > 0)
		list_apply(l, &m, (size_t)k);
	return k == 0 || (k < 0 && errno != EAGAIN && errno != EINTR);
}

/* 1 undone, 0 nothing was there, -errno: the kind's row of the table */
static int undo(int kind, const char *name)
{
	if (!guardian.undo || !guardian.undo[kind].remove)
		return -ENOSYS;
	return guardian.undo[kind].remove(name);
}

static void guardian_undo_all(struct guard_list *l, pid_t owner)
{
	char done[2048] = "";
	size_t used = 0;

	for (int kind = 0; kind < LTAP_GUARD_NKINDS; kind++)
		for (int i = 0; i < l->n; i++) {
			int e;
			if (l->e[i].kind != kind)
				continue;
			e = undo(kind, l->e[i].name);
			if (e < 0)
				ltap_warn("guardian: cannot undo %s %s: %s", guardian.undo[kind].what, l->e[i].name,
					  strerror(-e));
			else if (e > 0 && used < sizeof done)
				used += (size_t)snprintf(done + used, sizeof done - used, "%s%s %s", used ? ", " : "",
							 guardian.undo[kind].what, l->e[i].name);
		}
	if (done[0])
		ltap_info("guardian: ltap %d ended without cleaning up: %s", (int)owner, done);
}

/* Keeps fds 0-2 (0 and 1 on /dev/null: a caller waiting for the end of
 * ltap's output must not wait for the guardian), sock and pidfd. */
static void guardian_close_fds(int sock, int pidfd)
{
	int keep[2] = {sock < pidfd ? sock : pidfd, sock < pidfd ? pidfd : sock};
	unsigned from = 3;
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);

	if (null >= 0) {
		dup2(null, 0);
		dup2(null, 1);
		if (null > 2 && null != sock && null != pidfd)
			close(null);
	}
	for (int i = 0; i < 2; i++) {
		if (keep[i] < 0)
			continue;
		if ((unsigned)keep[i] > from)
			close_range(from, (unsigned)keep[i] - 1, 0);
		from = (unsigned)keep[i] + 1;
	}
	close_range(from, ~0u, 0);
}

static void guardian_main(int sock, int pidfd, pid_t owner)
{
	struct guard_list l = {0};
	pid_t self;
	struct pollfd p[2] = {{.fd = sock, .events = POLLIN}, {.fd = pidfd, .events = POLLIN}};
	int fd;

	/* job control signals of ltap's terminal and group kills (kill -9 %1,
	 * timeout -s KILL) must not reach it; nothing else is for it either */
	setpgid(0, 0);
	/* what it says goes where the process's messages went (the ltap
	 * command's stderr), never to a host's callback: that is code of the
	 * process it outlives */
	ltap_log_enter(NULL);
	prctl(PR_SET_NAME, "ltap-guardian");
	guardian_close_fds(sock, pidfd);
	/* the OOM killer that took ltap leaves this small process alone */
	if ((fd = open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC)) >= 0) {
		if (write(fd, "-1000", 5) < 0) {
			/* not root: the default score of a tiny process is low anyway */
		}
		close(fd);
	}
	/* set up: ltap goes on, told who the guardian is (its parent has
	 * exited: the guardian is init's child now); from now on it makes no
	 * system call but poll() until ltap ends (a system-wide trace sees
	 * none of it) */
	self = getpid();
	if (send(sock, &self, sizeof self, MSG_NOSIGNAL) < 0)
		_exit(1);
	for (;;) {
		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (p[1].revents)
			break; /* ltap is gone */
		if (p[0].revents && list_read(&l, sock)) {
			/* ltap closed the socket: it is exiting. Nothing listed:
			 * it cleaned up. Else wait for its end (its files closed) */
			if (l.n == 0 || pidfd < 0)
				break;
			p[0].fd = -1;
		}
	}
	list_read(&l, sock);
	guardian_undo_all(&l, owner);
	_exit(0);
}

/* --- in ltap -------------------------------------------------------- */

/* fds 0-2 are set to /dev/null in the guardian: keep its own above them */
static int fd_above_stdio(int fd)
{
	int n;

	if (fd < 0 || fd > 2)
		return fd;
	n = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	close(fd);
	return n;
}

static int guardian_start(void)
{
	int sv[2], pidfd, e, st;
	sigset_t all, old;
	pid_t pid, self = getpid(), ready;
	ssize_t k;

	if (guardian.owner == getpid())
		return guardian.sock >= 0 ? 0 : -EPIPE;
	if (guardian.owner)
		return 0; /* a fork of ltap: its guardian is ltap's */
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		return -errno;
	sv[1] = fd_above_stdio(sv[1]);
	/* before the fork: the guardian cannot race ltap's death to open it */
	pidfd = fd_above_stdio((int)syscall(SYS_pidfd_open, self, 0));
	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, &old);
	/* forked twice: the guardian is nobody's child but init's, so it may
	 * outlive a host that leaves it work (an instance to remove) without
	 * a process to reap it, and a program hosting ltap keeps no zombie */
	pid = fork();
	if (pid == 0) {
		if (fork() != 0)
			_exit(0);
		/* a session of its own: what ends ltap's session or process group
		 * at once (a harness, kill -9 -PGID) leaves it the removals ltap
		 * handed it, and a terminal's hangup does not reach it */
		setsid();
		/* every signal stays blocked: only SIGKILL ends the guardian */
		close(sv[0]);
		guardian_main(sv[1], pidfd, self);
	}
	e = errno;
	if (pid > 0)
		while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
			;
	sigprocmask(SIG_SETMASK, &old, NULL);
	close(sv[1]);
	if (pidfd >= 0)
		close(pidfd);
	if (pid < 0) {
		close(sv[0]);
		return -e;
	}
	do
		k = recv(sv[0], &ready, sizeof ready, 0);
	while (k < 0 && errno == EINTR);
	if (k != sizeof ready) {
		close(sv[0]);
		return k < 0 ? -errno : -ECHILD;
	}
	guardian.owner = self;
	guardian.pid = ready;
	guardian.sock = sv[0];
	guardian.broken = 0;
	return 0;
}

static int guardian_send(char op, enum ltap_guard_kind kind, const char *name)
{
	struct guard_msg m = {.op = op, .kind = (char)kind};
	size_t len = strlen(name);

	if (len > sizeof m.name || kind < 0 || kind >= LTAP_GUARD_NKINDS)
		return -EINVAL;
	memcpy(m.name, name, len);
	if (send(guardian.sock, &m, 2 + len, MSG_NOSIGNAL) < 0) {
		int e = errno;
		if (!guardian.broken++)
			ltap_warn("guardian: cannot reach it (%s): if ltap is killed, nothing undoes %s",
				  strerror(e), name);
		return -e;
	}
	return 0;
}

int ltap_guardian_start(void)
{
	int e;

	pthread_mutex_lock(&guardian_lock);
	e = guardian_start();
	pthread_mutex_unlock(&guardian_lock);
	return e;
}

int ltap_guardian_add(enum ltap_guard_kind kind, const char *name)
{
	int e, reap;

	if (!guardian.undo) {
		ltap_err("guardian: cannot guard %s: no undo table (ltap_guardian_hold)", name);
		return -EINVAL;
	}
	pthread_mutex_lock(&guardian_lock);
	e = guardian_start();
	reap = guardian.reap;
	guardian.reap = 0;
	pthread_mutex_unlock(&guardian_lock);
	if (e)
		ltap_err("guardian: cannot start the process that undoes %s if ltap is killed: %s", name,
			 strerror(-e));
	if (e || guardian.owner != getpid())
		return e;
	if (reap)
		ltap_guardian_reap_stale(guardian.undo);
	pthread_mutex_lock(&guardian_lock);
	e = guardian_send('+', kind, name);
	pthread_mutex_unlock(&guardian_lock);
	return e;
}

void ltap_guardian_hold(const struct ltap_guard_undo *undo)
{
	pthread_mutex_lock(&guardian_lock);
	guardian.undo = undo;
	guardian.holders++;
	pthread_mutex_unlock(&guardian_lock);
}

void ltap_guardian_release(void)
{
	pthread_mutex_lock(&guardian_lock);
	if (--guardian.holders == 0 && guardian.owner == getpid() && guardian.sock >= 0) {
		/* no host left: the EOF ends it once it did what it was asked
		 * to do now (ltap_guardian_undo); nothing else is listed */
		close(guardian.sock);
		guardian.sock = -1;
		guardian.owner = guardian.pid = 0;
	}
	pthread_mutex_unlock(&guardian_lock);
}

int ltap_guardian_undo(enum ltap_guard_kind kind, const char *name)
{
	int e = -ENOTCONN;

	pthread_mutex_lock(&guardian_lock);
	if (guardian.owner == getpid() && guardian.sock >= 0)
		e = guardian_send('!', kind, name);
	pthread_mutex_unlock(&guardian_lock);
	return e;
}

void ltap_guardian_reap_first(void)
{
	guardian.reap = 1;
}

int ltap_guardian_forget(enum ltap_guard_kind kind, const char *name)
{
	int e = 0;

	pthread_mutex_lock(&guardian_lock);
	if (guardian.owner == getpid() && guardian.sock >= 0)
		e = guardian_send('-', kind, name);
	pthread_mutex_unlock(&guardian_lock);
	return e;
}

int ltap_guardian_pid(void)
{
	return guardian.owner == getpid() ? (int)guardian.pid : 0;
}

void ltap_guardian_reap_stale(const struct ltap_guard_undo *undo)
{
	for (int kind = 0; kind < LTAP_GUARD_NKINDS; kind++)
		if (undo[kind].reap_stale)
			undo[kind].reap_stale();
}
