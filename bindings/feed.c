/* feed.c: aggregates fed in C. s:by(KEYS, [VALUE]) gives probe() a feed in
 * place of a handler:
 *
 *   local calls = stats()
 *   probe("raw_syscalls:sys_enter", calls:by{"comm", "id"})      -- a count per comm and id
 *   local bytes = stats{hist = "log2"}
 *   probe("kmem:kmalloc", bytes:by("comm", "bytes_alloc"))       -- bytes_alloc per comm
 *
 * and every event of the probe adds to s with no Lua call: no event table,
 * no handler. A key part is the event's task name (comm), process (pid),
 * thread (tid), CPU (cpu), event name (name), syscall name (syscall: of
 * raw_syscalls' id, or a syscalls:sys_enter_NAME event's own), or a field
 * of its format by its name (args.NAME for one that a common name hides);
 * the value a numeric one of those, 1 << FIELD (the pages of an order), or
 * 1 (a count, as s:inc). Each is resolved once
 * per event type when the probe is declared (a field an event lacks is an
 * error then, naming it), into an offset and a size read per event. Lua
 * sees the same aggregate as ever: reports, sorted(), intervals, --serve. */
#include "feed.h"

#include "ctx.h"
#include "evdesc.h"
#include "kinds.h"
#include "luaaux.h"
#include "proc.h"
#include "stats.h"
#include "syscall_names.h"

#include <errno.h>
#include <event-parse.h>
#include <lauxlib.h>
#include <stdlib.h>
#include <string.h>

#define FEED_MT "ltap.feed"
#define FEED_NAME_MAX 64

/* what s:by declared; its uservalue keeps s alive */
struct feed {
	struct stats *s;
	int nkeys;
	char keys[LTAP_AGG_MAX_PARTS][FEED_NAME_MAX];
	char value[FEED_NAME_MAX]; /* "": a count */
};

enum src { SRC_ONE, SRC_COMM, SRC_PID, SRC_TID, SRC_CPU, SRC_NAME, SRC_SYSCALL, SRC_INT, SRC_UINT, SRC_CHARS,
	   SRC_DATALOC };

/* one part of the key (or the value), resolved for an event type */
struct feed_src {
	int src;
	int offset, size;
	int syscall_id;  /* SRC_SYSCALL: the name is of the number read at offset */
	int shift;       /* a value 1 << the field's */
};

/* a feed bound to one probe (p->cdata) */
struct feed_probe {
	struct ltap_feed_fast fast;       /* first: ltap_feed_counted's (feed.h) */
	struct ltap_agg *agg;
	int by_task;                      /* the key is the task's alone: fast.cache[] */
	int reads_record;                 /* a part is read from the record's fields */
	const struct ltap_desc_ops *raw; /* the record read is r itself, else the kind's */
	int nkeys;
	struct feed_src key[LTAP_AGG_MAX_PARTS], value;
	char name[sizeof ((struct ltap_probe *)0)->spec]; /* the event's name, for a "name" part */
	size_t namelen;
	const char *syscall;              /* a syscalls:sys_*_NAME event's own NAME */
	char unknown[32];                 /* "syscall_NR" of a number with no name */
};

struct feed *ltap_feed_test(lua_State *L, int idx)
{
	return luaL_testudata(L, idx, FEED_MT);
}

static int feed_name_ok(const char *n)
{
	size_t len = strlen(n);
	return len > 0 && len < FEED_NAME_MAX;
}

/* s:by(KEYS, [VALUE]): KEYS a name or a list of them ({} for one total),
 * VALUE a name or none. Names are checked when a probe takes the feed. */
static int feed_by(lua_State *L)
{
	struct stats *s = ltap_stats_check(L, 1);
	struct feed *f;

	luaL_argexpected(L, lua_type(L, 2) == LUA_TSTRING || lua_type(L, 2) == LUA_TTABLE, 2, "name or list of names");
	luaL_argexpected(L, lua_isnoneornil(L, 3) || lua_type(L, 3) == LUA_TSTRING, 3, "name");
	f = lua_newuserdatauv(L, sizeof *f, 1);
	memset(f, 0, sizeof *f);
	f->s = s;
	if (lua_type(L, 2) == LUA_TSTRING) {
		f->nkeys = 1;
		if (!feed_name_ok(lua_tostring(L, 2)))
			return luaL_argerror(L, 2, "bad name");
		strcpy(f->keys[0], lua_tostring(L, 2));
	} else {
		lua_Integer n = luaL_len(L, 2);
		if (n > LTAP_AGG_MAX_PARTS)
			return luaL_argerror(L, 2, lua_pushfstring(L, "at most %d key parts", LTAP_AGG_MAX_PARTS));
		for (lua_Integer i = 1; i <= n; i++) {
			if (lua_geti(L, 2, i) != LUA_TSTRING || !feed_name_ok(lua_tostring(L, -1)))
				return luaL_argerror(L, 2, "a list of names");
			strcpy(f->keys[f->nkeys++], lua_tostring(L, -1));
			lua_pop(L, 1);
		}
	}
	if (lua_type(L, 3) == LUA_TSTRING) {
		if (!feed_name_ok(lua_tostring(L, 3)))
			return luaL_argerror(L, 3, "bad name");
		strcpy(f->value, lua_tostring(L, 3));
	}
	luaL_setmetatable(L, FEED_MT);
	lua_pushvalue(L, 1);
	lua_setiuservalue(L, -2, 1); /* the aggregate lives as long as the feed */
	return 1;
}

/* "syscall" for d: raw_syscalls' id field by the table, or a
 * syscalls:sys_enter_NAME / sys_exit_NAME event's own NAME (*own) */
static int feed_syscall(const struct ltap_evdesc *d, struct feed_src *out, const char **own, char *why, size_t len)
{
	struct tep_format_field *f;

	out->src = SRC_SYSCALL;
	if (d->ev && strcmp(d->ev->system, "syscalls") == 0 &&
	    (strncmp(d->ev->name, "sys_enter_", 10) == 0 || strncmp(d->ev->name, "sys_exit_", 9) == 0)) {
		*own = strchr(d->ev->name + 4, '_') + 1;
		return 0;
	}
	if (d->ev && (f = tep_find_field(d->ev, "id")) != NULL && !(f->flags & TEP_FIELD_IS_ARRAY) &&
	    (f->size == 4 || f->size == 8)) {
		out->syscall_id = 1;
		out->offset = f->offset;
		out->size = f->size;
		return 0;
	}
	snprintf(why, len, "%s has no syscall: 'syscall' is raw_syscalls' id or a syscalls:sys_*_NAME event's NAME",
		 d->ev ? d->ev->name : "this event");
	return -1;
}

/* name resolved for d: 0, or -1 with why */
static int feed_resolve(const struct ltap_evdesc *d, const char *name, struct feed_src *out, const char **own,
			char *why, size_t len)
{
	static const struct {
		const char *name;
		int src;
	} common[] = {{"comm", SRC_COMM}, {"pid", SRC_PID}, {"tid", SRC_TID}, {"cpu", SRC_CPU}, {"name", SRC_NAME}};
	struct tep_format_field *f = NULL;
	const char *fname = name;

	memset(out, 0, sizeof *out);
	if (strcmp(name, "syscall") == 0)
		return feed_syscall(d, out, own, why, len);
	for (size_t i = 0; i < sizeof common / sizeof common[0]; i++)
		if (strcmp(name, common[i].name) == 0) {
			out->src = common[i].src;
			return 0;
		}
	if (strncmp(name, "args.", 5) == 0)
		fname = name + 5;
	if (d->ev)
		f = tep_find_any_field(d->ev, fname);
	if (!f) {
		if (d->ev)
			snprintf(why, len, "%s:%s has no field '%s'", d->ev->system, d->ev->name, fname);
		else
			snprintf(why, len, "this event has no format: no field '%s'", fname);
		return -1;
	}
	out->offset = f->offset;
	out->size = f->size;
	if (f->flags & TEP_FIELD_IS_DYNAMIC) {
		out->src = SRC_DATALOC;
		out->size = 4;
	} else if ((f->flags & TEP_FIELD_IS_STRING) && (f->flags & TEP_FIELD_IS_ARRAY)) {
		out->src = SRC_CHARS;
	} else if (!(f->flags & TEP_FIELD_IS_ARRAY) && (f->size == 1 || f->size == 2 || f->size == 4 || f->size == 8)) {
		out->src = f->flags & TEP_FIELD_IS_SIGNED ? SRC_INT : SRC_UINT;
	} else {
		snprintf(why, len, "%s:%s's field '%s' is neither a number nor a string", d->ev->system, d->ev->name, fname);
		return -1;
	}
	return 0;
}

static int64_t feed_int(const struct feed_src *f, const unsigned char *rec)
{
	switch (f->size) {
	case 1: return f->src == SRC_INT ? (int8_t)rec[f->offset] : rec[f->offset];
	case 2: {
		uint16_t v;
		memcpy(&v, rec + f->offset, 2);
		return f->src == SRC_INT ? (int16_t)v : v;
	}
	case 4: {
		uint32_t v;
		memcpy(&v, rec + f->offset, 4);
		return f->src == SRC_INT ? (int64_t)(int32_t)v : (int64_t)v;
	}
	default: {
		int64_t v;
		memcpy(&v, rec + f->offset, 8);
		return v;
	}
	}
}

/* one part of the event's key: 0, or -1 when its record lacks it */
static int feed_part(struct ltap_ctx *ctx, const struct feed_probe *fp, const struct feed_src *f, int tid,
		     const struct ltap_rec *r, const unsigned char *rec, unsigned size, struct ltap_agg_part *out)
{
	const char *s;

	switch (f->src) {
	case SRC_COMM:
		s = ltap_proc_comm(ctx->proc, tid);
		*out = LTAP_AGG_STR_PART(s, strnlen(s, 16));
		return 0;
	case SRC_PID: *out = LTAP_AGG_INT_PART(ltap_proc_tgid(ctx->proc, tid)); return 0;
	case SRC_TID: *out = LTAP_AGG_INT_PART(tid); return 0;
	case SRC_CPU: *out = LTAP_AGG_INT_PART(r->cpu); return 0;
	case SRC_NAME: *out = LTAP_AGG_STR_PART(fp->name, fp->namelen); return 0;
	case SRC_ONE: *out = LTAP_AGG_INT_PART(1); return 0;
	case SRC_SYSCALL:
		if (!f->syscall_id) {
			*out = LTAP_AGG_STR_PART(fp->syscall, strlen(fp->syscall));
			return 0;
		}
		break;
	}
	if ((unsigned)f->offset + (unsigned)f->size > size)
		return -1;
	if (f->src == SRC_SYSCALL) {
		int64_t nr = feed_int(&(struct feed_src){.src = SRC_INT, .offset = f->offset, .size = f->size}, rec);
		if (nr >= 0 && nr < ltap_nsyscall_names && ltap_syscall_names[nr]) {
			s = ltap_syscall_names[nr];
		} else {
			/* a name as syscall-exporter gives it (the probe's own buffer:
			 * the key is copied by the add) */
			struct feed_probe *w = (struct feed_probe *)fp;
			snprintf(w->unknown, sizeof w->unknown, "syscall_%lld", (long long)nr);
			s = w->unknown;
		}
		*out = LTAP_AGG_STR_PART(s, strlen(s));
	} else if (f->src == SRC_CHARS) {
		s = (const char *)rec + f->offset;
		*out = LTAP_AGG_STR_PART(s, strnlen(s, (size_t)f->size));
	} else if (f->src == SRC_DATALOC) {
		uint32_t loc;
		unsigned off, len;
		memcpy(&loc, rec + f->offset, 4);
		off = loc & 0xffff;
		len = loc >> 16;
		if (off + len > size)
			return -1;
		s = (const char *)rec + off;
		*out = LTAP_AGG_STR_PART(s, strnlen(s, len));
	} else {
		int64_t v = feed_int(f, rec);
		*out = LTAP_AGG_INT_PART(f->shift ? (v >= 0 && v < 63 ? (int64_t)1 << v : 0) : v);
	}
	return 0;
}

/* The per-event path of a fed probe: the key's parts and the value from
 * the record, one add. */
static __attribute__((noinline)) int feed_keyed(struct ltap_ctx *ctx, struct ltap_probe *p, struct ltap_evdesc *d,
						 const struct ltap_rec *r)
{
	struct feed_probe *fp = p->cdata;
	/* a decoded source (text) builds the binary record only when a field
	 * is read: a key of the task alone reads none */
	const struct ltap_rec *rr = d->ops == fp->raw || !fp->reads_record ? r : d->ops->record(ctx, d, r);
	const unsigned char *rec = rr->data;
	struct ltap_agg_part key[LTAP_AGG_MAX_PARTS], value;
	int tid = ltap_rec_tid(d, r), e;
	struct ltap_feed_cached *c = NULL;

	if (fp->by_task) {
		c = &fp->fast.cache[(unsigned)tid % LTAP_FEED_CACHE];
		if (ltap_feed_cache_valid(&fp->fast, c, tid) && c->slot >= 0) {
			value.v.i = 1; /* a count: nothing to read */
			if (fp->value.src != SRC_ONE && feed_part(ctx, fp, &fp->value, tid, r, rec, rr->size, &value))
				return 0;
			if (ltap_agg_slot_add_int(fp->agg, c->slot, value.v.i) == 0)
				return 0;
			ltap_err("%sstats: out of memory", p->where);
			ltap_run_end(ctx, LTAP_END_ERROR);
			return -1;
		}
	}
	for (int i = 0; i < fp->nkeys; i++)
		if (feed_part(ctx, fp, &fp->key[i], tid, r, rec, rr->size, &key[i]))
			return 0; /* a record cut short: not this event's key */
	if (feed_part(ctx, fp, &fp->value, tid, r, rec, rr->size, &value) || value.kind != LTAP_AGG_INT)
		return 0;
	if (c) {
		/* the key's slot, kept for the task's next events */
		long slot = ltap_agg_slot(fp->agg, key, fp->nkeys, 1);
		if (slot >= 0) {
			*c = (struct ltap_feed_cached){tid, *fp->fast.pgen, *fp->fast.agen, slot,
						       ltap_agg_count_ref(fp->agg, slot)};
			e = ltap_agg_slot_add_int(fp->agg, slot, value.v.i);
		} else {
			e = (int)slot;
		}
	} else {
		e = ltap_agg_add_int(fp->agg, key, fp->nkeys, value.v.i);
	}
	if (e == 0 || e == LTAP_AGG_DROPPED)
		return 0;
	if (e == -ENOSPC)
		ltap_err("%sstats: more than %d keys (raise max_keys, or full = \"drop\")", p->where,
			 (int)ltap_agg_config(fp->agg)->max_keys);
	else if (e == -EINVAL)
		ltap_err("%sstats: key of %d part%s, but this aggregate's keys have %d", p->where, fp->nkeys,
			 fp->nkeys == 1 ? "" : "s", ltap_agg_arity(fp->agg));
	else
		ltap_err("%sstats: out of memory", p->where);
	ltap_run_end(ctx, LTAP_END_ERROR);
	return -1;
}

/* A count by the task whose count is kept: one increment, in a frame
 * without the key's parts (most events of a busy task); the rest, and
 * any error, feed_keyed. */
int ltap_feed_event(struct ltap_ctx *ctx, struct ltap_probe *p, struct ltap_evdesc *d, const struct ltap_rec *r)
{
	if (ltap_feed_counted(p->cdata, ltap_rec_tid(d, r)))
		return 0;
	return feed_keyed(ctx, p, d, r);
}

int ltap_feed_bind(struct ltap_ctx *ctx, struct ltap_probe *p, const struct feed *f, char *why, size_t len)
{
	struct feed_probe *fp = calloc(1, sizeof *fp);
	struct ltap_evdesc *d = p->desc;

	if (!fp) {
		snprintf(why, len, "out of memory");
		return -1;
	}
	fp->agg = f->s->agg;
	fp->fast.pgen = ltap_proc_generation_ref(ctx->proc);
	fp->fast.agen = ltap_agg_generation_ref(fp->agg);
	fp->raw = &ltap_kind_raw;
	fp->nkeys = f->nkeys;
	for (int i = 0; i < f->nkeys; i++)
		if (feed_resolve(d, f->keys[i], &fp->key[i], &fp->syscall, why, len))
			goto fail;
	if (f->value[0]) {
		const char *v = f->value;
		int shift = 0;
		/* "1 << FIELD": the pages of an order */
		if (strncmp(v, "1", 1) == 0 && strstr(v, "<<")) {
			v = strstr(v, "<<") + 2;
			while (*v == ' ')
				v++;
			shift = 1;
		}
		if (feed_resolve(d, v, &fp->value, &fp->syscall, why, len))
			goto fail;
		fp->value.shift = shift;
		if (fp->value.src != SRC_INT && fp->value.src != SRC_UINT && fp->value.src != SRC_PID &&
		    fp->value.src != SRC_TID && fp->value.src != SRC_CPU) {
			snprintf(why, len, "the value '%s' is not a number", f->value);
			goto fail;
		}
	} else {
		fp->value.src = SRC_ONE;
	}
	fp->by_task = 1;
	for (int i = 0; i < fp->nkeys; i++)
		fp->by_task &= fp->key[i].src == SRC_COMM || fp->key[i].src == SRC_PID || fp->key[i].src == SRC_TID ||
			       fp->key[i].src == SRC_NAME || (fp->key[i].src == SRC_SYSCALL && !fp->key[i].syscall_id);
	for (int i = 0; i <= fp->nkeys; i++) {
		const struct feed_src *k = i < fp->nkeys ? &fp->key[i] : &fp->value;
		fp->reads_record |= k->src >= SRC_INT || (k->src == SRC_SYSCALL && k->syscall_id);
	}
	fp->fast.count_by_task = fp->by_task && fp->value.src == SRC_ONE;
	for (int i = 0; i < LTAP_FEED_CACHE; i++)
		fp->fast.cache[i].slot = -1;
	memcpy(fp->name, p->spec, sizeof fp->name); /* "sys:name" */
	fp->namelen = strlen(fp->name);
	p->cfn = ltap_feed_event;
	p->cdata = fp;
	p->cdata_owned = 1;
	return 0;
fail:
	free(fp);
	return -1;
}

int ltap_feed_bind_names(struct ltap_ctx *ctx, struct ltap_probe *p, struct stats *s, const char *const *keys,
			 int nkeys, const char *value, char *why, size_t len)
{
	struct feed f = {.s = s, .nkeys = nkeys};

	if (nkeys > LTAP_AGG_MAX_PARTS || (value && !feed_name_ok(value))) {
		snprintf(why, len, "not a feed");
		return -1;
	}
	for (int i = 0; i < nkeys; i++) {
		if (!feed_name_ok(keys[i])) {
			snprintf(why, len, "not a feed");
			return -1;
		}
		strcpy(f.keys[i], keys[i]);
	}
	if (value)
		strcpy(f.value, value);
	return ltap_feed_bind(ctx, p, &f, why, len);
}

static int feed_tostring(lua_State *L)
{
	struct feed *f = luaL_checkudata(L, 1, FEED_MT);
	lua_pushfstring(L, "ltap.feed (%d key part%s%s%s)", f->nkeys, f->nkeys == 1 ? "" : "s",
			f->value[0] ? ", value " : ", a count", f->value);
	return 1;
}

void ltap_open_feed(lua_State *L, struct ltap_ctx *ctx)
{
	static const luaL_Reg metameth[] = {{"__tostring", feed_tostring}, {"__index", NULL}, {NULL, NULL}};
	static const luaL_Reg meth[] = {{NULL, NULL}};

	static const luaL_Reg stats_meth[] = {{"by", feed_by}, {NULL, NULL}};

	(void)ctx;
	ltap_newmeta(L, FEED_MT, metameth, meth);
	lua_pop(L, 1);
	/* s:by, a method of ltap.stats (stats.c's metatable, made before) */
	luaL_getmetatable(L, STATS_MT);
	lua_getfield(L, -1, "__index");
	luaL_setfuncs(L, stats_meth, 0);
	lua_pop(L, 2); /* __index, the metatable */
}
