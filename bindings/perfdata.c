/* perfdata.c: ltap.perfdata(PATH), the samples of a perf.data (perf record)
 * by the place they happened:
 *
 *   local rows = ltap.perfdata("perf.data")
 *   -- rows[i] = {module=, sym=, off=, period=, samples=}; rows.event = "cpu-clock",
 *   -- rows.samples, rows.other (samples of other events, left out); or nil, msg
 *
 * Addresses are named through the file's own MMAP, MMAP2, COMM and FORK
 * records (runtime/perfdata.c hands them out in time order) into a
 * symbols table of its own: a process the file describes is never looked
 * up in this machine's /proc (its pid may be another process now). The
 * files the mappings name are read from this machine, as perf report
 * does; kernel addresses from this machine's kallsyms. */
#include "lperfdata.h"

#include "perfdata.h"
#include "symbols.h"

#include <lauxlib.h>
#include <stdlib.h>
#include <string.h>

#define PID_SLOTS 4096

struct row {
	const char *module, *sym; /* stable: kept by the symbols table */
	uint64_t off, period, samples;
};

struct pd {
	struct ltap_symbols *syms;
	int *pids;              /* open addressing: the pids seen, 0 free */
	size_t npids, pid_cap;
	struct row *rows;       /* open addressing on (module, sym, off) */
	size_t nrows, row_cap;
	int oom;
};

static int pd_seen(struct pd *p, int pid)
{
	size_t i;

	if (pid <= 0)
		return 1;
	if ((p->npids + 1) * 2 > p->pid_cap) {
		size_t cap = p->pid_cap ? p->pid_cap * 2 : PID_SLOTS;
		int *n = calloc(cap, sizeof *n);
		if (!n) {
			p->oom = 1;
			return 1;
		}
		for (size_t k = 0; k < p->pid_cap; k++)
			if (p->pids[k]) {
				for (i = (size_t)p->pids[k] & (cap - 1); n[i]; i = (i + 1) & (cap - 1))
					;
				n[i] = p->pids[k];
			}
		free(p->pids);
		p->pids = n;
		p->pid_cap = cap;
	}
	for (i = (size_t)pid & (p->pid_cap - 1); p->pids[i]; i = (i + 1) & (p->pid_cap - 1))
		if (p->pids[i] == pid)
			return 1;
	p->pids[i] = pid;
	p->npids++;
	return 0;
}

/* A process the file mentions first: its mappings are the file's only. */
static void pd_meet(struct pd *p, int pid)
{
	if (!pd_seen(p, pid))
		ltap_symbols_exec(p->syms, pid);
}

static void pd_mmap(void *ud, int pid, uint64_t start, uint64_t len, uint64_t pgoff, const char *path)
{
	struct pd *p = ud;
	pd_meet(p, pid);
	if (pid > 0)
		ltap_symbols_mmap(p->syms, pid, start, len, pgoff, path);
}

static void pd_comm(void *ud, int pid, int tid, const char *comm, int exec)
{
	struct pd *p = ud;
	(void)tid;
	(void)comm;
	pd_meet(p, pid);
	if (exec)
		ltap_symbols_exec(p->syms, pid);
}

static void pd_fork(void *ud, int ppid, int pid)
{
	struct pd *p = ud;
	pd_meet(p, ppid);
	if (!pd_seen(p, pid))
		ltap_symbols_fork(p->syms, ppid, pid);
}

static size_t pd_hash(const char *m, const char *s, uint64_t off)
{
	uint64_t h = (uint64_t)(uintptr_t)m * 0x9e3779b97f4a7c15ull ^ (uint64_t)(uintptr_t)s * 0xc2b2ae3d27d4eb4full ^
		     off * 0x165667b19e3779f9ull;
	return (size_t)(h ^ (h >> 29));
}

static struct row *pd_row(struct pd *p, const char *m, const char *s, uint64_t off)
{
	size_t i;

	if ((p->nrows + 1) * 2 > p->row_cap) {
		size_t cap = p->row_cap ? p->row_cap * 2 : 1024;
		struct row *n = calloc(cap, sizeof *n);
		if (!n) {
			p->oom = 1;
			return NULL;
		}
		for (size_t k = 0; k < p->row_cap; k++)
			if (p->rows[k].samples) {
				for (i = pd_hash(p->rows[k].module, p->rows[k].sym, p->rows[k].off) & (cap - 1); n[i].samples;
				     i = (i + 1) & (cap - 1))
					;
				n[i] = p->rows[k];
			}
		free(p->rows);
		p->rows = n;
		p->row_cap = cap;
	}
	for (i = pd_hash(m, s, off) & (p->row_cap - 1); p->rows[i].samples; i = (i + 1) & (p->row_cap - 1))
		if (p->rows[i].module == m && p->rows[i].sym == s && p->rows[i].off == off)
			return &p->rows[i];
	p->nrows++;
	p->rows[i] = (struct row){m, s, off, 0, 0};
	return &p->rows[i];
}

/* a JIT name lives only until the next lookup (symbols.h): not kept */
static int pd_jit(const char *module)
{
	return module && strncmp(module, "/tmp/perf-", 10) == 0;
}

static void pd_sample(void *ud, const struct ltap_perfdata_sample *s)
{
	struct pd *p = ud;
	struct ltap_sym sym;
	struct row *r;

	pd_meet(p, s->pid);
	if (ltap_symbols_lookup(p->syms, s->pid, s->ip, 0, &sym) != 0)
		sym.name = sym.module = NULL;
	if (pd_jit(sym.module))
		sym.name = NULL;
	r = pd_row(p, sym.module, sym.name, sym.name ? sym.off : 0);
	if (r) {
		r->period += s->period;
		r->samples++;
	}
}

int perfdata_read(lua_State *L)
{
	const char *path = luaL_checkstring(L, 1);
	struct pd p = {0};
	struct ltap_perfdata_ops ops = {&p, pd_mmap, pd_comm, pd_fork, pd_sample};
	struct ltap_perfdata_info info;
	char err[256];
	int n = 0;

	p.syms = ltap_symbols_new();
	if (!p.syms)
		return luaL_error(L, "out of memory");
	if (ltap_perfdata_read(path, &ops, &info, err, sizeof err) || p.oom) {
		ltap_symbols_free(p.syms);
		free(p.pids);
		free(p.rows);
		lua_pushnil(L);
		lua_pushstring(L, p.oom ? "out of memory" : err);
		return 2;
	}
	lua_createtable(L, (int)p.nrows, 3);
	for (size_t i = 0; i < p.row_cap; i++) {
		struct row *r = &p.rows[i];
		if (!r->samples)
			continue;
		lua_createtable(L, 0, 5);
		if (r->module) {
			lua_pushstring(L, r->module);
			lua_setfield(L, -2, "module");
		}
		if (r->sym) {
			lua_pushstring(L, r->sym);
			lua_setfield(L, -2, "sym");
		}
		lua_pushinteger(L, (lua_Integer)r->off);
		lua_setfield(L, -2, "off");
		lua_pushinteger(L, (lua_Integer)r->period);
		lua_setfield(L, -2, "period");
		lua_pushinteger(L, (lua_Integer)r->samples);
		lua_setfield(L, -2, "samples");
		lua_rawseti(L, -2, ++n);
	}
	lua_pushstring(L, info.event);
	lua_setfield(L, -2, "event");
	lua_pushinteger(L, (lua_Integer)info.samples);
	lua_setfield(L, -2, "samples");
	lua_pushinteger(L, (lua_Integer)info.other);
	lua_setfield(L, -2, "other");
	ltap_symbols_free(p.syms);
	free(p.pids);
	free(p.rows);
	return 1;
}
