/* test_sandbox.c: the trace.dat reader's sandbox (runtime/sandbox.h) in a
 * forked child, as replay_spawn uses it: what the reader needs works (read,
 * lseek and mmap of its input, writing its pipe and its report fd, memory,
 * abort of itself), and what code a crafted file got to run would want is
 * refused with EPERM: opening any file (open, openat, /proc, a directory),
 * exec, a socket, fork, ptrace, a signal to another process, executable
 * memory, a write to a fd it does not hold, getting root back. The parent
 * reads the child's /proc status: nobody's ids (as root), no capability in
 * any set, no_new_privs, a seccomp filter, not dumpable. */
#include "check.h"
#include "sandbox.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/* each check of the child, a line: "name ok" or "name FAIL errno" */
static void say(int fd, const char *name, int ok, int err)
{
	char line[128];
	int n = ok ? snprintf(line, sizeof line, "%s ok\n", name) : snprintf(line, sizeof line, "%s FAIL %d\n", name, err);
	if (write(fd, line, (size_t)n) != n)
		_exit(3);
}

/* refused: the call failed with EPERM */
#define REFUSED(name, call) do { errno = 0; long r_ = (long)(call); say(out, name, r_ == -1 && errno == EPERM, errno); } while (0)

/* in: a pipe the parent writes a file's first bytes into, then the word
 * to end; report: a memfd holding a file (as a sanitizer's report fd) */
static void child(int in, int out, int report, pid_t parent)
{
	struct ltap_sandbox sb = {in, out, report, 65534, 65534};
	char why[256], buf[16], *argv[] = {"/bin/true", NULL};
	void *m;

	if (ltap_sandbox_enter(&sb, parent, why, sizeof why)) {
		dprintf(out, "enter FAIL %s\n", why);
		_exit(2);
	}
	/* what the reader does */
	say(out, "read_input", read(in, buf, 4) == 4 && memcmp(buf, "\x17\x08\x44t", 4) == 0, errno);
	say(out, "lseek_file", lseek(report, 0, SEEK_SET) == 0, errno);
	m = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, report, 0);
	say(out, "mmap_file", m != MAP_FAILED && memcmp(m, "\x17\x08\x44t", 4) == 0, errno);
	m = malloc(64 << 20);
	say(out, "malloc_64M", m != NULL && memset(m, 1, 64 << 20) != NULL, errno);
	free(m);
	say(out, "write_report", lseek(report, 0, SEEK_END) == 12 && write(report, "r", 1) == 1, errno);
	say(out, "dup_input", dup(in) >= 0, errno);
	/* what it must not */
	REFUSED("open", syscall(SYS_open, "/etc/passwd", O_RDONLY));
	REFUSED("openat", openat(AT_FDCWD, "/etc/hostname", O_RDONLY));
	REFUSED("openat_proc", openat(AT_FDCWD, "/proc/self/status", O_RDONLY));
	REFUSED("openat_create", openat(AT_FDCWD, "/tmp/ltap-sandbox-test", O_WRONLY | O_CREAT, 0644));
	REFUSED("execve", execve("/bin/true", argv, argv + 1));
	REFUSED("execveat", syscall(SYS_execveat, AT_FDCWD, "/bin/true", argv, argv + 1, 0));
	REFUSED("socket", socket(AF_INET, SOCK_STREAM, 0));
	REFUSED("fork", syscall(SYS_fork));
	REFUSED("clone", syscall(SYS_clone, SIGCHLD, 0, 0, 0, 0));
	REFUSED("ptrace", ptrace(PTRACE_ATTACH, parent, 0, 0));
	REFUSED("kill_parent", kill(parent, SIGTERM));
	REFUSED("tgkill_parent", syscall(SYS_tgkill, parent, parent, SIGTERM));
	REFUSED("mmap_exec", (intptr_t)mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
	m = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	REFUSED("mprotect_exec", mprotect(m, 4096, PROT_READ | PROT_EXEC));
	REFUSED("setuid_root", syscall(SYS_setuid, 0));
	REFUSED("prctl", prctl(PR_SET_DUMPABLE, 1, 0, 0, 0));
	REFUSED("chdir", chdir("/"));
	REFUSED("unlink", unlink("/tmp/x"));
	/* an fd it does not hold: closed before the filter */
	errno = 0;
	say(out, "write_other_fd", write(9, "x", 1) == -1 && errno == EBADF, errno);
	say(out, "done", 1, 0);
	/* wait until the parent has read /proc; then abort itself (tgkill of
	 * itself, allowed) */
	(void)!read(in, buf, 1);
	abort();
}

/* the value of "Key:" in /proc/PID/status */
static void status(pid_t pid, const char *key, char *val, size_t len)
{
	char path[64], line[256];
	FILE *f;

	snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
	val[0] = 0;
	if (!(f = fopen(path, "r")))
		return;
	while (fgets(line, sizeof line, f))
		if (strncmp(line, key, strlen(key)) == 0 && line[strlen(key)] == ':') {
			char *v = line + strlen(key) + 1;
			while (*v == ' ' || *v == '\t')
				v++;
			v[strcspn(v, "\n")] = 0;
			snprintf(val, len, "%s", v);
		}
	fclose(f);
}

int main(void)
{
	char buf[4096], v[128];
	int in[2], out[2], report = memfd_create("report", 0), st = 0;
	size_t got = 0;
	ssize_t n;
	pid_t pid, parent = getpid();
	int root = geteuid() == 0;

	CHECK(report >= 0 && pipe(in) == 0 && pipe(out) == 0);
	CHECK(write(report, "\x17\x08\x44tracing6", 12) == 12);
	CHECK(write(in[1], "\x17\x08\x44t", 4) == 4);
	pid = fork();
	if (pid == 0) {
		close(out[0]);
		close(in[1]);
		child(in[0], out[1], report, parent);
	}
	close(out[1]);
	close(in[0]);
	buf[0] = 0;
	while (got < sizeof buf - 1 && !strstr(buf, "done ") && (n = read(out[0], buf + got, sizeof buf - 1 - got)) > 0)
		buf[got += (size_t)n] = 0;
	printf("%s", buf);
	CHECK(strstr(buf, "done ok") != NULL);
	CHECK(strstr(buf, "FAIL") == NULL);
	/* the child as the kernel sees it */
	status(pid, "Uid", v, sizeof v);
	printf("Uid: %s\n", v);
	CHECK(root ? strcmp(v, "65534\t65534\t65534\t65534") == 0 : v[0] != 0);
	status(pid, "Gid", v, sizeof v);
	CHECK(!root || strcmp(v, "65534\t65534\t65534\t65534") == 0);
	status(pid, "Groups", v, sizeof v);
	CHECK(!root || v[0] == 0);
	for (int i = 0; i < 5; i++) {
		const char *caps[] = {"CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"};
		status(pid, caps[i], v, sizeof v);
		printf("%s: %s\n", caps[i], v);
		/* (not root: the bounding set cannot be emptied) */
		CHECK(strcmp(v, "0000000000000000") == 0 || (!root && i == 3));
	}
	status(pid, "NoNewPrivs", v, sizeof v);
	CHECK(strcmp(v, "1") == 0);
	status(pid, "Seccomp", v, sizeof v);
	printf("Seccomp: %s\n", v);
	CHECK(strcmp(v, "2") == 0);
	status(pid, "Seccomp_filters", v, sizeof v);
	CHECK(strcmp(v, "1") == 0);
	/* the report fd was written; the child ends by its own abort */
	CHECK(lseek(report, 0, SEEK_END) == 13);
	CHECK(write(in[1], "g", 1) == 1);
	CHECK(waitpid(pid, &st, 0) == pid);
	CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGABRT);
	printf("%d checks, %d failed\n", checks, failures);
	return failures != 0;
}
