/* dwfile.c: see dwfile.h. */
#include "dwfile.h"

#include "symtab.h"

#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Whether only root can write to path's directory (and to its .debug). */
static int dir_trusted(const char *path)
{
	char dir[4096];
	struct stat st;

	snprintf(dir, sizeof dir, "%s", path);
	return stat(dirname(dir), &st) == 0 && st.st_uid == 0 && !(st.st_mode & (S_IWGRP | S_IWOTH));
}

/* Whether the debug file at path goes with f: the same build id, or when f
 * has none, the CRC its .gnu_debuglink records. fd: its descriptor. */
static int debug_file_matches(struct ltap_dwfile *f, const char *path, GElf_Word crc, int *fd)
{
	struct ltap_elf *d = ltap_elf_open(path);
	const unsigned char *id, *did;
	size_t len = ltap_elf_build_id(f->elf, &id), dlen;
	int ok;

	if (!d)
		return 0;
	dlen = ltap_elf_build_id(d, &did);
	ok = len ? dlen == len && memcmp(id, did, len) == 0 : ltap_elf_crc32(d) == crc;
	if (ok)
		*fd = ltap_elf_take_fd(d);
	ltap_elf_close(d);
	return ok && *fd >= 0;
}

/* libdwfl's search for a module's separate debug info, without its last
 * resort (debuginfod): by build id in /usr/lib/debug/.build-id (libdwfl's
 * own search), then by the .gnu_debuglink name in /usr/lib/debug/DIR, and
 * for a file in a directory only root may write to, first in DIR and
 * DIR/.debug, the order elfutils tries. */
static int find_debuginfo(Dwfl_Module *mod, void **ud, const char *modname, GElf_Addr base,
			  const char *file_name, const char *debuglink, GElf_Word crc, char **debug_name)
{
	struct ltap_dwfile *f = *ud;
	char dir[4096], path[8192];
	const char *const where[] = {"%s/%s", "%s/.debug/%s", "/usr/lib/debug%s/%s"};
	int fd = dwfl_build_id_find_debuginfo(mod, ud, modname, base, file_name, debuglink, crc, debug_name);

	if (fd >= 0 || !f || !debuglink)
		return fd;
	if (debuglink[0] == '/') { /* a dwz file (.gnu_debugaltlink), by its path: only a system one */
		struct ltap_elf *d = strncmp(debuglink, "/usr/lib/debug/", 15) == 0 ? ltap_elf_open(debuglink) : NULL;
		fd = d ? ltap_elf_take_fd(d) : -1;
		ltap_elf_close(d);
		if (fd >= 0)
			*debug_name = strdup(debuglink);
		errno = 0;
		return fd;
	}
	if (strchr(debuglink, '/'))
		return -1;
	snprintf(dir, sizeof dir, "%s", f->path);
	for (size_t i = f->trusted ? 0 : 2; i < sizeof where / sizeof *where; i++) {
		snprintf(path, sizeof path, where[i], dirname(dir), debuglink);
		snprintf(dir, sizeof dir, "%s", f->path);
		if (strcmp(path, f->path) != 0 && debug_file_matches(f, path, crc, &fd)) {
			*debug_name = strdup(path);
			return fd;
		}
	}
	errno = 0; /* nothing found: not an error */
	return -1;
}

/* debuginfo_path: where dwfl_build_id_find_debuginfo looks (.build-id/) */
static char debug_dir[] = "/usr/lib/debug";
static char *debug_path = debug_dir;
static const Dwfl_Callbacks callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = find_debuginfo,
	.section_address = dwfl_offline_section_address,
	.debuginfo_path = &debug_path,
};

int ltap_dwfile_open(struct ltap_dwfile *f, const char *path)
{
	void **ud;
	int fd;

	memset(f, 0, sizeof *f);
	f->path = path;
	if (!(f->elf = ltap_elf_open(path)))
		return -(errno ? errno : ENOEXEC);
	if (!(f->dwfl = dwfl_begin(&callbacks)) || (fd = ltap_elf_take_fd(f->elf)) < 0)
		goto fail;
	f->trusted = dir_trusted(path);
	/* libdwfl owns fd once the module is reported */
	f->mod = dwfl_report_elf(f->dwfl, path, path, fd, 0, false);
	dwfl_report_end(f->dwfl, NULL, NULL);
	if (!f->mod) {
		close(fd);
		goto fail;
	}
	if (!(f->main = dwfl_module_getelf(f->mod, &f->bias)))
		goto fail;
	dwfl_module_info(f->mod, &ud, NULL, NULL, NULL, NULL, NULL, NULL);
	*ud = f; /* for find_debuginfo */
	return 0;
fail:
	ltap_dwfile_close(f);
	return -ENOEXEC;
}

void ltap_dwfile_close(struct ltap_dwfile *f)
{
	ltap_symtab_free(f->tab);
	if (f->dwfl)
		dwfl_end(f->dwfl);
	ltap_elf_close(f->elf);
	memset(f, 0, sizeof *f);
}

struct ltap_symtab *ltap_dwfile_symtab(struct ltap_dwfile *f)
{
	if (!f->tab)
		f->tab = ltap_symtab_new(f->mod);
	return f->tab;
}

int ltap_dwfile_func(struct ltap_dwfile *f, const char *name, uint64_t *offset, uint64_t *size)
{
	struct ltap_symtab *t = ltap_dwfile_symtab(f);
	const struct ltap_symtab_sym *s;

	if (!t)
		return -ENOMEM;
	if (!(s = ltap_symtab_func(t, name, 0)) || ltap_elf_addr_offset(f->elf, s->addr - f->bias, offset))
		return -ENOENT;
	*size = s->size;
	return 0;
}
