/* evdesc.h: what an event id is to the bindings: its descriptor (reached
 * by array index per event), the ops of its kind and the probes declared
 * on it. desc.c keeps the registry of them; the kinds (kinds.c, text.c),
 * the event object and the dispatch read them. */
#ifndef LTAP_B_EVDESC_H
#define LTAP_B_EVDESC_H

#include "stream.h"

#include <lua.h>
#include <stdint.h>
#include <string.h>

struct ltap_ctx;
struct ltap_event_ud;
struct ltap_feed_fast;
struct ltap_filter;
struct ltap_stackcount;
struct ltap_symfields;
struct ltap_task_event;
struct tep_event;
struct tep_format_field;

/* synthetic events (profiles, perf's switch records) take ids down from
 * here, counted by ctx->nprofiles: above any tracepoint's */
#define LTAP_SYNTHETIC_ID_TOP 65535
#define LTAP_MAX_SYNTHETIC 16

/* One probe() declaration. */
struct ltap_probe {
	struct ltap_probe *next;      /* all probes, in declaration order */
	struct ltap_probe *next_same; /* probes of the same event */
	struct ltap_evdesc *desc;
	char *filter;                 /* ftrace filter text, or NULL */
	struct ltap_filter *ufilter;  /* applied in user space: the kernel applies another filter */
	int handler;                  /* index in the handlers table */
	int stack;                    /* asked for call chains: served by the perf ring */
	uint64_t freq;                /* a profile(): samples per second (0: a probe) */
	/* profile(HZ, COUNTS): samples counted straight into an ltap.stackcount,
	 * no Lua call per sample (*count NULL once the count is closed) */
	struct ltap_stackcount **count;
	/* a handler in C (ltap.offcpu): no event table, no Lua call; nonzero
	 * ends the run (it said why) */
	int (*cfn)(struct ltap_ctx *ctx, struct ltap_probe *p, struct ltap_evdesc *d, const struct ltap_rec *r);
	void *cdata;
	int cdata_owned;              /* cdata is the probe's: freed with it (a feed's) */
	struct ltap_lower *lower;     /* the feed stands for its Lua handler (lower.h), or NULL */
	char where[128];              /* "file:line:" of the declaration */
	/* hits: events that reached the handler (or count), an increment on
	 * the per-event path; the rest is probestats.c's, once a second */
	uint64_t hits, hits_checked;
	char spec[160];               /* what the script named: "u:PATH:FUNC", "sys:event" */
	int costly;                   /* a uprobe or kprobe: every hit traps the traced thread */
	int warned;
};

/* How one kind of event reads (desc.c makes descriptors of a kind): raw
 * records of a format (tracepoints, uprobes, perf tracepoints) and task
 * events, synthetic ones (profile samples: kinds.c), a text trace's lines
 * with a local format or with key=value pairs only (text.c). The event
 * object and the dispatch call these, and never ask which kind it is. */
struct ltap_desc_ops {
	/* pushes own field i (0-based) of the event e holds; nil when its
	 * record lacks it */
	void (*field)(lua_State *L, struct ltap_event_ud *e, int i);
	/* a key none of the format's fields has (e.KEY, e.args.KEY): pushes
	 * the event's own value of it, or raises; key NULL (e:copy()): sets
	 * every such key into the table at the top. NULL: no such keys */
	int (*pairs)(lua_State *L, struct ltap_event_ud *e, const char *key);
	/* the raw record of r that user-space filters read */
	const struct ltap_rec *(*record)(struct ltap_ctx *ctx, struct ltap_evdesc *d, const struct ltap_rec *r);
	/* pushes tostring(e) */
	void (*tostring)(lua_State *L, struct ltap_event_ud *e);
	/* sees each event before its handlers (task names); NULL: nothing */
	void (*observe)(struct ltap_ctx *ctx, struct ltap_evdesc *d, const struct ltap_rec *r);
	/* frees the kind's data; NULL: none */
	void (*free)(struct ltap_evdesc *d);
};

/* Everything known about one event id, reached by array index per event. */
struct ltap_evdesc {
	const struct ltap_desc_ops *ops;
	struct tep_event *ev; /* its format, or NULL (synthetic, key=value text) */
	int id;
	int tid_off;      /* where its records keep the thread id (common_pid) */
	int fields_ref;   /* registry ref: name -> field code, for e.NAME */
	int args_ref;     /* registry ref: name -> field code, for e.args.NAME */
	int name_ref;     /* registry ref: "sys:name" string */
	struct tep_format_field **fields; /* own fields, code i -> fields[i-1] */
	int nfields;
	struct ltap_probe *probes;
	/* under -p / -c, the instance serves the stack probes too: the events
	 * about a target that the running task is not (desc.c, dispatch.c) */
	int copies;
	int switches;     /* the targets' switches in, from perf's context-switch records */
	/* a tracepoint's chains: the first kernel frame seen to be the tracing's
	 * own (__traceiter_NAME), and one seen not to be (stack.c) */
	uint64_t tracing_leaf, traced_leaf;
	struct ltap_task_event *task; /* a task event ltap follows names through */
	/* the fed path (dispatch_fed.c): the event's one probe a count by the
	 * task (its feed's first part), nothing else asked of it; or NULL */
	struct ltap_feed_fast *fed_count;
	void *kind_data;  /* the kind's own (a text trace's decoder) */
	/* e.sym: the print format's names of field values (symbolic.c), made
	 * at the first e.sym of this event type */
	struct ltap_symfields *sym;
	int sym_ref;      /* registry ref: name -> index + 1; 0 until made */
};

/* the thread id a record of d carries (its common_pid) */
static inline int ltap_rec_tid(const struct ltap_evdesc *d, const struct ltap_rec *r)
{
	int32_t tid;
	memcpy(&tid, (const char *)r->data + d->tid_off, sizeof tid);
	return tid;
}

#endif
