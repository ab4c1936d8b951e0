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
#include "luprobe.h"

#include "catalog.h"
#include "ctx.h"
#include "dwfile.h"
#include "elffile.h"
#include "fetchargs.h"
#include "instance.h"
#include "libpath.h"
#include "symtab.h"
#include "uprobe.h"

#include <errno.h>
#include <fnmatch.h>
#include <lauxlib.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { U_ENTRY, U_RETURN, U_SDT };

static void uprobe_resolve_path(lua_State *L, struct ltap_ctx *ctx, const char *name, char *out, size_t len)
{
	int e = ltap_libpath_find(name, ctx->opt.pid, out, len);
	if (e == -ENOENT && !out[0])
		luaL_error(L, "uprobe: no binary or library '%s' (not in $PATH or the library directories)", name);
	if (e)
		luaL_error(L, "uprobe: %s: %s", out, strerror(-e));
}

/* The fetchargs of an entry or return probe, with " argN:string" modifiers. */
static void uprobe_fetchargs(lua_State *L, int kind, const char *mods, char *out, size_t len)
{
	char bad[64];
	if (ltap_fetchargs_func(kind == U_RETURN, mods, out, len, bad, sizeof bad))
		luaL_error(L, "uprobe: bad modifier '%s' (argN:string on entry probes, ret:string on return probes)", bad);
}

static const struct ltap_sdt *sdt_find(lua_State *L, struct ltap_dwfile *file, const char *path, const char *what)
{
	const struct ltap_sdt *s;
	const char *colon = strchr(what, ':');
	char prov[64] = "";
	const char *name = what;
	int n = ltap_elf_sdts(file->elf, &s);

	if (colon) {
		snprintf(prov, sizeof prov, "%.*s", (int)(colon - what), what);
		name = colon + 1;
	}
	for (int i = 0; i < n; i++)
		if (strcmp(s[i].name, name) == 0 && (!prov[0] || strcmp(s[i].provider, prov) == 0))
			return &s[i];
	ltap_dwfile_close(file);
	luaL_error(L, "usdt: %s has no marker '%s' (see: ltap list 'usdt:%s:*')", path, what, path);
	return NULL;
}

static struct ltap_uprobes *uprobe_set(lua_State *L, struct ltap_ctx *ctx)
{
	if (!ctx->uprobes) {
		ctx->uprobes = ltap_uprobes_new(ctx->serial);
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
	static const char *const prefixes[] = {"u:", "ur:", "uprobe:", "uretprobe:", "usdt:"};

	if (is_kprobe_spec(spec))
		return 1;
	for (size_t i = 0; i < sizeof prefixes / sizeof *prefixes; i++)
		if (strncmp(spec, prefixes[i], strlen(prefixes[i])) == 0)
			return 1;
	return 0;
}

struct tep_event *ltap_uprobe_event(lua_State *L, struct ltap_ctx *ctx, const char *spec)
{
	char body[1024], path[PATH_MAX], fetch[1024] = "", name[96], why[256], full[320];
	const char *mods, *what;
	char *sep;
	int kind = U_ENTRY, e;
	uint64_t offset = 0, ref = 0;
	struct ltap_dwfile file;
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
	if ((e = ltap_dwfile_open(&file, path)) != 0)
		luaL_error(L, "uprobe: %s: %s", path, e == -ENOEXEC ? "not an ELF file" : strerror(-e));
	if (kind == U_SDT) {
		const struct ltap_sdt *s = sdt_find(L, &file, path, what);
		int bad = ltap_fetchargs_sdt(s->args, fetch, sizeof fetch);
		if (bad) {
			lua_pushfstring(L, "usdt: %s: argument %d of '%s' uses addressing ltap cannot read",
					what, bad, s->args);
			ltap_dwfile_close(&file);
			lua_error(L);
		}
		offset = s->pc_offset;
		ref = s->sem_offset;
		snprintf(full, sizeof full, "%s_%s", s->provider, s->name);
	} else if (strncmp(what, "0x", 2) == 0) {
		uint64_t addr = strtoull(what, NULL, 16);
		if (ltap_elf_addr_offset(file.elf, addr, &offset)) {
			ltap_dwfile_close(&file);
			luaL_error(L, "uprobe: %s: address %s is in no loadable segment", path, what);
		}
		snprintf(full, sizeof full, "%s", what);
	} else {
		char fn[256];
		const char *plus = strchr(what, '+');
		uint64_t add = plus ? strtoull(plus + 1, NULL, 0) : 0, size;
		snprintf(fn, sizeof fn, "%.*s", plus ? (int)(plus - what) : (int)strlen(what), what);
		if (ltap_dwfile_func(&file, fn, &offset, &size)) {
			ltap_dwfile_close(&file);
			luaL_error(L, "uprobe: %s has no function '%s' (see: ltap list 'u:%s:*')", path, fn, path);
		}
		if (add && size && add >= size) {
			ltap_dwfile_close(&file);
			luaL_error(L, "uprobe: %s+%llu is beyond the function's %llu bytes", fn,
				   (unsigned long long)add, (unsigned long long)size);
		}
		offset += add;
		snprintf(full, sizeof full, "%s", fn);
	}
	ltap_dwfile_close(&file);
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
int uprobe_functions(lua_State *L)
{
	struct ltap_ctx *ctx = ltap_ctx_get(L);
	const char *name = luaL_checkstring(L, 1), *glob = luaL_optstring(L, 2, "*");
	char path[PATH_MAX];
	const struct ltap_symtab_sym *const *f;
	struct ltap_symtab *t;
	struct ltap_dwfile file;
	size_t n;
	int k = 0, e;

	uprobe_resolve_path(L, ctx, name, path, sizeof path);
	if ((e = ltap_dwfile_open(&file, path)) != 0)
		return luaL_error(L, "functions: %s: %s", path, e == -ENOEXEC ? "not an ELF file" : strerror(-e));
	t = ltap_dwfile_symtab(&file);
	n = t ? ltap_symtab_funcs(t, &f) : 0;
	lua_pushstring(L, path);
	lua_newtable(L);
	for (size_t i = 0; i < n; i++)
		if (fnmatch(glob, f[i]->name, 0) == 0) {
			lua_pushstring(L, f[i]->name);
			lua_rawseti(L, -2, ++k);
		}
	ltap_dwfile_close(&file);
	return 2;
}
