/* ltap.h: libltap, the ltap tracing host as a library.
 *
 * A host runs ltap scripts (Lua 5.4) from their load to the end of their
 * run: probes on tracepoints, uprobes and profiles, timers, counters,
 * aggregates and reports, over the live kernel or a saved trace. The ltap
 * command is one client of this API; a program with an event loop of its
 * own is another: it polls ltap_host_fd() beside its own fds and calls
 * ltap_host_step() when it is readable.
 *
 * The life of a host:
 *
 *     ltap_host_new             LOADING: scripts declare probes and timers
 *     ltap_host_load_*          (as many chunks as wanted)
 *     ltap_host_start           ATTACHED, then RUNNING: the kernel traces,
 *                               begin hooks ran, the command runs
 *     ltap_host_step            ... until it returns 0: DRAINING (the final
 *       (or ltap_host_run)      drain, finish hooks), then ENDED
 *     ltap_host_status          the exit status, as the ltap command's
 *     ltap_host_free            also mid-run: the kernel is left clean
 *
 * Errors. Functions that can fail return 0 (or a count) on success and a
 * negative errno on failure; the one-line message that says why is
 * ltap_host_error(), and it is also passed to the log callback.
 *
 * What the library never does: exit the process, install a signal handler,
 * change the signal mask, write to stdout or stderr on its own. Scripts'
 * output (print, printf, reports) goes to the FILE the host names in its
 * options, messages (errors, warnings such as lost events) to its log
 * callback; without them, nothing is written. The kernel state a host makes
 * (a tracefs instance, uprobes, a command's cgroup) is undone by
 * ltap_host_free, by the end of the run, and, when the process dies without
 * either, by a guardian process the library forks once per process.
 *
 * Threads and hosts. A host is used by one thread at a time. Several hosts
 * may live in one process, each with its own Lua state, tracefs instance
 * ("ltap-PID", then "ltap-PID-N") and rings; ltap.term (a full-screen
 * terminal) can be open in one of them at a time. ltap_host_stop and
 * ltap_host_signal may be called from any thread and from a signal handler.
 *
 * Versions: LTAP_VERSION_* name the release this header comes with;
 * ltap_version() the library's. The ABI follows the soname (libltap.so.0):
 * option structs grow at their end only, and their sz field tells the
 * library which fields the caller knows (LTAP_HOST_OPTS sets it). */
#ifndef LTAP_H
#define LTAP_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifndef LTAP_API
#define LTAP_API __attribute__((visibility("default")))
#endif

#define LTAP_VERSION_MAJOR 0
#define LTAP_VERSION_MINOR 2
#define LTAP_VERSION_PATCH 0

/* The library's version: "0.2.0", and "0.2.0 (git abc1234)" when built
 * from a git checkout. */
LTAP_API const char *ltap_version(void);

struct lua_State;
typedef struct ltap_host ltap_host;

enum ltap_host_state {
	LTAP_HOST_LOADING,  /* made; scripts may be loaded */
	LTAP_HOST_ATTACHED, /* probes attached, the command not yet released */
	LTAP_HOST_RUNNING,  /* events and timers are dispatched */
	LTAP_HOST_DRAINING, /* the run ends: the final drain, finish hooks */
	LTAP_HOST_ENDED,    /* nothing is attached; the status is known */
};

enum ltap_log_level { LTAP_LOG_ERROR, LTAP_LOG_WARN, LTAP_LOG_INFO, LTAP_LOG_DEBUG };

/* Receives each message, one line without "ltap: " or a newline
 * ("lost 12 events (cpu1 12): the ring was full; try a larger -b"). */
typedef void (*ltap_log_fn)(void *ud, enum ltap_log_level level, const char *msg);

/* A host's options. Zero is the default of every field; declare them with
 * LTAP_HOST_OPTS so sz is set. */
struct ltap_host_opts {
	size_t sz;                /* sizeof(struct ltap_host_opts) */
	/* What to trace: none of pid, command, all is the whole system. */
	int pid;                  /* a process: its threads and the children it
				   * starts (ltap -p) */
	const char *command;      /* a command line, split into words as sh
				   * does, run by sh -c only when it has shell
				   * syntax (ltap -c): started held, traced
				   * from its exec, ended with its whole tree
				   * at the end of the run, which its own end
				   * ends */
	int all;                  /* the whole system, said (ltap -a): an
				   * error with pid or command */
	uint64_t duration_ns;     /* end the run after this long (ltap -d) */
	const char *input;        /* replay this saved trace (trace.dat, or
				   * trace text; "-": stdin) instead of
				   * tracing the live kernel */
	const char *record;       /* also save the live run's events to this
				   * trace.dat (ltap --record) */
	size_t ring_kb;           /* ring size per CPU in KiB (0: 8192) */
	int unordered;            /* dispatch each CPU's events as read, not
				   * merged in time order */
	uint64_t max_memory;      /* bytes the script's Lua state may use (0: a
				   * quarter of the machine's, the cgroup's or
				   * the rlimit's memory) */
	int64_t max_drain_ns;     /* the final drain's longest time (0: the
				   * default, 2 s; negative: no drain) */
	const char *serve;        /* "[ADDR:]PORT": serve the script's metrics
				   * for Prometheus at /metrics */
	int export_all;           /* with serve: every stats() aggregate too */
	int json;                 /* reports as one JSON document a line */
	int verbose;              /* debug messages too (ltap -v) */
	int exclude_self;         /* system-wide, leave this process's own
				   * events out, as the ltap command does (its
				   * ring reads would feed the rings); else a
				   * host's process is traced as any other */
	FILE *output;             /* where print, printf, io.write and reports
				   * write (NULL: nowhere) */
	ltap_log_fn log;          /* messages (NULL: none; the last error is
				   * still ltap_host_error's) */
	void *log_ud;
	FILE *error_output;       /* where scripts' io.stderr writes (NULL:
				   * each line a WARN message of log) */
	FILE *progress;           /* a terminal where long work (a replay, a
				   * large input read by ltap flamegraph)
				   * shows how far it is, one line redrawn and
				   * erased before messages; only drawn when
				   * it is a terminal (NULL: never; the ltap
				   * command gives stderr, not with --format
				   * json). Output to the same terminal is
				   * held between redraws. */
};

#define LTAP_HOST_OPTS(name, ...) \
	struct ltap_host_opts name = {.sz = sizeof(struct ltap_host_opts), __VA_ARGS__}

/* Makes a host: its Lua state with the stdlib, its loop, its command line
 * checked (a bad command, conflicting targets, an unreadable input: -EINVAL
 * with the message). *hp is set whenever memory allowed, also on failure,
 * so ltap_host_error(*hp) says why; free it with ltap_host_free either way.
 * 0 or -errno. Nothing of the kernel is touched yet. */
LTAP_API int ltap_host_new(ltap_host **hp, const struct ltap_host_opts *opts);

/* Load a chunk and run it: the load phase, where a script declares what it
 * handles (probe, every, begin, finish, ...). argv (argc strings, may be
 * NULL) are the script's arguments: its ... and arg[1..]; arg[0] is its
 * name. A file is read as Lua source (a precompiled chunk is refused);
 * name is a bundled script's (ltap_list_scripts). 0, or -errno: -ENOENT
 * for no such file or bundled script, -EINVAL for a script error (the
 * message has file:line and a traceback), -ECANCELED when the script ended
 * the run while loading (os.exit; ltap_host_status says how). */
LTAP_API int ltap_host_load_file(ltap_host *h, const char *path, int argc, char *const argv[]);
LTAP_API int ltap_host_load_string(ltap_host *h, const char *code, const char *name, int argc,
				   char *const argv[]);
LTAP_API int ltap_host_load_bundled(ltap_host *h, const char *name, int argc, char *const argv[]);

/* Attaches what the scripts declared (unknown events failed at load), lets
 * the command run and runs the begin hooks. 0, or -errno when the run could
 * not start: then it has ended (ltap_host_status). */
LTAP_API int ltap_host_start(ltap_host *h);

/* One fd, readable when the host has work (rings to read, a timer due, the
 * command's end, a metrics scrape): poll it for POLLIN (epoll, select,
 * libuv...) and call ltap_host_step when it is. Valid from ltap_host_new to
 * ltap_host_free; the host does not close it meanwhile. */
LTAP_API int ltap_host_fd(const ltap_host *h);

/* Does the work that is ready, waiting up to timeout_ms for some (0: not
 * at all; -1: until there is some), then returns. A replay does about 20
 * ms of work per step and keeps the fd readable while there is more. The
 * step in which the run ends does the end: the final drain (at most
 * max_drain_ns), finish hooks, the kernel cleaned. Returns 1 while the run
 * goes on, 0 once it has ended, -errno if the host was not started. */
LTAP_API int ltap_host_step(ltap_host *h, int timeout_ms);

/* ltap_host_start when not started, then steps until the end: the blocking
 * way. Returns the exit status (ltap_host_status). */
LTAP_API int ltap_host_run(ltap_host *h);

/* Ends the run after the current event: the rings are drained, finish
 * hooks run. A second call ends it at once. Any thread, a signal handler. */
LTAP_API void ltap_host_stop(ltap_host *h);

/* What the ltap command does when the process gets signal sig (SIGINT,
 * SIGTERM, SIGHUP, SIGQUIT), for a host that forwards its own: SIGINT runs
 * the script's ltap.on_interrupt handler if it has one, else (and for the
 * others) the first ends the run as ltap_host_stop does, a second at once
 * (status 128 + sig), and a handler still running half a second after the
 * first is interrupted. Async-signal-safe. */
LTAP_API void ltap_host_signal(ltap_host *h, int sig);

LTAP_API enum ltap_host_state ltap_host_state(const ltap_host *h);

/* The exit status, as ltap(1) says: 128 + N after a second signal N; 1
 * after a script error (2 for a usage error); CODE of exit(CODE); the
 * command's own status when it ended by itself; else 0. -1 until the run
 * has ended (or a load failed). */
LTAP_API int ltap_host_status(const ltap_host *h);

/* The last error's message, "" when there was none. Valid until the next
 * call on h. */
LTAP_API const char *ltap_host_error(const ltap_host *h);

/* The host's Lua state, to add functions scripts may call (lua_register
 * before loading them) or read their globals. Scripts' globals live there;
 * ltap's own registry entries are named "ltap.*". Do not close it. */
LTAP_API struct lua_State *ltap_host_lua(ltap_host *h);

/* Ends the run if it still runs (no finish hooks), undoes every kernel
 * change, ends the command's tree, closes every fd and frees every byte.
 * Tracing stops before it returns; the tracefs instance's removal (tens of
 * ms of the kernel's) is finished by the guardian process just after.
 * NULL is fine. */
LTAP_API void ltap_host_free(ltap_host *h);

/* --- Tools of the ltap command, usable without a host ----------------- */

/* Where messages of calls made without a host go (NULL: nowhere; the
 * default). Process-wide. */
LTAP_API void ltap_set_log(ltap_log_fn fn, void *ud, int verbose);

/* Lists events matching glob (NULL: all) as ltap list does: one
 * "system:event" a line (verbose: with fields and types); "usdt:PATH:GLOB"
 * and "u:PATH:GLOB" list SDT markers and functions of an ELF file. The
 * number listed, or -errno (the message to the log). */
LTAP_API int ltap_list(FILE *out, const char *glob, int verbose);

/* The bundled scripts, one "NAME  SUMMARY" line each. */
LTAP_API int ltap_list_scripts(FILE *out);

/* What this machine supports (tracefs, tracepoints, uprobes, kprobes,
 * counters, call chains), as ltap --check prints it. 0 when ltap can trace
 * here, -ENOTSUP when it cannot (the lines say why). */
LTAP_API int ltap_check(FILE *out);

/* The grammars of ltap's command line: a duration ("10s", "250ms", "2m";
 * a bare number is seconds) in ns; a size ("8M", "4096", "1G") in bytes.
 * 0 or -EINVAL. */
LTAP_API int ltap_parse_duration(const char *s, uint64_t *ns);
LTAP_API int ltap_parse_size(const char *s, uint64_t *bytes);

#ifdef __cplusplus
}
#endif

#endif
