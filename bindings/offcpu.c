/* offcpu.c: ltap.offcpu(COUNTS, [OPTS]): off-CPU time per blocked stack,
 * counted in C as profile(FREQ, COUNTS) counts samples:
 *
 *   local counts = ltap.stackcount()
 *   ltap.offcpu(counts, {states = "SD", min = 1000000, wakers = true})
 *   finish(function() for stack, ns in pairs(counts:folded()) do ... end end)
 *
 * It declares probes with handlers in C (no event table, no Lua call),
 * each read from its own ring (desc.c):
 * - sched:sched_switch with call chains (the perf rings), filtered in the
 *   kernel on the states asked for (prev_state & 1: S, & 2: D): a task
 *   leaves the CPU blocked; its stack is kept (the stack count's key,
 *   hashed once per block) with the time, per thread (runtime/blocked.c);
 * - sched:sched_switch without (the instance), next_pid != 0: a task runs
 *   again; the time since it left, at least min, is added to its stack.
 *   Every switch system-wide; under -p / -c the instance's pid filter
 *   gives every switch in or out of a target's thread, whoever makes it
 *   (the perf events, per task, see only the target switching out);
 * - with wakers, sched:sched_waking with call chains: the stack of the
 *   task that wakes a blocked one is kept with it, and the time goes to
 *   the joined stack "blocked;--;waker" (offwaketime's). Under -p / -c a
 *   waker that is not a target is named without its stack (desc.c: the
 *   instance's copy; the perf events do not follow it).
 * Weights are nanoseconds. ltap's own blocks are left out. A block whose
 * task was never seen running again by the end is not counted. */
#include "offcpu.h"

#include "blocked.h"
#include "catalog.h"
#include "ctx.h"
#include "desc.h"
#include "evdesc.h"
#include "kinds.h"
#include "log.h"
#include "lstackcount.h"
#include "luaaux.h"
#include "options.h"
#include "proc.h"
#include "sources.h"
#include "stackcount.h"

#include <event-parse.h>
#include <lauxlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define OFFCPU_MT "ltap.offcpu"
#define OFFCPU_MAX_BLOCKED (1u << 20) /* tasks blocked at once */

#define OFFCPU_CPUS 4096

struct offcpu {
	struct ltap_stackcount **count; /* the COUNTS userdata's (NULL once closed) */
	struct ltap_blocked *blocked;
	uint64_t min;
	int self;
	uint64_t unseen; /* blocks whose switch in was not seen, ended by the next switch out */
	uint64_t last[OFFCPU_CPUS]; /* per CPU, the time of the last switch seen there */
	/* fields, resolved once; the sizes a record must have for them */
	int prev_pid, prev_comm, prev_comm_size, next_pid, woken_pid;
	int out_size, in_size, woken_size;
};

static int offcpu_gc(lua_State *L)
{
	struct offcpu *o = luaL_checkudata(L, 1, OFFCPU_MT);
	ltap_blocked_free(o->blocked);
	o->blocked = NULL;
	return 0;
}

static int32_t offcpu_int(const struct ltap_rec *r, int off)
{
	int32_t v;
	memcpy(&v, (const char *)r->data + off, sizeof v);
	return v;
}

/* the key of r's stack in comm (kept, no count), or -1 when there is no
 * count to keep it in; out of memory ends the run (said) */
static long offcpu_stack(struct ltap_ctx *ctx, struct offcpu *o, const struct ltap_rec *r, const char *comm,
			 size_t len)
{
	long key;

	if (!*o->count)
		return -1;
	key = ltap_stackcount_stack(ctx->L, *o->count, ctx, r, comm, len, -1);
	if (key >= 0)
		return key;
	ltap_err("offcpu: out of memory keeping stacks");
	ltap_run_end(ctx, LTAP_END_ERROR);
	return -2;
}

static int offcpu_end(struct ltap_ctx *ctx, struct offcpu *o, const struct ltap_blocked_task *t, uint64_t end);

/* A task leaves the CPU blocked (the kernel filter chose the states). If
 * it is still blocked for us, its switch in was not seen: a task the
 * kernel hides from tracing (a VM's agent: its events reach no ring) or
 * lost events. It ran on this CPU since its last switch seen here (on a
 * CPU, a task runs from its switch in to its switch out, and the switches
 * of a target's tasks are all seen): that switch ends the block, short by
 * the unseen task's time at most. */
static int offcpu_out(struct ltap_ctx *ctx, struct ltap_probe *p, struct ltap_evdesc *d, const struct ltap_rec *r)
{
	struct offcpu *o = p->cdata;
	struct ltap_blocked_task t;
	int tid = offcpu_int(r, o->prev_pid);
	const char *comm = (const char *)r->data + o->prev_comm;
	long key;

	(void)d;
	if (r->callchain && !r->nr_callchain) /* the instance's copy: the running task is no target */
		return 0;
	if (r->size < o->out_size || tid == o->self || tid == 0)
		return 0;
	if (ltap_blocked_in(o->blocked, tid, &t)) {
		o->unseen++;
		if ((unsigned)r->cpu < OFFCPU_CPUS && offcpu_end(ctx, o, &t, o->last[r->cpu]))
			return -1;
	}
	if ((unsigned)r->cpu < OFFCPU_CPUS)
		o->last[r->cpu] = r->ts;
	key = offcpu_stack(ctx, o, r, comm, strnlen(comm, (size_t)o->prev_comm_size));
	if (key == -2)
		return -1;
	if (key >= 0)
		ltap_blocked_out(o->blocked, tid, r->ts, key);
	return 0;
}

/* something wakes a task: if it is blocked, the waker's stack goes with it */
static int offcpu_waking(struct ltap_ctx *ctx, struct ltap_probe *p, struct ltap_evdesc *d, const struct ltap_rec *r)
{
	struct offcpu *o = p->cdata;
	int tid;
	const char *comm;
	long key;

	if (r->size < o->woken_size || !ltap_blocked_has(o->blocked, offcpu_int(r, o->woken_pid)))
		return 0;
	tid = ltap_rec_tid(d, r);
	comm = ltap_proc_comm(ctx->proc, tid);
	key = offcpu_stack(ctx, o, r, comm, strlen(comm));
	if (key == -2)
		return -1;
	if (key >= 0)
		ltap_blocked_woken(o->blocked, offcpu_int(r, o->woken_pid), key);
	return 0;
}

/* a task runs again: the time it was off the CPU, to its stack */
static int offcpu_in(struct ltap_ctx *ctx, struct ltap_probe *p, struct ltap_evdesc *d, const struct ltap_rec *r)
{
	struct offcpu *o = p->cdata;
	struct ltap_blocked_task t;

	(void)d;
	if ((unsigned)r->cpu < OFFCPU_CPUS)
		o->last[r->cpu] = r->ts;
	if (r->size < o->in_size || !ltap_blocked_in(o->blocked, offcpu_int(r, o->next_pid), &t))
		return 0;
	return offcpu_end(ctx, o, &t, r->ts);
}

/* a task runs again, as perf's context-switch record says it in the
 * task's own context (whoever ran before: a task hidden from tracing too) */
static int offcpu_switch_in(struct ltap_ctx *ctx, struct ltap_probe *p, struct ltap_evdesc *d,
			    const struct ltap_rec *r)
{
	struct offcpu *o = p->cdata;
	struct ltap_blocked_task t;

	if (!ltap_blocked_in(o->blocked, ltap_rec_tid(d, r), &t))
		return 0;
	return offcpu_end(ctx, o, &t, r->ts);
}

/* the block t ended at end: its time to its stack (joined to its waker's) */
static int offcpu_end(struct ltap_ctx *ctx, struct offcpu *o, const struct ltap_blocked_task *t, uint64_t end)
{
	uint64_t ns;

	/* the two rings' clocks may differ by microseconds: a switch in
	 * stamped before its switch out is not a time */
	if (!*o->count || end < t->since || (ns = end - t->since) < o->min)
		return 0;
	if (t->waker < 0) {
		ltap_stackcount_add_at(*o->count, t->key, ns);
		return 0;
	}
	for (int tries = 0; tries < 2; tries++) {
		if (ltap_stackcount_join(*o->count, t->key, t->waker, ns) == 0)
			return 0;
		lua_gc(ctx->L, LUA_GCCOLLECT);
	}
	ltap_err("offcpu: out of memory keeping stacks");
	ltap_run_end(ctx, LTAP_END_ERROR);
	return -1;
}

/* the offset of field name of ev (an int of 4 bytes, or a char array when
 * size is given); raises when this kernel's format lacks it */
static int offcpu_field(lua_State *L, struct tep_event *ev, const char *name, int *size)
{
	struct tep_format_field *f = tep_find_field(ev, name);

	if (!f || (size ? !(f->flags & TEP_FIELD_IS_ARRAY) : f->size != 4))
		luaL_error(L, "ltap.offcpu: %s:%s has no field '%s' as expected", ev->system, ev->name, name);
	if (size)
		*size = f->size;
	return f->offset;
}

static struct tep_event *offcpu_event(lua_State *L, struct ltap_ctx *ctx, const char *spec)
{
	struct tep_event *ev = ltap_catalog_event(ctx->cat, spec);
	if (!ev)
		luaL_error(L, "ltap.offcpu: this kernel has no %s event", spec);
	return ev;
}

/* one probe of ev with a handler in C, the state at stack index ud as its
 * (never called) Lua handler, which keeps the state alive */
static void offcpu_probe(lua_State *L, struct ltap_ctx *ctx, struct tep_event *ev, const char *filter, int stack,
			 int handler, const char *where, struct offcpu *o,
			 int (*fn)(struct ltap_ctx *, struct ltap_probe *, struct ltap_evdesc *, const struct ltap_rec *))
{
	struct ltap_probe *p = ltap_probe_on(ctx, ltap_desc_of(L, ctx, ev), handler, filter, where);

	if (!p)
		luaL_error(L, "out of memory");
	p->stack = stack;
	p->cfn = fn;
	p->cdata = o;
}

/* perf's context-switch records (perf record --switch-events): of the
 * targets' per-task events under -p / -c, of every CPU's system-wide. A
 * switch in is recorded in the switched-in task's own context, so a task
 * that hands it the CPU unseen (hidden from tracing, as a VM's agent may
 * be: its own events reach no ring, nor its sched_switch) hides no switch
 * in. The instance's sched_switch gives them too: whichever comes first
 * ends the block. */
static void offcpu_switches(lua_State *L, struct ltap_ctx *ctx, int handler, const char *where, struct offcpu *o)
{
	struct ltap_evdesc *d;
	struct ltap_probe *p;

	if (ctx->nprofiles == LTAP_MAX_SYNTHETIC)
		luaL_error(L, "ltap.offcpu: at most %d profiles and off-CPU profiles", LTAP_MAX_SYNTHETIC);
	d = ltap_desc_synthetic(L, ctx, LTAP_SYNTHETIC_ID_TOP - ctx->nprofiles++, "perf:switch_in",
				&ltap_kind_synthetic);
	d->switches = 1;
	if (!(p = ltap_probe_on(ctx, d, handler, NULL, where)))
		luaL_error(L, "out of memory");
	p->stack = 1; /* served by the perf rings */
	snprintf(p->spec, sizeof p->spec, "perf:switch_in");
	p->cfn = offcpu_switch_in;
	p->cdata = o;
}

/* ltap.offcpu(COUNTS, [{states = "S"|"D"|"SD", min = NS, wakers = BOOL}]):
 * off-CPU time into COUNTS (an ltap.stackcount), in ns per blocked stack
 * (and waker's, joined). Declared when the script loads. Returns its
 * state, whose :unseen() and :dropped() say what was not measured. */
int offcpu_offcpu(lua_State *L)
{
	static const struct ltap_optspec opts[] = {
		{"states", "string"}, {"min", "integer"}, {"wakers", "boolean"}, {NULL, NULL}};
	static const char *const states[] = {"S", "D", "SD", NULL};
	static const char *const filters[] = {"prev_state & 1", "prev_state & 2", "prev_state & 3"};
	struct ltap_ctx *ctx = ltap_ctx_get(L);
	struct ltap_stackcount **count = ltap_stackcount_at(L, 1);
	struct tep_event *sw, *wk = NULL;
	struct offcpu *o;
	int st = 2, wakers = 0, handler;
	lua_Integer min = 0;
	const char *where;

	luaL_argexpected(L, count != NULL, 1, "ltap.stackcount");
	if (!lua_isnoneornil(L, 2)) {
		ltap_check_options(L, 2, "ltap.offcpu", opts);
		lua_getfield(L, 2, "states");
		if (!lua_isnil(L, -1))
			st = luaL_checkoption(L, -1, NULL, states);
		lua_getfield(L, 2, "min");
		min = luaL_optinteger(L, -1, 0);
		luaL_argcheck(L, min >= 0, 2, "min: a time of 0 ns or more expected");
		lua_getfield(L, 2, "wakers");
		wakers = lua_toboolean(L, -1);
		lua_pop(L, 3);
	}
	if (ltap_run_started(ctx))
		return luaL_error(L, "ltap.offcpu: declared when the script loads, not in handlers");
	ltap_ctx_catalog(L, ctx); /* the sources: their formats */
	if (ctx->face)
		return luaL_error(L, "ltap.offcpu: a text trace has no call chains");
	sw = offcpu_event(L, ctx, "sched:sched_switch");
	if (wakers)
		wk = offcpu_event(L, ctx, "sched:sched_waking");

	o = lua_newuserdatauv(L, sizeof *o, 1);
	memset(o, 0, sizeof *o);
	luaL_setmetatable(L, OFFCPU_MT);
	lua_pushvalue(L, 1);
	lua_setiuservalue(L, -2, 1); /* COUNTS lives as long as the state */
	o->count = count;
	o->min = (uint64_t)min;
	o->self = (int)getpid();
	o->prev_pid = offcpu_field(L, sw, "prev_pid", NULL);
	o->prev_comm = offcpu_field(L, sw, "prev_comm", &o->prev_comm_size);
	o->next_pid = offcpu_field(L, sw, "next_pid", NULL);
	if (wk)
		o->woken_pid = offcpu_field(L, wk, "pid", NULL);
	o->out_size = o->prev_pid + 4 > o->prev_comm + o->prev_comm_size ? o->prev_pid + 4 : o->prev_comm + o->prev_comm_size;
	o->in_size = o->next_pid + 4;
	o->woken_size = o->woken_pid + 4;
	if (!(o->blocked = ltap_blocked_new(OFFCPU_MAX_BLOCKED)))
		return luaL_error(L, "out of memory");

	handler = ltap_handler_add(L, ctx, lua_gettop(L));
	luaL_where(L, 1);
	where = lua_tostring(L, -1);
	offcpu_probe(L, ctx, sw, filters[st], 1, handler, where, o, offcpu_out);
	offcpu_probe(L, ctx, sw, "next_pid != 0", 0, handler, where, o, offcpu_in);
	if (wk)
		offcpu_probe(L, ctx, wk, NULL, 1, handler, where, o, offcpu_waking);
	offcpu_switches(L, ctx, handler, where, o);
	lua_pop(L, 1); /* the where string: probes copied it */
	return 1; /* the state */
}

/* o:unseen(): blocks whose switch back in was not seen (ended by the
 * task's next switch out, at its CPU's last switch seen); o:dropped():
 * blocks not kept, the table of blocked tasks full */
static int offcpu_unseen(lua_State *L)
{
	struct offcpu *o = luaL_checkudata(L, 1, OFFCPU_MT);
	lua_pushinteger(L, (lua_Integer)o->unseen);
	return 1;
}

static int offcpu_dropped(lua_State *L)
{
	struct offcpu *o = luaL_checkudata(L, 1, OFFCPU_MT);
	lua_pushinteger(L, o->blocked ? (lua_Integer)ltap_blocked_dropped(o->blocked) : 0);
	return 1;
}

void ltap_open_offcpu(lua_State *L, struct ltap_ctx *ctx)
{
	static const luaL_Reg metameth[] = {{"__index", NULL}, {"__gc", offcpu_gc}, {NULL, NULL}};
	static const luaL_Reg meth[] = {{"unseen", offcpu_unseen}, {"dropped", offcpu_dropped}, {NULL, NULL}};

	(void)ctx;
	ltap_newmeta(L, OFFCPU_MT, metameth, meth);
	lua_pop(L, 1);
}
