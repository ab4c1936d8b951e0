/* tasks.h: what ltap learns from the kernel's task events, in order with
 * the events: the tid -> (tgid, comm) cache (proc.h) follows newtask,
 * rename and exec; a command held at its start gate (gate.h) counts from
 * its exec's rename, and a held task that exits or whose number a new
 * task takes never ran the command. */
#ifndef LTAP_TASKS_H
#define LTAP_TASKS_H

#include <stddef.h>

struct ltap_gate;
struct ltap_proc;
struct tep_event;
struct tep_format_field;

enum { LTAP_TASK_NONE, LTAP_TASK_NEWTASK, LTAP_TASK_RENAME, LTAP_TASK_EXEC, LTAP_TASK_EXIT };

/* The task events followed, in the order they are declared; the exit only
 * while a command is held (gated). */
struct ltap_task_spec {
	const char *event; /* "sys:name" */
	int kind;
	int gated;
};
extern const struct ltap_task_spec ltap_task_specs[];

/* One task event's fields, resolved once. */
struct ltap_task_event {
	int kind;
	const struct tep_format_field *pid, *comm, *flags;
};

/* Resolves ev's fields for kind: 0, or -1 when the format lacks them (a
 * kernel of other names: the event is not followed). */
int ltap_task_event_init(struct ltap_task_event *te, struct tep_event *ev, int kind);
/* Feeds proc with what the event at data (size bytes, the thread's id at
 * tid_off) says; returns the tid whose name changed, or -1. */
int ltap_task_event_apply(const struct ltap_task_event *te, struct ltap_proc *proc, const void *data, int size,
			  int tid_off);
/* Whether the event at data (te: its task event, or NULL) is dropped as a
 * held command's before its exec. */
int ltap_task_gated(struct ltap_gate *g, const struct ltap_task_event *te, const void *data, int tid_off);

/* The same bookkeeping from a perf ring's PERF_RECORD_COMM or
 * PERF_RECORD_FORK (type, misc, body as the ring has it), for a run whose
 * tasks no tracefs event follows (profiles only). Returns the tid whose
 * name changed, or -1; *exec says the change is an exec. */
int ltap_task_perf_apply(struct ltap_proc *proc, unsigned type, unsigned misc, const void *body, size_t size,
			 int *exec);

#endif
