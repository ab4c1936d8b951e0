/* ctx.h: the one context of a host (ltap.h's ltap_host), kept in the Lua
 * registry. Bindings reach it with ltap_ctx_get(L); there are no C globals. */
#ifndef LTAP_CTX_H
#define LTAP_CTX_H

#include "command.h"
#include "gate.h"
#include "log.h"
#include "ltap.h"
#include "source.h"
#include "target.h"

#include <lua.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

struct ltap_catalog;
struct ltap_counter_ud;
struct ltap_ctx;
struct ltap_event_ud;
struct ltap_evdesc;
struct ltap_face;
struct ltap_loop;
struct ltap_metrics;
struct ltap_probe;
struct ltap_proc;
struct ltap_symbols;
struct ltap_uprobes;

/* An input that names events its own way (a text trace: text.c), the
 * first member of its own state. NULL in ctx->face: probe() resolves
 * through the catalog. */
struct ltap_face {
	/* probe(SPEC, FILTER, FN) at stack index fn; raises on a bad spec */
	void (*probe)(lua_State *L, struct ltap_ctx *ctx, struct ltap_face *f, const char *spec, const char *filter,
		      int fn);
	/* after the load phase, before the sources attach: 0 or -1 (logged) */
	int (*attach)(struct ltap_ctx *ctx, struct ltap_face *f);
	/* frees the face and its state (after the catalog) */
	void (*close)(struct ltap_face *f);
};

struct ltap_options {
	const char *command;     /* -c */
	pid_t pid;               /* -p, 0 for system-wide */
	int all;                 /* -a: system-wide said explicitly (not with -p or -c) */
	uint64_t duration;       /* -d in ns, 0 for none */
	size_t buffer_kb;        /* per-CPU ring size */
	int buffer_exact;        /* buffer_kb is the user's (-b, ring=), not a least size ltap chose */
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
	struct ltap_face *face;       /* the input's own names for events, or NULL (sources.c) */
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
	struct ltap_lower *lower_armed; /* lowered probes checked since Lua last ran (lower.h) */
	int lower_hinted;               /* the last handler -v said could run in C (lower.c) */
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
	int sources_opened; /* 1 opened, -1 failed, 0 not yet (sources.h) */
	unsigned caps;      /* what the sources can do, opened or to open (sources.c) */
	char why[256];      /* why the last ltap_probe_on failed, "" for want of memory */
	int serial;         /* its number among the process's hosts (owner.h): its names */
	int attached;       /* the start attached everything: a drain and finish hooks */
};

#define LTAP_MAX_DRAIN 2000000000ull /* ns: the final drain's default bound (--max-drain) */

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

/* A run on this machine's kernel as it runs (source.h's LTAP_SOURCE_LIVE). */
static inline int ltap_ctx_live(const struct ltap_ctx *ctx)
{
	return (ctx->caps & LTAP_SOURCE_LIVE) != 0;
}

/* the descriptor of event id, or NULL */
static inline struct ltap_evdesc *ltap_desc_at(const struct ltap_ctx *ctx, int id)
{
	return id >= 0 && id < ctx->nids ? ctx->by_id[id] : NULL;
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

/* The context's own functions (ctx.c), for every binding. */
/* Ends the run, for why (LTAP_END_*): the one way bindings end it. STOP
 * alone lets the current batch finish and the rings drain; anything else
 * halts dispatching at once. The host makes the transitions. */
void ltap_run_end(struct ltap_ctx *ctx, unsigned why);
/* flushes what scripts wrote (the host's output) */
void ltap_host_flush(struct ltap_ctx *ctx);
/* pushes the script environment's ltap table */
void ltap_push_ltap(lua_State *L, struct ltap_ctx *ctx);

#endif
