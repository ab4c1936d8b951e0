/* libpath.c: a probe's binary or library by name, as a shell finds a
 * command and the dynamic linker a library (without its cache). */
#include "libpath.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define LIB_DIRS "/lib/x86_64-linux-gnu:/usr/lib/x86_64-linux-gnu:/lib64:/usr/lib64:/lib:/usr/lib:/usr/local/lib"

/* "lib<name>.so*" or "<name>.so*" or "<name>" */
static int lib_name_matches(const char *file, const char *name)
{
	size_t n = strlen(name);
	if (strcmp(file, name) == 0)
		return 1;
	if (strncmp(file, "lib", 3) == 0 && strncmp(file + 3, name, n) == 0 && strncmp(file + 3 + n, ".so", 3) == 0)
		return 1;
	return strncmp(file, name, n) == 0 && strncmp(file + n, ".so", 3) == 0;
}

/* a library directory also holds linker scripts named like libraries
 * (libc.so is one): only an ELF file is a library */
static int is_elf(const char *path)
{
	char magic[4];
	FILE *f = fopen(path, "rb");
	int ok = f && fread(magic, 1, 4, f) == 4 && memcmp(magic, "\177ELF", 4) == 0;
	if (f)
		fclose(f);
	return ok;
}

static int find_in_maps(int pid, const char *name, char *out, size_t len)
{
	char path[64], line[4400];
	FILE *f;
	int found = 0;

	snprintf(path, sizeof path, "/proc/%d/maps", pid);
	if (!(f = fopen(path, "r")))
		return 0;
	while (!found && fgets(line, sizeof line, f)) {
		char *file = strchr(line, '/');
		if (!file)
			continue;
		file[strcspn(file, "\n")] = 0;
		if (lib_name_matches(strrchr(file, '/') + 1, name)) {
			snprintf(out, len, "%s", file);
			found = 1;
		}
	}
	fclose(f);
	return found;
}

/* libs 0: DIR/name executable, as $PATH; 1: a library file matching name */
static int find_in_dirs(const char *dirs, const char *name, int libs, char *out, size_t len)
{
	char copy[4096];
	snprintf(copy, sizeof copy, "%s", dirs);
	for (char *save, *d = strtok_r(copy, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
		DIR *dir;
		struct dirent *de;
		int found = 0;
		if (!libs) {
			snprintf(out, len, "%s/%s", d, name);
			if (access(out, X_OK) == 0)
				return 1;
			continue;
		}
		if (!(dir = opendir(d)))
			continue;
		while (!found && (de = readdir(dir)) != NULL)
			if (lib_name_matches(de->d_name, name)) {
				snprintf(out, len, "%s/%s", d, de->d_name);
				found = is_elf(out);
			}
		closedir(dir);
		if (found)
			return 1;
	}
	return 0;
}

int ltap_libpath_search(const char *name, int pid, const char *bindirs, const char *libdirs,
			char *out, size_t len)
{
	char found[PATH_MAX], *real;
	int n;

	if (strchr(name, '/')) {
		snprintf(found, sizeof found, "%s", name);
	} else if (!(pid && find_in_maps(pid, name, found, sizeof found)) &&
		   !find_in_dirs(bindirs, name, 0, found, sizeof found) &&
		   !find_in_dirs(libdirs, name, 1, found, sizeof found)) {
		out[0] = 0;
		return -ENOENT;
	}
	real = realpath(found, NULL);
	if (!real) {
		int e = errno;
		snprintf(out, len, "%s", found);
		return -e;
	}
	n = snprintf(out, len, "%s", real);
	free(real);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

int ltap_libpath_find(const char *name, int pid, char *out, size_t len)
{
	const char *path = getenv("PATH");
	return ltap_libpath_search(name, pid, path ? path : "/usr/bin:/bin", LIB_DIRS, out, len);
}
