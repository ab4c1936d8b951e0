/* sandbox.h: what the trace.dat reader process (replay_reader.h) keeps
 * once it holds its input, so that a file made to exploit libtracecmd
 * gains a process that can do almost nothing: no new privileges, an
 * unprivileged uid (nobody's, when ltap runs as root), no capabilities,
 * no other file descriptor than its input, its pipe to ltap and a
 * sanitizer's report, and a seccomp filter that allows little more than
 * reading its input and writing its pipe: read, lseek and mmap (never
 * executable) of what it holds, memory, its own signals, its end. Any
 * other system call (open, exec, socket, ptrace, kill of another process,
 * fork...) fails with EPERM: refused, not killed, so a sanitizer build
 * still writes its report of what went wrong. */
#ifndef LTAP_SANDBOX_H
#define LTAP_SANDBOX_H

#include <stddef.h>
#include <sys/types.h>

struct ltap_sandbox {
	int in_fd;     /* read, lseek, mmap (not executable) */
	int out_fd;    /* write */
	int report_fd; /* write: a sanitizer's reports; -1 for none */
	uid_t uid;     /* the ids taken when running as root */
	gid_t gid;
};

/* nobody's ids (the password database's, else 65534): look them up before
 * forking, where the database may still be read. */
void ltap_sandbox_ids(uid_t *uid, gid_t *gid);

/* In the process to confine (single-threaded, just forked): every other
 * fd closed (0, 1 and 2 made /dev/null, except report_fd), then the ids,
 * capabilities, no_new_privs, not dumpable, the filter. parent: the pid
 * that must still be the parent (its death kills this process, which the
 * change of ids would otherwise forget), 0 for none. The fds keep their
 * numbers. 0, or -1 with the reason in why (then the process must end). */
int ltap_sandbox_enter(const struct ltap_sandbox *sb, pid_t parent, char *why, size_t len);

#endif
