/* disasm.c: what ltap annotate reads besides samples.
 *
 *   ltap.disasm(PATH, SYMBOL) -> {start=, size=, insns = {{addr=, size=, text=, file=, line=}, ...}}
 *                                or nil, msg: SYMBOL's instructions as objdump -d
 *                                writes them, with their source lines (runtime/disasm.h)
 *   ltap.source(FILE, BINARY) -> {line1, line2, ...} or nil, msg: a source file's lines
 *
 * ltap runs as root, and a binary's DWARF may name any file: a source file
 * is read only when the owner of BINARY could read it too (it is readable
 * by everyone, or owned by BINARY's owner), when it is a regular file, and
 * up to 16 MiB. */
#include "ldisasm.h"

#include "disasm.h"

#include <errno.h>
#include <fcntl.h>
#include <lauxlib.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define DISASM_MAX_BYTES (1u << 20) /* a function larger than this is not one */
#define SOURCE_MAX (16u << 20)

static int disasm_fail(lua_State *L, const char *fmt, const char *a, const char *b)
{
	lua_pushnil(L);
	lua_pushfstring(L, fmt, a, b);
	return 2;
}

int disasm_disasm(lua_State *L)
{
	const char *path = luaL_checkstring(L, 1), *name = luaL_checkstring(L, 2);
	struct ltap_disasm *d = ltap_disasm_open(path);
	struct ltap_insn *ins;
	uint64_t start, size;
	int n;

	if (!d && errno == ELIBACC)
		return disasm_fail(L, "cannot disassemble %s: %s", path, ltap_disasm_unavailable());
	if (!d)
		return disasm_fail(L, "cannot read %s: %s", path,
				   errno == ENOTSUP ? "not an x86-64 ELF file" : errno == ENOEXEC ? "not an ELF file" : strerror(errno));
	if (ltap_disasm_find(d, name, &start, &size)) {
		ltap_disasm_close(d);
		return disasm_fail(L, "%s has no function %s", path, name);
	}
	if (size > DISASM_MAX_BYTES) {
		ltap_disasm_close(d);
		return disasm_fail(L, "%s: function %s is larger than 1 MiB", path, name);
	}
	n = ltap_disasm_range(d, start, size, (int)size, &ins);
	if (n < 0) {
		ltap_disasm_close(d);
		return disasm_fail(L, "%s: cannot read the code of %s", path, name);
	}
	lua_createtable(L, 0, 3);
	lua_pushinteger(L, (lua_Integer)start);
	lua_setfield(L, -2, "start");
	lua_pushinteger(L, (lua_Integer)size);
	lua_setfield(L, -2, "size");
	lua_createtable(L, n, 0);
	for (int i = 0; i < n; i++) {
		lua_createtable(L, 0, 5);
		lua_pushinteger(L, (lua_Integer)ins[i].addr);
		lua_setfield(L, -2, "addr");
		lua_pushinteger(L, ins[i].size);
		lua_setfield(L, -2, "size");
		lua_pushstring(L, ins[i].text);
		lua_setfield(L, -2, "text");
		if (ins[i].file) {
			lua_pushstring(L, ins[i].file);
			lua_setfield(L, -2, "file");
			lua_pushinteger(L, ins[i].line);
			lua_setfield(L, -2, "line");
		}
		lua_rawseti(L, -2, i + 1);
	}
	lua_setfield(L, -2, "insns");
	free(ins);
	ltap_disasm_close(d);
	return 1;
}

int disasm_source(lua_State *L)
{
	const char *file = luaL_checkstring(L, 1), *binary = luaL_checkstring(L, 2);
	struct stat bin, st;
	char *text, *p;
	size_t len;
	int fd, k = 0;

	if (stat(binary, &bin) != 0)
		return disasm_fail(L, "cannot read %s: %s", binary, strerror(errno));
	fd = open(file, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return disasm_fail(L, "cannot read %s: %s", file, strerror(errno));
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > SOURCE_MAX) {
		close(fd);
		return disasm_fail(L, "not reading %s: %s", file, "not a regular file of at most 16 MiB");
	}
	if (!(st.st_mode & S_IROTH) && st.st_uid != bin.st_uid) {
		close(fd);
		return disasm_fail(L, "not reading %s: the owner of %s could not", file, binary);
	}
	/* from the descriptor checked, not the path again */
	text = malloc((size_t)st.st_size + 1);
	for (len = 0; text && len < (size_t)st.st_size;) {
		ssize_t r = read(fd, text + len, (size_t)st.st_size - len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		len += (size_t)r;
	}
	close(fd);
	if (!text)
		return disasm_fail(L, "cannot read %s: %s", file, strerror(ENOMEM));
	lua_createtable(L, 256, 0);
	for (p = text; p < text + len;) {
		char *nl = memchr(p, '\n', (size_t)(text + len - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(text + len - p);
		lua_pushlstring(L, p, n);
		lua_rawseti(L, -2, ++k);
		p += n + 1;
	}
	free(text);
	return 1;
}
