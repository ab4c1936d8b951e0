/* ctx.h: the one context of a host (ltap.h's ltap_host), kept in the Lua
 * registry. Bindings reach it with ltap_ctx_get(L); there are no C globals. */
#ifndef LTAP_CTX_H
#define LTAP_CTX_H

#include "command.h"
#include "embedded.h"
#include "gate.h"
#include "log.h"
#include "loop.h"
#include "stream.h"
#include "target.h"

#include <lauxlib.h>
#include <lua.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>

struct tep_event;
struct tep_format_field;
struct ltap_filter;
struct ltap_source;
struct ltap_stackcount;
struct ltap_task_event;
struct ltap_event_ud;
struct ltap_ctx;
struct ltap_symfields;

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
	void *kind_data;  /* the kind's own (a text trace's decoder) */
	/* e.sym: the print format's names of field values (symbolic.c), made
	 * at the first e.sym of this event type */
	struct ltap_symfields *sym;
	int sym_ref;      /* registry ref: name -> index + 1; 0 until made */
};

/* What the event object (a reused Lua table, event.c) shows. */
struct ltap_event_ud {
	struct ltap_ctx *ctx;
	struct ltap_evdesc *desc;
	const struct ltap_rec *rec; /* NULL outside a handler */
	/* what the table holds now, so unchanged fields are not stored again */
	struct ltap_evdesc *last_desc; /* NULL: the table is empty */
	int last_tid, last_cpu;
	int comms_cached; /* a comm string was cached: renames must forget it */
};

/* An input that names events its own way (a text trace: text.c). NULL in
 * ctx->face: probe() resolves through the catalog. */
struct ltap_face {
	/* probe(SPEC, FILTER, FN) at stack index fn; raises on a bad spec */
	void (*probe)(lua_State *L, struct ltap_ctx *ctx, const char *spec, const char *filter, int fn);
	/* after the load phase, before the sources attach: 0 or -1 (logged) */
	int (*attach)(struct ltap_ctx *ctx);
	/* frees the face's state (after the catalog) */
	void (*close)(struct ltap_ctx *ctx);
};

struct ltap_options {
	const char *command;     /* -c */
	pid_t pid;               /* -p, 0 for system-wide */
	int all;                 /* -a: system-wide said explicitly (not with -p or -c) */
	uint64_t duration;       /* -d in ns, 0 for none */
	size_t buffer_kb;        /* per-CPU ring size */
	int ordered;
	int verbose;
	int json;                /* --format json */
	const char *input;       /* --input FILE: replay */
	const char *record;      /* --record FILE */
	uint64_t max_memory;     /* --max-memory: the Lua state's limit (0: the default) */
	uint64_t max_drain;      /* --max-drain: the final drain's limit in ns */
	const char *serve;       /* --serve [ADDR:]PORT */
	int export_all;          /* --export-all */
	int exclude_self;        /* the process's own events left out, system-wide */
	FILE *progress;          /* a terminal for the progress line of long work, or NULL (progress.h) */
};

/* The Lua state's memory (memory.c). */
struct ltap_memory {
	size_t used, limit;
	const char *basis;       /* what the default limit is a share of; NULL for --max-memory */
	int hit;                 /* the script went over: the run ends */
	int reported;
	int pending;             /* a refusal Lua may retry after its emergency GC */
	const void *pend_ptr;
	size_t pend_osize, pend_nsize;
};

/* Why a run ends: any bit set ends it (ltap_run_end, host.c). Which of
 * them are set decides what the end does (a final drain, finish hooks)
 * and the exit status; they are requests, the host makes the transitions. */
enum {
	LTAP_END_STOP = 1 << 0,    /* from outside or its own course (-d, a signal,
				    * ltap_host_stop, the command's end): the
				    * rings drained, finish hooks run */
	LTAP_END_EXIT = 1 << 1,    /* the script's exit(): nothing more dispatched,
				    * finish hooks run */
	LTAP_END_ERROR = 1 << 2,   /* a script error or a failure of the run: no
				    * finish hooks; status 1 */
	LTAP_END_USAGE = 1 << 3,   /* with ERROR: it was a usage error, status 2 */
	LTAP_END_NOW = 1 << 4,     /* a second signal, or on_interrupt's "quit": no
				    * drain, no finish hooks */
	LTAP_END_NOLUA = 1 << 5,   /* os.exit() or the memory limit: no Lua runs
				    * again (call.c unwinds the running call) */
	LTAP_END_INTERRUPTED = 1 << 6, /* a runaway handler was stopped by a signal:
				    * status 1, finish hooks still run */
};

/* Where a host's scripts write and its messages go (host.c). */
struct ltap_host_io {
	FILE *out, *err;          /* io.stdout / print, io.stderr */
	FILE *own_out, *own_err;  /* those the host made (discard, to the log) */
	struct ltap_progress *progress; /* a replay's line, or a large input's being read (flame.c) */
	struct ltap_log_target log; /* this host's messages: host_log */
	ltap_log_fn user_log;     /* the host's own callback, or NULL */
	void *user_ud;
	char error[1024];         /* the last error message */
	char errline[1024];       /* io.stderr's line being written, to the log */
	size_t errlen;
};

/* The run's state: host.c owns it. state is ltap.h's enum ltap_host_state. */
struct ltap_run {
	int state;
	unsigned end;          /* LTAP_END_* */
	int exit_code;         /* exit(CODE) or os.exit(CODE); -1: none given */
	int end_signal;        /* the signal of LTAP_END_NOW, else 0 */
	int in_loop;           /* the loop is dispatching: no nested dispatch */
	uint64_t stop_at;      /* where -d ended the run on the trace clock, or 0 */
	int command_status;    /* the command's status when it ended by itself, or -1 */
};

#define LTAP_MAX_SOURCES 2 /* a live run's tracefs and perf rings; a replay's file */

struct ltap_ctx {
	lua_State *L;
	struct ltap_options opt;
	struct ltap_memory mem;
	struct ltap_catalog *cat;
	struct ltap_uprobes *uprobes; /* made at load time, removed in ltap_ctx_free */
	struct ltap_counter_ud *counters; /* counter() declarations, opened at attach */
	struct ltap_source *sources[LTAP_MAX_SOURCES]; /* where the events come from (source.h) */
	int nsources;
	const struct ltap_face *face; /* the input's own names for events (text.c), or NULL */
	struct ltap_textmode *text;   /* text.c's state */
	struct ltap_loop *loop;
	struct ltap_proc *proc;
	struct ltap_symbols *syms;    /* made on the first symbol lookup */
	struct ltap_metrics *metrics; /* metrics.*() declarations and the --serve endpoint */
	int nprofiles;
	struct ltap_cmd command;      /* -c, ltap.options{command=} */
	struct ltap_child child;
	int have_child;
	struct ltap_gate gate;        /* the commands' events from their exec (gate.h) */

	struct ltap_evdesc **by_id;
	int nids;
	struct ltap_probe *probes, **probes_tail;
	int nprobes;
	int ntimers;

	/* fixed stack slots of the run phase */
	int msgh_slot, handlers_slot, timers_slot, event_slot;
	int comms_slot, keys_slot; /* tid -> comm cache; the common field names */
	struct ltap_event_ud *event;

	uint64_t start_time, trace_now;
	struct ltap_run run;
	/* a script error in a call, when the run goes on for it (serving:
	 * metrics.c counts it); 1 when forgiven */
	int (*forgive)(struct ltap_ctx *ctx, const char *msg);

	/* signals and interrupts (signals.c, call.c); written by
	 * ltap_host_signal, which may run in a signal handler */
	volatile int sigints;
	volatile int last_signal; /* the last of SIGINT, SIGTERM, SIGQUIT, SIGHUP */
	volatile uint64_t sig_time;
	volatile unsigned sig_call_seq;
	unsigned call_seq;
	int in_call;
	int on_interrupt;   /* ltap.on_interrupt(FN): the script handles SIGINT */
	volatile int interrupts_pending;
	int interrupts;     /* handled so far */
	uint64_t last_interrupt;
	int interrupted;    /* call.c is stopping a runaway handler */

	/* the host's side (host.c) */
	struct ltap_host_io io;
	lua_State *main_L;  /* the host's own Lua state (NULL: require "ltap") */
	int thread_ref;     /* registry ref: ctx->L, the thread of the fixed slots */
	int module;         /* hosted by require "ltap" in someone else's Lua state */
	int env_ref;        /* registry ref: the script environment (module: a table
			     * of its own; else the globals) */
	int sources_opened; /* 1 opened, -1 failed, 0 not yet (ltap_ctx_sources) */
	char why[256];      /* why the last ltap_probe_on failed, "" for want of memory */
	int serial;         /* its number among the process's hosts (owner.h): its names */
	int attached;       /* the start attached everything: a drain and finish hooks */
};

#define LTAP_TIMER_DURATION (-1)
#define LTAP_TIMER_PROBES (-2) /* probestats.c's check of the probes' rates, once a second */
/* synthetic events (profiles, perf's switch records) take ids down from
 * here, counted by ctx->nprofiles: above any tracepoint's */
#define LTAP_SYNTHETIC_ID_TOP 65535
#define LTAP_MAX_SYNTHETIC 16
#define LTAP_MAX_DRAIN 2000000000ull /* ns: the final drain's default bound (--max-drain) */

/* the thread id a record of d carries (its common_pid) */
static inline int ltap_rec_tid(const struct ltap_evdesc *d, const struct ltap_rec *r)
{
	int32_t tid;
	memcpy(&tid, (const char *)r->data + d->tid_off, sizeof tid);
	return tid;
}

/* The registry key of the context: one host per Lua state, found from any
 * of its threads (a Lua program's own, under require "ltap", too). */
extern const char ltap_ctx_key;

static inline struct ltap_ctx *ltap_ctx_get(lua_State *L)
{
	struct ltap_ctx *ctx;
	lua_rawgetp(L, LUA_REGISTRYINDEX, &ltap_ctx_key);
	ctx = (struct ltap_ctx *)lua_touserdata(L, -1);
	lua_pop(L, 1);
	return ctx;
}

/* The load phase is over: probes, counters and options are refused; timers
 * count from now. */
static inline int ltap_run_started(const struct ltap_ctx *ctx)
{
	return ctx->run.state >= LTAP_HOST_ATTACHED;
}

/* The run is ending with nothing more dispatched (exit, an error, at once). */
static inline int ltap_run_halting(const struct ltap_ctx *ctx)
{
	return (ctx->run.end & ~LTAP_END_STOP) != 0;
}

/* host.c: a host from start to end (ltap.h's ltap_host_* are its public face) */
/* A context hosted by require "ltap" in L, a Lua program's own state: its
 * functions in a module table (ltap_open_api), its thread anchored in L's
 * registry; NULL when it cannot be made (said). */
struct ltap_ctx *ltap_ctx_new_module(lua_State *L, const struct ltap_options *opt);
void ltap_ctx_free(struct ltap_ctx *ctx);
/* ltap_host_step of a context: 1 running, 0 ended, -errno */
int ltap_ctx_step(struct ltap_ctx *ctx, int timeout_ms);
/* ltap_host_start and ltap_host_status of a context */
int ltap_ctx_start(struct ltap_ctx *ctx);
int ltap_ctx_status(const struct ltap_ctx *ctx);
/* Ends the run, for why (LTAP_END_*): the one way bindings end it. STOP
 * alone lets the current batch finish and the rings drain; anything else
 * halts dispatching at once. The host makes the transitions. */
void ltap_run_end(struct ltap_ctx *ctx, unsigned why);
/* Opens the sources and their catalog of formats, once: the live kernel's
 * (tracefs: needs root) or input's. 0, or -1 (said; again -1 later). */
int ltap_ctx_sources(struct ltap_ctx *ctx);
/* The catalog probes resolve against, opened on first need; raises the
 * reason when it cannot be read */
struct ltap_catalog *ltap_ctx_catalog(lua_State *L, struct ltap_ctx *ctx);
/* flushes what scripts wrote (the host's output) */
void ltap_host_flush(struct ltap_ctx *ctx);

/* api.c: the Lua face, in one table */
void ltap_open_api(lua_State *L, struct ltap_ctx *ctx);
/* luaaux.c: liolib's createmeta: metatable name (pushed) with metameth,
 * and meth as its __index */
void ltap_newmeta(lua_State *L, const char *name, const luaL_Reg *metameth, const luaL_Reg *meth);
/* v as a Lua integer when it is one (counts print as 38, not 38.0) */
void ltap_push_exact(lua_State *L, double v);

/* call.c: every handler, timer and hook goes through here. */
int ltap_call(struct ltap_ctx *ctx, int nargs, int nres);
/* ends the run from inside a call (os.exit, the memory limit): the script
 * raises at its next instruction, through any pcall, and runs no more */
void ltap_call_end(struct ltap_ctx *ctx, lua_State *L, unsigned why);
/* async-signal-safe: the running call is interrupted within count
 * instructions if it is still running after the grace period */
void ltap_call_interrupt(struct ltap_ctx *ctx, int count);
/* pushes the traceback message handler; returns its stack index */
int ltap_push_msghandler(lua_State *L);
void ltap_report_flush(struct ltap_ctx *ctx);

/* signals.c: ltap_host_signal, ltap.on_interrupt */
/* runs the script's SIGINT handler for the signals that came; 1 when the run ends */
int ltap_interrupt_dispatch(struct ltap_ctx *ctx);

/* desc.c: the registry of descriptors and probes */
void ltap_open_desc(lua_State *L, struct ltap_ctx *ctx);
/* a bare descriptor of kind ops at event id (raises when out of memory) */
struct ltap_evdesc *ltap_desc_new(lua_State *L, struct ltap_ctx *ctx, int id, const struct ltap_desc_ops *ops);
/* a descriptor at id with ev's fields, name and field tables */
struct ltap_evdesc *ltap_desc_event(lua_State *L, struct ltap_ctx *ctx, int id, struct tep_event *ev,
				    const struct ltap_desc_ops *ops);
/* a descriptor at id without fields, called name */
struct ltap_evdesc *ltap_desc_synthetic(lua_State *L, struct ltap_ctx *ctx, int id, const char *name,
					const struct ltap_desc_ops *ops);
/* ev's descriptor (a raw one, made the first time) */
struct ltap_evdesc *ltap_desc_of(lua_State *L, struct ltap_ctx *ctx, struct tep_event *ev);
/* the descriptor at id, or NULL */
struct ltap_evdesc *ltap_desc_at(struct ltap_ctx *ctx, int id);
/* the function at stack index fn as a handler; returns its index */
int ltap_handler_add(lua_State *L, struct ltap_ctx *ctx, int fn);
/* a probe of d calling handler (a feed's probe adds in C: feed.h); NULL
 * when out of memory or a feed's names do not fit d (ctx->why says) */
struct ltap_probe *ltap_probe_on(struct ltap_ctx *ctx, struct ltap_evdesc *d, int handler, const char *filter,
				 const char *where);
/* raises why the last ltap_probe_on failed */
int ltap_probe_raise(lua_State *L, struct ltap_ctx *ctx);
/* declares a probe of d with the handler at stack index fn (raises) */
struct ltap_probe *ltap_probe_add(lua_State *L, struct ltap_ctx *ctx, struct ltap_evdesc *d, int fn,
				  const char *filter);
/* with probes declared: descriptors for the task events ltap follows
 * names through (tasks.h), made in a protected call; 0 or -1 */
int ltap_desc_follow_tasks(struct ltap_ctx *ctx);
/* whether a live run declares profiles only (no tracepoint, no
 * recording): the perf rings' task records then name the tasks */
int ltap_desc_profiles_only(struct ltap_ctx *ctx);
/* what the sources are to do: an event per descriptor, with the kernel
 * filter of its probes; the number, or -ENOMEM */
struct ltap_source_event;
int ltap_desc_plan(struct ltap_ctx *ctx, struct ltap_source_event **out);
void ltap_desc_plan_free(struct ltap_source_event *evs, int n);
/* after the sources attached: each filtered probe whose filter the kernel
 * does not apply as it is gets it applied in user space (filter.c);
 * 0, or -1 with a logged reason naming the probe */
int ltap_desc_plan_filters(struct ltap_ctx *ctx, const struct ltap_source_event *evs, int n);
/* the same for d, the kernel applying kernel (NULL: no filter) */
int ltap_desc_user_filters(struct ltap_ctx *ctx, struct ltap_evdesc *d, const char *kernel);
void ltap_descs_free(struct ltap_ctx *ctx);

/* kinds.c: the kinds of raw and synthetic records */
extern const struct ltap_desc_ops ltap_kind_raw, ltap_kind_task, ltap_kind_synthetic;
/* pushes field f of the raw record rec (nil beyond its end) */
void ltap_push_raw_field(lua_State *L, const struct ltap_rec *rec, const struct tep_format_field *f);

/* dispatch.c: the loop's event hooks */
/* pushes the fixed slots the per-event path reaches without lookups, on
 * an empty stack (the main one, or a thread for a nested drain) */
void ltap_dispatch_slots(lua_State *L, struct ltap_ctx *ctx);
int ltap_dispatch_event(void *ud, const struct ltap_rec *r);
/* whether a handler would have taken r (loop.h's skip hook) */
int ltap_skip_event(void *ud, const struct ltap_rec *r);

/* run.c: run control */
void ltap_open_run(lua_State *L, struct ltap_ctx *ctx);
/* runs the hooks registered under name ("ltap.begin" or "ltap.finish"); 0 or -1 */
int ltap_run_hooks(struct ltap_ctx *ctx, const char *name);
/* a command pid waits at a start gate from now on: the run's events of it
 * count from its exec (gate.h), and a recording says so */
void ltap_run_hold(struct ltap_ctx *ctx, int pid);

/* event.c */
void ltap_open_event(lua_State *L, struct ltap_ctx *ctx);
/* d's name tables: fields_ref (e.X) and args_ref (e.args.X) */
void ltap_event_fields_tables(lua_State *L, struct ltap_evdesc *d);
/* pushes the event's fixed stack slots; returns the event's index */
int ltap_event_push_slots(lua_State *L, struct ltap_ctx *ctx);
void ltap_event_fill(struct ltap_ctx *ctx, struct ltap_evdesc *d, const struct ltap_rec *r);
void ltap_event_clear(struct ltap_ctx *ctx);
void ltap_event_forget_comm(struct ltap_ctx *ctx, int tid);
/* the event object's state in a handler (raises outside one) */
struct ltap_event_ud *ltap_event_check(lua_State *L);
/* probestats.c: each probe's hits and rate */
/* the check of the interval ending at `at` (LTAP_TIMER_PROBES) */
void ltap_probes_check(struct ltap_ctx *ctx, uint64_t at);
/* at the end of a run: every probe's hits and rate, on stderr with -v or
 * when the run has uprobes or kprobes */
void ltap_probes_report(struct ltap_ctx *ctx);
/* symbolic.c: e.sym */
/* pushes the e.sym proxy of the event whose state is e */
void ltap_sym_proxy(lua_State *L, struct ltap_event_ud *e);
/* pushes a table of every symbolic field's text of the event (e:copy()) */
void ltap_sym_copy(lua_State *L, struct ltap_event_ud *e);
/* timer.c */
void ltap_open_timer(lua_State *L, struct ltap_ctx *ctx);
int ltap_dispatch_timer(void *ud, int id, uint64_t at);
int ltap_timers_attach(struct ltap_ctx *ctx);
/* warns of every() timers that missed ticks (the loop fell behind) */
void ltap_timers_report(struct ltap_ctx *ctx);
/* counter.c */
void ltap_open_counter(lua_State *L, struct ltap_ctx *ctx);
int ltap_counters_attach(struct ltap_ctx *ctx);
void ltap_counters_detach(struct ltap_ctx *ctx);
/* text.c: --input of trace / trace_pipe text: its source, catalog and face */
int ltap_text_open(struct ltap_ctx *ctx);
/* uprobe.c: u:, ur:, usdt: specs made into kernel uprobes */
int ltap_is_uprobe_spec(const char *spec);
struct tep_event *ltap_uprobe_event(lua_State *L, struct ltap_ctx *ctx, const char *spec);
/* stats.c */
void ltap_open_stats(lua_State *L, struct ltap_ctx *ctx);
/* stats.c, read by metrics_*.c (the aggregate's layout stays in stats.c) */
struct stats;
struct ltap_stats_shape {
	int hist;       /* has a histogram of nbuckets buckets */
	int nbuckets;
	int int_bounds; /* every bucket bound is an integer */
	int arity;      /* key parts (0 until the first add) */
	int keyless;
	int64_t dropped;
	int nslots;     /* slots to walk with ltap_stats_row */
};
struct ltap_stats_row {
	int64_t count;
	int is_float;   /* the sum is dsum, else isum */
	int64_t isum;
	double dsum;
	const int64_t *buckets;
};
struct stats *ltap_stats_test(lua_State *L, int idx);
void ltap_stats_shape(const struct stats *s, struct ltap_stats_shape *sh);
/* slot i's figures; 0 when it holds no key */
int ltap_stats_row(const struct stats *s, int i, struct ltap_stats_row *row);
/* bucket k holds [lo, hi): its hi, HUGE_VAL for the open top one */
double ltap_stats_bucket_hi(const struct stats *s, int k);
/* slot i's key parts (strings point into the aggregate) */
struct ltap_agg_part;
void ltap_stats_key(const struct stats *s, int i, struct ltap_agg_part *key);
/* stackcount.c: the ltap.stackcount type; flame.c: a laid-out flame graph's */
void ltap_open_stackcount(lua_State *L, struct ltap_ctx *ctx);
/* the count of the ltap.stackcount at idx, or NULL when idx is none */
struct ltap_stackcount **ltap_stackcount_at(lua_State *L, int idx);
/* one sample of r counted into *count, in its task's name; -1 when out of
 * memory (said, and the run ends) */
int ltap_stackcount_sample(struct ltap_ctx *ctx, struct ltap_stackcount **count, const struct ltap_rec *r, int tid);
/* n samples of r's stack in comm into sc, or with n < 0 none (the stack
 * interned); the stack's key, or -ENOMEM after a full collection and a
 * second try */
long ltap_stackcount_stack(lua_State *L, struct ltap_stackcount *sc, struct ltap_ctx *ctx, const struct ltap_rec *r,
			   const char *comm, size_t len, int64_t n);
void ltap_open_flame(lua_State *L, struct ltap_ctx *ctx);
/* offcpu.c: ltap.offcpu(COUNTS, OPTS), off-CPU time counted in C */
int offcpu_offcpu(lua_State *L);
void ltap_open_offcpu(lua_State *L, struct ltap_ctx *ctx);
/* stack.c: e:stack() and friends, sym() */
enum { STACK_ALL, STACK_KERNEL, STACK_USER, STACK_FOLDED, STACK_FRAME, STACK_LEAF, STACK_SCRIPT };
/* pushes e:stack() (which: STACK_ALL/KERNEL/USER), e:folded() (STACK_FOLDED;
 * arg: the comm at stack index arg) or e:frame(N) (STACK_FRAME; arg: N) */
int ltap_stack_push(lua_State *L, struct ltap_ctx *ctx, const struct ltap_rec *r, int which, int arg);
/* the frames of r, leaf first, at most LTAP_STACK_MAX_FRAMES (raw: NULL or
 * their addresses), the chain cut where a user frame leaves every mapping:
 * ltap_symbols_chain, the one walk of a call chain */
#define LTAP_STACK_MAX_FRAMES 512
struct ltap_frame;
int ltap_stack_frames(struct ltap_ctx *ctx, const struct ltap_rec *r, struct ltap_frame *frames, uint64_t *raw);
/* frames[0..n) of r (raw: NULL or their addresses) without the tracing's
 * own first frame of a tracepoint's chain; the number left */
int ltap_stack_untraced(struct ltap_ctx *ctx, const struct ltap_rec *r, struct ltap_frame *frames, uint64_t *raw,
			int n);
/* leaf.c: e:leaf() (STACK_LEAF): sym, module, kernel, off, addr of frame 1 */
int ltap_stack_leaf(lua_State *L, struct ltap_ctx *ctx, const struct ltap_rec *r);
/* scripttext.c: e:script(PERIOD) (STACK_SCRIPT; arg: the stack index of
 * the comm, then PERIOD): the sample as perf script prints it */
int ltap_stack_script(lua_State *L, struct ltap_ctx *ctx, const struct ltap_rec *r, int comm_idx);
/* memory.c: the Lua state, its allocator with the limit, the limit's message */
lua_State *ltap_memory_state(struct ltap_ctx *ctx);
/* options.c: an options table's keys and value types against spec (ended
 * by {NULL}); raises "what: unknown option 'x' (options: ...)" at the caller */
struct ltap_optspec {
	const char *name;
	const char *types; /* "string", "boolean", "integer", "string|table", "any" */
};
void ltap_check_options(lua_State *L, int idx, const char *what, const struct ltap_optspec *spec);
/* raises a usage error: one line under the script's name, no traceback, exit 2 */
int ltap_usage_error(lua_State *L, const char *fmt, ...);
/* the value at idx is a usage error: logs it, returns 1; else 0 */
int ltap_usage_report(lua_State *L, int idx);
void ltap_open_options(lua_State *L, struct ltap_ctx *ctx);
/* command.c: c from the string or argument vector at idx; raises "fname: ..." */
void ltap_check_command(lua_State *L, int idx, struct ltap_cmd *c, const char *fname);
/* term.c: ltap.term, the terminal of a full-screen script (ltap top) */
void ltap_open_term(lua_State *L, struct ltap_ctx *ctx);
/* embedded.c */
void ltap_open_embedded(lua_State *L, struct ltap_ctx *ctx);
/* the function at the top runs as ltap's own code: its globals are the
 * script environment's, its require is ltap's (ltap.* from ltap's image,
 * dkjson from its installed path, nothing from LUA_PATH) */
void ltap_embedded_own_env(lua_State *L, struct ltap_ctx *ctx);
/* pushes the script environment's ltap table */
void ltap_push_ltap(lua_State *L, struct ltap_ctx *ctx);

#endif
