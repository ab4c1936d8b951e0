/* kinds.c: the kinds of events whose records are raw bytes (ctx.h's
 * struct ltap_desc_ops): an event with a format (tracepoints, uprobes and
 * kprobes, the same on the perf ring), a task event ltap follows names
 * through (the same, and it feeds the task cache first), and a synthetic
 * event (a profile sample: only the common header, the thread at the
 * offset every record keeps it). A text trace's kinds are text.c's. */
#include "kinds.h"

#include "ctx.h"
#include "evdesc.h"
#include "event.h"
#include "eventud.h"
#include "proc.h"
#include "tasks.h"

#include <event-parse.h>
#include <lauxlib.h>
#include <string.h>

void ltap_push_raw_field(lua_State *L, const struct ltap_rec *rec, const struct tep_format_field *f)
{
	const char *data = rec->data;
	int size = rec->size;
	unsigned long flags = f->flags;

	if (f->offset + f->size > size) {
		lua_pushnil(L);
		return;
	}
	if (flags & TEP_FIELD_IS_DYNAMIC) {
		uint32_t loc;
		unsigned off, len;
		memcpy(&loc, data + f->offset, sizeof loc);
		off = loc & 0xffff;
		len = loc >> 16;
		if (flags & TEP_FIELD_IS_RELATIVE)
			off += (unsigned)(f->offset + f->size);
		if (off + len > (unsigned)size)
			len = off < (unsigned)size ? (unsigned)size - off : 0;
		if (flags & TEP_FIELD_IS_STRING || strncmp(f->type, "__data_loc char", 15) == 0)
			lua_pushlstring(L, data + off, strnlen(data + off, len));
		else
			lua_pushlstring(L, data + off, len);
		return;
	}
	if (flags & TEP_FIELD_IS_ARRAY) {
		/* char buf[] at the end (ftrace:print): the rest of the record */
		size_t len = f->size ? (size_t)f->size : (size_t)(size - f->offset);
		if (flags & TEP_FIELD_IS_STRING || strncmp(f->type, "char", 4) == 0 ||
		    strncmp(f->type, "const char", 10) == 0) {
			lua_pushlstring(L, data + f->offset, strnlen(data + f->offset, len));
			return;
		}
		unsigned es = f->elementsize ? f->elementsize : 1;
		unsigned n = f->arraylen ? f->arraylen : (unsigned)f->size / es;
		lua_createtable(L, (int)n, 0);
		for (unsigned i = 0; i < n; i++) {
			unsigned long long v = tep_read_number(f->event->tep, data + f->offset + i * es, (int)es);
			lua_pushinteger(L, (lua_Integer)v);
			lua_rawseti(L, -2, (lua_Integer)i + 1);
		}
		return;
	}
	{
		unsigned long long v = tep_read_number(f->event->tep, data + f->offset, f->size);
		if (flags & TEP_FIELD_IS_SIGNED) {
			switch (f->size) {
			case 1: lua_pushinteger(L, (int8_t)v); return;
			case 2: lua_pushinteger(L, (int16_t)v); return;
			case 4: lua_pushinteger(L, (int32_t)v); return;
			}
		}
		lua_pushinteger(L, (lua_Integer)v);
	}
}

static void raw_field(lua_State *L, struct ltap_event_ud *e, int i)
{
	ltap_push_raw_field(L, e->rec, e->desc->fields[i]);
}

static const struct ltap_rec *raw_record(struct ltap_ctx *ctx, struct ltap_evdesc *d, const struct ltap_rec *r)
{
	(void)ctx;
	(void)d;
	return r;
}

/* The kernel's own rendering through the event's print format. */
static void raw_tostring(lua_State *L, struct ltap_event_ud *e)
{
	struct trace_seq s;
	struct tep_record rec;

	memset(&rec, 0, sizeof rec);
	rec.ts = e->rec->ts;
	rec.cpu = e->rec->cpu;
	rec.size = e->rec->size;
	rec.data = (void *)e->rec->data;
	trace_seq_init(&s);
	trace_seq_printf(&s, "%s: ", e->desc->ev->name);
	tep_print_event(e->desc->ev->tep, &s, &rec, "%s", TEP_PRINT_INFO);
	trace_seq_terminate(&s);
	lua_pushstring(L, s.buffer);
	trace_seq_destroy(&s);
}

/* Keeps comm and tgid right at each event's time. */
static void task_observe(struct ltap_ctx *ctx, struct ltap_evdesc *d, const struct ltap_rec *r)
{
	int tid = ltap_task_event_apply(d->task, ctx->proc, r->data, r->size, d->tid_off);
	if (tid >= 0)
		ltap_event_forget_comm(ctx, tid);
}

/* "profile:cpu-clock: cpu=1 tid=42": all a synthetic event knows */
static void synthetic_tostring(lua_State *L, struct ltap_event_ud *e)
{
	int32_t tid;

	memcpy(&tid, (const char *)e->rec->data + e->desc->tid_off, sizeof tid);
	lua_rawgeti(L, LUA_REGISTRYINDEX, e->desc->name_ref);
	lua_pushfstring(L, "%s: cpu=%d tid=%d", lua_tostring(L, -1), e->rec->cpu, (int)tid);
	lua_remove(L, -2);
}

const struct ltap_desc_ops ltap_kind_raw = {
	.field = raw_field,
	.record = raw_record,
	.tostring = raw_tostring,
};

const struct ltap_desc_ops ltap_kind_task = {
	.field = raw_field,
	.record = raw_record,
	.tostring = raw_tostring,
	.observe = task_observe,
};

const struct ltap_desc_ops ltap_kind_synthetic = {
	.field = raw_field, /* it has no fields */
	.record = raw_record,
	.tostring = synthetic_tostring,
};
