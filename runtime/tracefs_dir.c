/* tracefs_dir.c: locates tracefs through /proc/mounts, mounts it when absent. */
#include "tracefs_dir.h"

#include "log.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <mntent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <tracefs.h>
#include <unistd.h>

static char tracefs_path[PATH_MAX];

static int tracefs_find_mounted(void)
{
	FILE *f = setmntent("/proc/mounts", "r");
	struct mntent *m;
	char debugfs[PATH_MAX] = "";

	if (!f)
		return -errno;
	while ((m = getmntent(f)) != NULL) {
		if (strcmp(m->mnt_type, "tracefs") == 0 && !tracefs_path[0])
			snprintf(tracefs_path, sizeof tracefs_path, "%s", m->mnt_dir);
		else if (strcmp(m->mnt_type, "debugfs") == 0 && !debugfs[0])
			snprintf(debugfs, sizeof debugfs, "%s/tracing", m->mnt_dir);
	}
	endmntent(f);
	if (!tracefs_path[0] && debugfs[0] && access(debugfs, F_OK) == 0 &&
	    access(debugfs, X_OK) == 0) {
		char probe[PATH_MAX + 16];
		snprintf(probe, sizeof probe, "%s/events", debugfs);
		if (access(probe, F_OK) == 0)
			snprintf(tracefs_path, sizeof tracefs_path, "%s", debugfs);
	}
	return tracefs_path[0] ? 0 : -ENOENT;
}

const char *ltap_tracefs_dir(void)
{
	static const char mnt[] = "/sys/kernel/tracing";

	if (tracefs_path[0])
		return tracefs_path;
	if (tracefs_find_mounted() == 0)
		goto found;
	if (access(mnt, F_OK) != 0) {
		ltap_err("tracefs: cannot mount tracefs on %s: %s (kernel without tracefs?)",
			 mnt, strerror(errno));
		errno = ENOENT;
		return NULL;
	}
	if (mount("nodev", mnt, "tracefs", 0, NULL) != 0) {
		int e = errno;
		ltap_err("tracefs: cannot mount tracefs on %s: %s%s", mnt, strerror(e),
			 e == EPERM ? " (run ltap as root)" : "");
		errno = e;
		return NULL;
	}
	snprintf(tracefs_path, sizeof tracefs_path, "%s", mnt);
found:
	/* libtracefs must use the same directory as we do */
	tracefs_set_tracing_dir(tracefs_path);
	return tracefs_path;
}

char *ltap_tracefs_read(const char *relpath, size_t *len)
{
	char path[PATH_MAX];
	const char *dir = ltap_tracefs_dir();
	char *buf = NULL;
	size_t cap = 0, n = 0;
	int fd;

	if (!dir)
		return NULL;
	snprintf(path, sizeof path, "%s/%s", dir, relpath);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	for (;;) {
		ssize_t r;
		if (n + 4097 > cap) {
			char *nb = realloc(buf, cap = cap ? cap * 2 : 8192);
			if (!nb) {
				free(buf);
				close(fd);
				errno = ENOMEM;
				return NULL;
			}
			buf = nb;
		}
		r = read(fd, buf + n, cap - n - 1);
		if (r < 0) {
			int e = errno;
			free(buf);
			close(fd);
			errno = e;
			return NULL;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	buf[n] = 0;
	if (len)
		*len = n;
	return buf;
}

int ltap_tracefs_write(const char *relpath, const char *s, int append)
{
	char path[PATH_MAX];
	const char *dir = ltap_tracefs_dir();
	size_t len = strlen(s);
	ssize_t w;
	int fd;

	if (!dir)
		return -errno;
	snprintf(path, sizeof path, "%s/%s", dir, relpath);
	fd = open(path, O_WRONLY | O_CLOEXEC | (append ? O_APPEND : O_TRUNC));
	if (fd < 0)
		return -errno;
	w = write(fd, s, len);
	if (w < 0) {
		int e = errno;
		close(fd);
		return -e;
	}
	close(fd);
	return 0;
}
