/* cgroup.c: the command's own cgroup v2: made, ended (SIGTERM, cgroup.kill),
 * removed; and those of dead ltaps reaped at start. */
#include "cgroup.h"

#include "guardian.h"
#include "log.h"
#include "owner.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CGROUP_PREFIX "ltap-"
#define CGROUP_POLL_US 5000

/* The directory of ltap's own cgroup in the cgroup2 hierarchy. */
static int cgroup_base(char *out, size_t len, char *why, size_t wlen)
{
	char line[4096], mnt[2048] = "", own[2048] = "";
	FILE *f = fopen("/proc/mounts", "r");

	while (f && fgets(line, sizeof line, f)) {
		char dev[256], dir[2048], type[64];
		if (sscanf(line, "%255s %2047s %63s", dev, dir, type) == 3 && strcmp(type, "cgroup2") == 0) {
			snprintf(mnt, sizeof mnt, "%s", dir);
			break;
		}
	}
	if (f)
		fclose(f);
	if (!mnt[0]) {
		snprintf(why, wlen, "no cgroup2 file system is mounted");
		return -ENOENT;
	}
	f = fopen("/proc/self/cgroup", "r");
	while (f && fgets(line, sizeof line, f))
		if (strncmp(line, "0::", 3) == 0) {
			snprintf(own, sizeof own, "%.*s", (int)strcspn(line + 3, "\n"), line + 3);
			break;
		}
	if (f)
		fclose(f);
	if (!own[0]) {
		snprintf(why, wlen, "ltap's own cgroup v2 is not in /proc/self/cgroup");
		return -ENOENT;
	}
	if ((size_t)snprintf(out, len, "%s%s", mnt, strcmp(own, "/") == 0 ? "" : own) >= len) {
		snprintf(why, wlen, "the path of ltap's own cgroup is longer than %zu bytes", len - 1);
		return -ENAMETOOLONG;
	}
	return 0;
}

static int cgroup_write(const char *dir, const char *file, const char *s)
{
	char path[4200];
	int fd, e = 0;

	if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, file) >= sizeof path)
		return -ENAMETOOLONG;
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (write(fd, s, strlen(s)) < 0)
		e = -errno;
	close(fd);
	return e;
}

char *ltap_cgroup_make(pid_t pid, char *why, size_t len)
{
	char base[2100], path[4200], num[32];
	int e;

	if (cgroup_base(base, sizeof base, why, len))
		return NULL;
	snprintf(path, sizeof path, "%s/" CGROUP_PREFIX "%d-%d", base, (int)getpid(), (int)pid);
	/* listed first: if ltap is killed from here on, the guardian ends the
	 * command's tree and removes the cgroup */
	if ((e = ltap_guardian_add(LTAP_GUARD_CGROUP, path)) != 0) {
		snprintf(why, len, "cannot have %s guarded: %s", path, strerror(-e));
		return NULL;
	}
	if (mkdir(path, 0755) < 0) {
		snprintf(why, len, "cannot make %s: %s", path, strerror(errno));
		ltap_guardian_forget(LTAP_GUARD_CGROUP, path);
		return NULL;
	}
	snprintf(num, sizeof num, "%d\n", (int)pid);
	if ((e = cgroup_write(path, "cgroup.procs", num)) != 0) {
		snprintf(why, len, "cannot move the command into %s: %s", path, strerror(-e));
		rmdir(path);
		ltap_guardian_forget(LTAP_GUARD_CGROUP, path);
		return NULL;
	}
	return strdup(path);
}

int ltap_cgroup_empty(const char *path)
{
	char file[4200], line[64];
	int empty = 1;
	FILE *f;

	snprintf(file, sizeof file, "%s/cgroup.events", path);
	f = fopen(file, "r");
	if (!f && errno == ENOENT) {
		/* cgroup v1 has no cgroup.events: whether cgroup.procs lists a
		 * process (none there: the cgroup is gone already) */
		int pid;
		snprintf(file, sizeof file, "%s/cgroup.procs", path);
		if (!(f = fopen(file, "r")))
			return errno == ENOENT;
		empty = fscanf(f, "%d", &pid) != 1;
		fclose(f);
		return empty;
	}
	if (!f)
		return 0;
	while (fgets(line, sizeof line, f))
		if (strncmp(line, "populated ", 10) == 0)
			empty = line[10] == '0';
	fclose(f);
	return empty;
}

/* sig to every process in the cgroup; the number signalled */
static int cgroup_signal(const char *path, int sig)
{
	char file[4200];
	int pid, n = 0;
	FILE *f;

	snprintf(file, sizeof file, "%s/cgroup.procs", path);
	f = fopen(file, "r");
	while (f && fscanf(f, "%d", &pid) == 1)
		n += kill(pid, sig) == 0;
	if (f)
		fclose(f);
	return n;
}

/* waits up to ms for the cgroup to empty; 1 when it did */
static int cgroup_wait_empty(const char *path, int ms)
{
	for (int waited = 0;; waited += CGROUP_POLL_US / 1000) {
		if (ltap_cgroup_empty(path))
			return 1;
		if (waited >= ms)
			return 0;
		usleep(CGROUP_POLL_US);
	}
}

int ltap_cgroup_remove(const char *path)
{
	for (int round = 0; round < 200 && !ltap_cgroup_empty(path); round++) {
		/* cgroup.kill (5.14) also gets what forks meanwhile; before it, a
		 * SIGKILL to each listed process per round does */
		if (cgroup_write(path, "cgroup.kill", "1") != 0)
			cgroup_signal(path, SIGKILL);
		cgroup_wait_empty(path, 50);
	}
	/* the last exits leave the cgroup a moment after cgroup.events says so */
	for (int i = 0; i < 200; i++) {
		if (rmdir(path) == 0)
			return 1;
		if (errno == ENOENT)
			return 0;
		if (errno != EBUSY)
			break;
		usleep(CGROUP_POLL_US);
	}
	return -errno;
}

int ltap_cgroup_end(const char *path, int grace_ms)
{
	int e;

	if (!path)
		return 0;
	if (grace_ms > 0 && !ltap_cgroup_empty(path) && cgroup_signal(path, SIGTERM))
		cgroup_wait_empty(path, grace_ms);
	if ((e = ltap_cgroup_remove(path)) >= 0) {
		ltap_guardian_forget(LTAP_GUARD_CGROUP, path);
		return 0;
	}
	ltap_warn("target: cannot remove the command's cgroup %s: %s", path, strerror(-e));
	return e;
}

int ltap_cgroup_reap_stale(void)
{
	char base[2100], path[4400], why[256];
	struct dirent *de;
	DIR *d;
	int n = 0;

	if (cgroup_base(base, sizeof base, why, sizeof why) || !(d = opendir(base)))
		return 0;
	while ((de = readdir(d)) != NULL) {
		int owner, cmd;
		char tail;
		if (sscanf(de->d_name, CGROUP_PREFIX "%d-%d%c", &owner, &cmd, &tail) != 2 || owner == getpid() ||
		    ltap_owner_alive(owner))
			continue;
		snprintf(path, sizeof path, "%s/%s", base, de->d_name);
		if (ltap_cgroup_end(path, 0) == 0) {
			ltap_info("target: ended the command of a dead ltap (%s)", de->d_name);
			n++;
		}
	}
	closedir(d);
	return n;
}
