/* sandbox.c: the reader process confined (sandbox.h). No libcap or
 * libseccomp: a few prctl and capset calls, and a BPF program of a few
 * dozen instructions written out here. */
#include "sandbox.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/audit.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pwd.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__x86_64__)
#define SANDBOX_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define SANDBOX_ARCH AUDIT_ARCH_AARCH64
#endif

void ltap_sandbox_ids(uid_t *uid, gid_t *gid)
{
	struct passwd pwd, *pw = NULL;
	char buf[1024];

	if (getpwnam_r("nobody", &pwd, buf, sizeof buf, &pw) != 0)
		pw = NULL;
	*uid = pw && pw->pw_uid ? pw->pw_uid : 65534;
	*gid = pw && pw->pw_gid ? pw->pw_gid : 65534;
}

static int fail(char *why, size_t len, const char *what)
{
	snprintf(why, len, "%s: %s", what, strerror(errno));
	return -1;
}

/* 0, 1 and 2 onto /dev/null (report_fd's number kept as it is), every fd
 * above them closed but the three kept. */
static int sandbox_fds(const struct ltap_sandbox *sb, char *why, size_t len)
{
	int keep[3] = {sb->in_fd, sb->out_fd, sb->report_fd}, null = open("/dev/null", O_RDWR | O_CLOEXEC);
	unsigned from = 3;

	if (null < 0)
		return fail(why, len, "/dev/null");
	for (int fd = 0; fd < 3; fd++)
		if (fd != sb->report_fd && fd != sb->in_fd && fd != sb->out_fd && dup2(null, fd) < 0)
			return fail(why, len, "dup2");
	close(null);
	/* the kept fds in order: close what lies between them */
	for (int i = 0; i < 3; i++)
		for (int j = i + 1; j < 3; j++)
			if (keep[j] < keep[i]) {
				int t = keep[i];
				keep[i] = keep[j];
				keep[j] = t;
			}
	for (int i = 0; i < 3; i++) {
		if (keep[i] < (int)from)
			continue;
		if ((unsigned)keep[i] > from && syscall(SYS_close_range, from, (unsigned)keep[i] - 1, 0) < 0)
			return fail(why, len, "close_range");
		from = (unsigned)keep[i] + 1;
	}
	if (syscall(SYS_close_range, from, ~0u, 0) < 0)
		return fail(why, len, "close_range");
	return 0;
}

/* root's power given up: the bounding set emptied while it can be, then
 * nobody's ids (which empties the permitted and effective sets), then
 * what is left cleared. A process that is not root keeps its ids (they
 * are already unprivileged) and drops any capability it had. */
static int sandbox_ids(const struct ltap_sandbox *sb, char *why, size_t len)
{
	struct __user_cap_header_struct h = {_LINUX_CAPABILITY_VERSION_3, 0};
	struct __user_cap_data_struct d[2];

	if (geteuid() == 0) {
		for (int cap = 0; cap < 64; cap++)
			if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) < 0 && errno != EINVAL)
				return fail(why, len, "PR_CAPBSET_DROP");
		if (setgroups(0, NULL) < 0 || setresgid(sb->gid, sb->gid, sb->gid) < 0 ||
		    setresuid(sb->uid, sb->uid, sb->uid) < 0)
			return fail(why, len, "dropping root's ids");
		if (geteuid() == 0 || getuid() == 0)
			return errno = EPERM, fail(why, len, "still root");
	}
	memset(d, 0, sizeof d);
	if (syscall(SYS_capset, &h, d) < 0)
		return fail(why, len, "capset");
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 && errno != EINVAL)
		return fail(why, len, "PR_CAP_AMBIENT");
	return 0;
}

static struct sock_filter stmt(unsigned short code, unsigned k)
{
	return (struct sock_filter)BPF_STMT(code, k);
}

/* if A == k (or A & k, for BPF_JSET) skip t instructions, else f */
static struct sock_filter jump(unsigned short op, unsigned k, unsigned char t, unsigned char f)
{
	return (struct sock_filter)BPF_JUMP(BPF_JMP | op | BPF_K, k, t, f);
}

#define LOAD(field) stmt(BPF_LD | BPF_W | BPF_ABS, (unsigned)offsetof(struct seccomp_data, field))
/* an argument's low 32 bits (int arguments: what the kernel reads of them) */
#define LOAD_ARG(i) stmt(BPF_LD | BPF_W | BPF_ABS, (unsigned)offsetof(struct seccomp_data, args[i]) + \
			 (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? 0 : 4))
#define RET(v) stmt(BPF_RET | BPF_K, (v))
#define ALLOW RET(SECCOMP_RET_ALLOW)
#define REFUSE RET(SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA))

/* the system calls allowed whatever their arguments */
static const int allowed[] = {
	SYS_read, SYS_pread64, SYS_readv, SYS_lseek, SYS_write, SYS_writev, SYS_close, SYS_dup,
	SYS_munmap, SYS_mremap, SYS_brk, SYS_madvise,
	SYS_exit, SYS_exit_group, SYS_rt_sigreturn, SYS_rt_sigprocmask, SYS_rt_sigaction, SYS_sigaltstack,
	SYS_getpid, SYS_gettid, SYS_futex, SYS_clock_gettime, SYS_gettimeofday, SYS_nanosleep,
	SYS_clock_nanosleep, SYS_sched_yield, SYS_getrandom, SYS_restart_syscall,
};

static int sandbox_filter(char *why, size_t len)
{
#ifdef SANDBOX_ARCH
	enum { N = sizeof allowed / sizeof allowed[0] };
	struct sock_filter f[8 + 2 * N + 12];
	struct sock_fprog prog = {0, f};
	int n = 0;

	f[n++] = LOAD(arch);
	f[n++] = jump(BPF_JEQ, SANDBOX_ARCH, 1, 0);
	f[n++] = RET(SECCOMP_RET_KILL_PROCESS); /* another ABI (int 0x80): never the reader's */
	f[n++] = LOAD(nr);
#ifdef __x86_64__
	f[n++] = jump(BPF_JGE, 0x40000000, 0, 1); /* x32 */
	f[n++] = REFUSE;
#endif
	for (int i = 0; i < N; i++) {
		f[n++] = jump(BPF_JEQ, (unsigned)allowed[i], 0, 1);
		f[n++] = ALLOW;
	}
	/* mmap and mprotect, never executable: no code but what is loaded */
	f[n++] = jump(BPF_JEQ, SYS_mmap, 1, 0);
	f[n++] = jump(BPF_JEQ, SYS_mprotect, 0, 4);
	f[n++] = LOAD_ARG(2);
	f[n++] = jump(BPF_JSET, PROT_EXEC, 0, 1);
	f[n++] = REFUSE;
	f[n++] = ALLOW;
	/* tgkill of itself only (abort, raise) */
	f[n++] = jump(BPF_JEQ, SYS_tgkill, 0, 4);
	f[n++] = LOAD_ARG(0);
	f[n++] = jump(BPF_JEQ, (unsigned)getpid(), 1, 0);
	f[n++] = REFUSE;
	f[n++] = ALLOW;
	/* everything else: open, exec, socket, ptrace, fork, kill, ... */
	f[n++] = REFUSE;
	prog.len = (unsigned short)n;
	if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0) < 0)
		return fail(why, len, "seccomp");
	return 0;
#else
	snprintf(why, len, "no seccomp filter for this architecture");
	return -1;
#endif
}

int ltap_sandbox_enter(const struct ltap_sandbox *sb, pid_t parent, char *why, size_t len)
{
	if (sandbox_fds(sb, why, len) || sandbox_ids(sb, why, len))
		return -1;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return fail(why, len, "PR_SET_NO_NEW_PRIVS");
	/* not even nobody's other processes may look inside or ptrace it */
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0)
		return fail(why, len, "PR_SET_DUMPABLE");
	/* a change of ids forgets the parent-death signal: set again */
	if (parent && (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0 || getppid() != parent)) {
		snprintf(why, len, "its parent has gone");
		return -1;
	}
	return sandbox_filter(why, len);
}
