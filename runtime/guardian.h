/* guardian.h: what ltap changed outside itself is undone however ltap ends.
 *
 * ltap forks a guardian (twice: it is init's child) before it changes
 * anything: a small process that
 * holds only the names of what to undo and sleeps in poll() on ltap's pidfd
 * and a socket from ltap. Before ltap makes a thing it adds its name; once
 * it has undone the thing itself it forgets it. When ltap is gone (SIGKILL,
 * the OOM killer, a crash) the guardian undoes what is still listed, in the
 * order of the kinds below, and exits; after a normal end the list is empty
 * and it just exits. It lives in a process group of its own with every
 * signal blocked, so ^C, ^\ or a SIGKILL sent to ltap's job do not reach it.
 *
 * Process-wide by nature (it guards this process, for all its hosts), so
 * the calls take no object; thread-safe. Each host holds it while it lives
 * (ltap_guardian_hold); when the last one is freed the guardian goes too,
 * so a program that hosted ltap for a while keeps no process or fd of it.
 * In a process forked from ltap the calls do nothing. */
#ifndef LTAP_GUARDIAN_H
#define LTAP_GUARDIAN_H

/* What a name stands for, and how it is undone; undone in this order. */
enum ltap_guard_kind {
	LTAP_GUARD_PGRP,     /* a process group id ("1234"): SIGKILL to the group */
	LTAP_GUARD_CGROUP,   /* a cgroup directory (absolute path): its processes
			      * killed (cgroup.kill, or SIGKILL to each of
			      * cgroup.procs), then the directory removed */
	LTAP_GUARD_INSTANCE, /* a tracefs instance ("ltap-1234"): tracing and
			      * events off, then removed */
	LTAP_GUARD_PROBES,   /* a dynamic event group ("ltap_1234"): its lines in
			      * uprobe_events and kprobe_events removed */
	LTAP_GUARD_NKINDS
};

#define LTAP_GUARD_NAME_MAX 1024

/* How one kind is undone: its row of the undo table (undo.h's
 * ltap_undo_table, indexed by enum ltap_guard_kind). The guardian knows
 * the kinds only through it. */
struct ltap_guard_undo {
	const char *what;                /* what undoing one is, as said after it: "removed instance" */
	int (*remove)(const char *name); /* undoes one: 1 undone, 0 nothing was there, -errno */
	int (*reap_stale)(void);         /* removes what dead ltaps left of the kind; NULL: none */
};

/* Forks the guardian (once; later calls return 0). 0 or -errno. It is
 * started by the first ltap_guardian_add, just before the first change. */
int ltap_guardian_start(void);
/* Lists a thing to undo, before it is made; starts the guardian if need be.
 * Once this returns the name is in the guardian's socket: a SIGKILL on the
 * next instruction still gets it undone. 0 or -errno, said on stderr. */
int ltap_guardian_add(enum ltap_guard_kind kind, const char *name);
/* ltap undid the thing itself: the guardian leaves it alone. 0 or -errno. */
int ltap_guardian_forget(enum ltap_guard_kind kind, const char *name);
/* Asks the guardian to undo a listed thing now, and forget it: what takes
 * the kernel long to undo (an instance's removal, 40-90 ms of tracefs's
 * teardown here) is done beside ltap's own end, not before it. ltap must
 * have stopped using the thing (tracing off, its files closed). 0, or
 * -errno when there is no guardian to ask (then undo it yourself). */
int ltap_guardian_undo(enum ltap_guard_kind kind, const char *name);
/* A host begins / ends: the guardian started by the first add stays until
 * the last holder releases it (its list empty then: it exits once done
 * with what it was asked to undo now; nobody waits for it: it is
 * nobody's child). undo is the table it undoes by (undo.h), handed
 * before the first add: a fork of this process keeps it. */
void ltap_guardian_hold(const struct ltap_guard_undo *undo);
void ltap_guardian_release(void);
/* The guardian's pid, 0 when there is none (tests). */
int ltap_guardian_pid(void);

/* Removes what ltaps that are gone left behind without a guardian (an older
 * ltap, a guardian killed with its ltap), each kind of undo's its own way:
 * commands' cgroups, instances "ltap-<pid>" and dynamic event groups
 * "ltap_<pid>" whose pid is not a running ltap. */
void ltap_guardian_reap_stale(const struct ltap_guard_undo *undo);
/* ltap_guardian_reap_stale() at the first ltap_guardian_add, before the
 * first change of this run: a run that changes nothing in the kernel (a
 * flame graph, a replay, a profile) forks no guardian and reaps nothing. */
void ltap_guardian_reap_first(void);

#endif
