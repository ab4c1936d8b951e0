/* uprobe.c: probe specs for user space, turned into kernel uprobes when the
 * script declares them (the event must exist for its format, so the probe's
 * fields resolve at load time like a tracepoint's):
 *
 *   u:PATH:FUNC[+OFF]  uprobe:...    entry of FUNC; e.arg1 .. e.arg6 (x86-64 ABI registers)
 *   u:PATH:0xADDR                    a link-time address
 *   ur:PATH:FUNC       uretprobe:... return of FUNC; e.ret
 *   usdt:PATH:[PROVIDER:]NAME        an SDT marker; e.arg1 .. from the note's argument spec
 *
 * followed by optional " argN:string" / " ret:string" to read a C string from
 * user memory in the kernel. PATH is a file, or a name looked up as the
 * -p target's mapped files, then $PATH, then the library directories
 * ("libc" finds libc.so.6). */
#include "ctx.h"

#include "catalog.h"
#include "elfsym.h"
#include "instance.h"
#include "uprobe.h"

#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <lauxlib.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const arg_regs[] = {"%di", "%si", "%dx", "%cx", "%r8", "%r9"};

enum { U_ENTRY, U_RETURN, U_SDT };

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

static int find_in_maps(pid_t pid, const char *name, char *out, size_t len)
{
	char path[64], line[4400];
	FILE *f;
	int found = 0;

	snprintf(path, sizeof path, "/proc/%d/maps", (int)pid);
	if (!(f = fopen(path, "r")))
		return 0;
	while (!found && fgets(line, sizeof line, f)) {
		char *file = strchr(line, '/'), *base;
		if (!file)
			continue;
		file[strcspn(file, "\n")] = 0;
		base = strrchr(file, '/') + 1;
		if (lib_name_matches(base, name)) {
			snprintf(out, len, "%s", file);
			found = 1;
		}
	}
	fclose(f);
	return found;
}

static int find_in_dirs(const char *dirs, const char *name, int libs, char *out, size_t len)
{
	char copy[4096];
	snprintf(copy, sizeof copy, "%s", dirs);
	for (char *d = strtok(copy, ":"); d; d = strtok(NULL, ":")) {
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
				found = 1;
			}
		closedir(dir);
		if (found)
			return 1;
	}
	return 0;
}

static void uprobe_resolve_path(lua_State *L, struct ltap_ctx *ctx, const char *name, char *out, size_t len)
{
	char found[PATH_MAX];
	const char *path = getenv("PATH");

	if (strchr(name, '/')) {
		snprintf(found, sizeof found, "%s", name);
	} else if (!(ctx->opt.pid && find_in_maps(ctx->opt.pid, name, found, sizeof found)) &&
		   !find_in_dirs(path ? path : "/usr/bin:/bin", name, 0, found, sizeof found) &&
		   !find_in_dirs("/lib/x86_64-linux-gnu:/usr/lib/x86_64-linux-gnu:/lib64:/usr/lib64:/lib:/usr/lib:/usr/local/lib",
				 name, 1, found, sizeof found)) {
		luaL_error(L, "uprobe: no binary or library '%s' (not in $PATH or the library directories)", name);
	}
	if (!realpath(found, out))
		luaL_error(L, "uprobe: %s: %s", found, strerror(errno));
	(void)len;
}

/* One SDT argument "-4@%edi", "8@-16(%rbp)", "4@$5" as a fetcharg. */
static int sdt_fetcharg(const char *arg, int i, char *out, size_t len)
{
	static const struct { const char *names[4]; const char *reg; } regs[] = {
		{{"rax", "eax", "ax", "al"}, "%ax"}, {{"rbx", "ebx", "bx", "bl"}, "%bx"},
		{{"rcx", "ecx", "cx", "cl"}, "%cx"}, {{"rdx", "edx", "dx", "dl"}, "%dx"},
		{{"rsi", "esi", "si", "sil"}, "%si"}, {{"rdi", "edi", "di", "dil"}, "%di"},
		{{"rbp", "ebp", "bp", "bpl"}, "%bp"}, {{"rsp", "esp", "sp", "spl"}, "%sp"},
	};
	char type[8], reg[16] = "", operand[128];
	const char *at = strchr(arg, '@'), *op;
	long size = strtol(arg, NULL, 10), off = 0;
	int sign = size < 0;
	char *paren;

	if (!at)
		return -1;
	size = labs(size);
	if (size != 1 && size != 2 && size != 4 && size != 8)
		size = 8;
	snprintf(type, sizeof type, "%c%ld", sign ? 's' : 'u', size * 8);
	op = at + 1;
	if (*op == '$') {
		snprintf(out, len, "arg%d=\\%s:%s", i, op + 1, type);
		return 0;
	}
	paren = strchr(op, '(');
	if (paren) {
		off = strtol(op, NULL, 10);
		snprintf(operand, sizeof operand, "%s", paren + 1);
		operand[strcspn(operand, ")")] = 0;
		if (strchr(operand, ','))
			return -1; /* indexed addressing: no fetcharg for it */
	} else {
		snprintf(operand, sizeof operand, "%s", op);
	}
	if (operand[0] != '%')
		return -1;
	for (size_t r = 0; r < sizeof regs / sizeof regs[0] && !reg[0]; r++)
		for (int k = 0; k < 4; k++)
			if (strcmp(operand + 1, regs[r].names[k]) == 0)
				snprintf(reg, sizeof reg, "%s", regs[r].reg);
	if (!reg[0] && operand[1] == 'r' && operand[2] >= '0' && operand[2] <= '9')
		snprintf(reg, sizeof reg, "%%r%ld", strtol(operand + 2, NULL, 10));
	if (!reg[0] && strcmp(operand + 1, "rip") == 0)
		return -1; /* rip-relative: the address is the probe's, not known here */
	if (!reg[0])
		return -1;
	if (paren)
		snprintf(out, len, "arg%d=%+ld(%s):%s", i, off, reg, type);
	else
		snprintf(out, len, "arg%d=%s:%s", i, reg, type);
	return 0;
}

static void append(char *buf, size_t len, const char *s)
{
	size_t n = strlen(buf);
	snprintf(buf + n, len - n, "%s%s", n ? " " : "", s);
}

/* The fetchargs of an entry or return probe, with " argN:string" modifiers. */
static void uprobe_fetchargs(lua_State *L, int kind, const char *mods, char *out, size_t len)
{
	int strings[7] = {0}, ret_string = 0;
	char mod[64], one[96];

	while (mods && *mods) {
		int n = 0, a;
		mods += strspn(mods, " ");
		if (sscanf(mods, "%63s%n", mod, &n) != 1)
			break;
		mods += n;
		if (sscanf(mod, "arg%d:string", &a) == 1 && a >= 1 && a <= 6 && kind == U_ENTRY)
			strings[a] = 1;
		else if (strcmp(mod, "ret:string") == 0 && kind == U_RETURN)
			ret_string = 1;
		else
			luaL_error(L, "uprobe: bad modifier '%s' (argN:string on entry probes, ret:string on return probes)", mod);
	}
	out[0] = 0;
	if (kind == U_RETURN) {
		append(out, len, ret_string ? "ret=+0($retval):string" : "ret=$retval:s64");
		return;
	}
	for (int i = 1; i <= 6; i++) {
		if (strings[i])
			snprintf(one, sizeof one, "arg%d=+0(%s):string", i, arg_regs[i - 1]);
		else
			snprintf(one, sizeof one, "arg%d=%s:u64", i, arg_regs[i - 1]);
		append(out, len, one);
	}
}

static const struct ltap_sdt *sdt_find(lua_State *L, struct ltap_elf *elf, const char *path, const char *what)
{
	const struct ltap_sdt *s;
	const char *colon = strchr(what, ':');
	char prov[64] = "";
	const char *name = what;
	int n = ltap_elf_sdts(elf, &s);

	if (colon) {
		snprintf(prov, sizeof prov, "%.*s", (int)(colon - what), what);
		name = colon + 1;
	}
	for (int i = 0; i < n; i++)
		if (strcmp(s[i].name, name) == 0 && (!prov[0] || strcmp(s[i].provider, prov) == 0))
			return &s[i];
	ltap_elf_close(elf);
	luaL_error(L, "usdt: %s has no marker '%s' (see: ltap list 'usdt:%s:*')", path, what, path);
	return NULL;
}

static struct ltap_uprobes *uprobe_set(lua_State *L, struct ltap_ctx *ctx)
{
	if (!ctx->uprobes) {
		ctx->uprobes = ltap_uprobes_new();
		if (!ctx->uprobes)
			luaL_error(L, "uprobe: cannot make the probe group: %s", strerror(errno));
	}
	return ctx->uprobes;
}

static int is_kprobe_spec(const char *spec)
{
	return strncmp(spec, "k:", 2) == 0 || strncmp(spec, "kr:", 3) == 0 || strncmp(spec, "kprobe:", 7) == 0 ||
	       strncmp(spec, "kretprobe:", 10) == 0;
}

/* k:FUNC / kr:FUNC (kprobe:, kretprobe:): the same registers and names as a uprobe */
static struct tep_event *kprobe_event(lua_State *L, struct ltap_ctx *ctx, const char *spec)
{
	int ret = strncmp(spec, "kr", 2) == 0;
	const char *fn = strchr(spec, ':') + 1, *mods = strchr(fn, ' ');
	char sym[256], fetch[1024], name[96], why[256], full[320];

	if (!ltap_kprobes_supported())
		luaL_error(L, "kprobe: this kernel has no kprobes (no kprobe_events in tracefs): %s", spec);
	snprintf(sym, sizeof sym, "%.*s", mods ? (int)(mods - fn) : (int)strlen(fn), fn);
	uprobe_fetchargs(L, ret ? U_RETURN : U_ENTRY, mods, fetch, sizeof fetch);
	if (ltap_uprobes_add(uprobe_set(L, ctx), ret, sym, NULL, 0, 0, fetch, name, sizeof name, why, sizeof why))
		luaL_error(L, "kprobe: the kernel refused %s: %s", spec, why);
	snprintf(full, sizeof full, "%s:%s", ltap_uprobes_group(ctx->uprobes), name);
	return ltap_catalog_event(ctx->cat, full);
}

int ltap_is_uprobe_spec(const char *spec)
{
	return is_kprobe_spec(spec) || strncmp(spec, "u:", 2) == 0 || strncmp(spec, "ur:", 3) == 0 || strncmp(spec, "uprobe:", 7) == 0 ||
	       strncmp(spec, "uretprobe:", 10) == 0 || strncmp(spec, "usdt:", 5) == 0;
}

struct tep_event *ltap_uprobe_event(lua_State *L, struct ltap_ctx *ctx, const char *spec)
{
	char body[1024], path[PATH_MAX], fetch[1024] = "", name[96], why[256], full[320];
	const char *mods, *what;
	char *sep;
	int kind = U_ENTRY, e;
	uint64_t offset = 0, ref = 0;
	struct ltap_elf *elf;
	struct tep_event *ev;

	if (is_kprobe_spec(spec))
		return kprobe_event(L, ctx, spec);
	if (strncmp(spec, "usdt:", 5) == 0)
		kind = U_SDT, spec += 5;
	else if (strncmp(spec, "ur:", 3) == 0)
		kind = U_RETURN, spec += 3;
	else if (strncmp(spec, "uretprobe:", 10) == 0)
		kind = U_RETURN, spec += 10;
	else if (strncmp(spec, "uprobe:", 7) == 0)
		spec += 7;
	else
		spec += 2;
	mods = strchr(spec, ' ');
	snprintf(body, sizeof body, "%.*s", mods ? (int)(mods - spec) : (int)strlen(spec), spec);
	/* PATH:WHAT; for usdt WHAT may itself be PROVIDER:NAME */
	sep = strchr(body, ':');
	if (!sep || !sep[1])
		luaL_error(L, "uprobe: '%s' needs PATH:FUNCTION (u:/bin/bash:readline)", spec);
	*sep = 0;
	what = sep + 1;
	if (kind == U_SDT && mods && mods[strspn(mods, " ")])
		luaL_error(L, "usdt: markers take no modifiers: their arguments come from the note");
	if (kind != U_SDT)
		uprobe_fetchargs(L, kind, mods, fetch, sizeof fetch);
	uprobe_resolve_path(L, ctx, body, path, sizeof path);
	elf = ltap_elf_open(path);
	if (!elf)
		luaL_error(L, "uprobe: %s: %s", path, errno == ENOEXEC ? "not an ELF file" : strerror(errno));
	if (kind == U_SDT) {
		const struct ltap_sdt *s = sdt_find(L, elf, path, what);
		char *args = NULL, one[160];
		int i = 0;
		offset = s->pc_offset;
		ref = s->sem_offset;
		if (s->args[0] && (args = strdup(s->args)) != NULL)
			for (char *a = strtok(args, " "); a; a = strtok(NULL, " ")) {
				if (sdt_fetcharg(a, ++i, one, sizeof one)) {
					free(args);
					ltap_elf_close(elf);
					luaL_error(L, "usdt: %s: argument %d '%s' uses addressing ltap cannot read", what, i, a);
				}
				append(fetch, sizeof fetch, one);
			}
		free(args);
		snprintf(full, sizeof full, "%s_%s", s->provider, s->name);
	} else if (strncmp(what, "0x", 2) == 0) {
		uint64_t addr = strtoull(what, NULL, 16);
		if (ltap_elf_addr_offset(elf, addr, &offset)) {
			ltap_elf_close(elf);
			luaL_error(L, "uprobe: %s: address %s is in no loadable segment", path, what);
		}
		snprintf(full, sizeof full, "%s", what);
	} else {
		char fn[256];
		const char *plus = strchr(what, '+');
		const struct ltap_elf_func *f;
		uint64_t add = plus ? strtoull(plus + 1, NULL, 0) : 0;
		snprintf(fn, sizeof fn, "%.*s", plus ? (int)(plus - what) : (int)strlen(what), what);
		f = ltap_elf_func_find(elf, fn);
		if (!f) {
			ltap_elf_close(elf);
			luaL_error(L, "uprobe: %s has no function '%s' (see: ltap list 'u:%s:*')", path, fn, path);
		}
		if (add && f->size && add >= f->size) {
			ltap_elf_close(elf);
			luaL_error(L, "uprobe: %s+%llu is beyond the function's %llu bytes", fn,
				   (unsigned long long)add, (unsigned long long)f->size);
		}
		offset = f->offset + add;
		snprintf(full, sizeof full, "%s", fn);
	}
	ltap_elf_close(elf);
	e = ltap_uprobes_add(uprobe_set(L, ctx), kind == U_RETURN, full, path, offset, ref, fetch, name,
			     sizeof name, why, sizeof why);
	if (e)
		luaL_error(L, "uprobe: the kernel refused %s: %s%s", spec, why,
			   e == -ENOENT || e == -ENODEV ? " (this kernel has no uprobes?)" : "");
	snprintf(full, sizeof full, "%s:%s", ltap_uprobes_group(ctx->uprobes), name);
	ev = ltap_catalog_event(ctx->cat, full);
	if (!ev)
		luaL_error(L, "uprobe: %s was made but its format cannot be read", full);
	return ev;
}

/* ltap.functions(PATH, [GLOB]) -> the resolved path and a sorted array of the
 * function names of that binary or library matching GLOB (default "*") */
static int uprobe_functions(lua_State *L)
{
	struct ltap_ctx *ctx = ltap_ctx_get(L);
	const char *name = luaL_checkstring(L, 1), *glob = luaL_optstring(L, 2, "*");
	char path[PATH_MAX];
	const struct ltap_elf_func *f;
	struct ltap_elf *elf;
	int n, k = 0;

	uprobe_resolve_path(L, ctx, name, path, sizeof path);
	if (!(elf = ltap_elf_open(path)))
		return luaL_error(L, "functions: %s: %s", path, errno == ENOEXEC ? "not an ELF file" : strerror(errno));
	n = ltap_elf_funcs(elf, &f);
	lua_pushstring(L, path);
	lua_newtable(L);
	for (int i = 0; i < n; i++)
		if (fnmatch(glob, f[i].name, 0) == 0) {
			lua_pushstring(L, f[i].name);
			lua_rawseti(L, -2, ++k);
		}
	ltap_elf_close(elf);
	return 2;
}

void ltap_open_uprobe(lua_State *L)
{
	lua_getglobal(L, "ltap");
	lua_pushcfunction(L, uprobe_functions);
	lua_setfield(L, -2, "functions");
	lua_pop(L, 1);
}
