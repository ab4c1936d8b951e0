/* tasks.c: task events, read in order with the other events. */
#include "tasks.h"

#include "gate.h"
#include "proc.h"

#include <event-parse.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

const struct ltap_task_spec ltap_task_specs[] = {
	{"task:task_newtask", LTAP_TASK_NEWTASK, 0},
	{"task:task_rename", LTAP_TASK_RENAME, 0},
	{"sched:sched_process_exec", LTAP_TASK_EXEC, 0},
	/* a command that never execs: its gate goes with it (gate.h) */
	{"sched:sched_process_exit", LTAP_TASK_EXIT, 1},
	{NULL, LTAP_TASK_NONE, 0},
};

int ltap_task_event_init(struct ltap_task_event *te, struct tep_event *ev, int kind)
{
	static const char *const comm_of[] = {
		[LTAP_TASK_NEWTASK] = "comm", [LTAP_TASK_RENAME] = "newcomm",
		[LTAP_TASK_EXEC] = "filename", [LTAP_TASK_EXIT] = "comm",
	};

	memset(te, 0, sizeof *te);
	/* newer kernels dropped task_rename's pid: the renamed task is the current one */
	te->pid = tep_find_field(ev, "pid");
	te->comm = tep_find_field(ev, comm_of[kind]);
	te->flags = kind == LTAP_TASK_NEWTASK ? tep_find_field(ev, "clone_flags") : NULL;
	if (!te->comm || (kind == LTAP_TASK_NEWTASK && (!te->flags || !te->pid)))
		return -1;
	te->kind = kind;
	return 0;
}

int ltap_task_event_apply(const struct ltap_task_event *te, struct ltap_proc *proc, const void *data, int size,
			  int tid_off)
{
	const char *p = data;
	int32_t cur, pid;
	char comm[16];

	memcpy(&cur, p + tid_off, sizeof cur);
	pid = cur;
	if (te->pid)
		memcpy(&pid, p + te->pid->offset, sizeof pid);
	switch (te->kind) {
	case LTAP_TASK_NEWTASK: {
		unsigned long long flags = tep_read_number(te->flags->event->tep, p + te->flags->offset,
							   te->flags->size);
		snprintf(comm, sizeof comm, "%.*s", te->comm->size, p + te->comm->offset);
		/* CLONE_THREAD: the new task joins its parent's process */
		ltap_proc_update(proc, pid, flags & 0x10000 ? ltap_proc_tgid(proc, cur) : pid, comm);
		return pid;
	}
	case LTAP_TASK_RENAME:
		snprintf(comm, sizeof comm, "%.*s", te->comm->size, p + te->comm->offset);
		ltap_proc_update(proc, pid, -1, comm);
		return pid;
	case LTAP_TASK_EXEC: {
		uint32_t loc;
		unsigned off, len;
		const char *base;
		memcpy(&loc, p + te->comm->offset, sizeof loc);
		off = loc & 0xffff;
		len = loc >> 16;
		if (off + len > (unsigned)size)
			return -1;
		base = p + off;
		for (const char *c = p + off; c < p + off + len && *c; c++)
			if (*c == '/')
				base = c + 1;
		/* the kernel names the task after the file's base name, cut to 15 */
		snprintf(comm, sizeof comm, "%.*s", (int)strnlen(base, (size_t)(p + off + len - base)), base);
		ltap_proc_update(proc, pid, pid, comm);
		return pid;
	}
	}
	return -1;
}

int ltap_task_gated(struct ltap_gate *g, const struct ltap_task_event *te, const void *data, int tid_off)
{
	int kind = !te ? LTAP_GATE_EVENT : te->kind == LTAP_TASK_RENAME ? LTAP_GATE_EXEC
				       : te->kind == LTAP_TASK_EXIT ? LTAP_GATE_EXIT : LTAP_GATE_EVENT;
	const char *p = data;
	int32_t tid;

	memcpy(&tid, p + tid_off, sizeof tid);
	if (te && te->kind == LTAP_TASK_NEWTASK) {
		int32_t pid;
		memcpy(&pid, p + te->pid->offset, sizeof pid);
		ltap_gate_newtask(g, pid);
	}
	return ltap_gate_drop(g, tid, kind);
}

/* s, at most max bytes and 15, NUL-terminated into comm */
static void task_comm_copy(char comm[16], const char *s, size_t max)
{
	size_t n = strnlen(s, max < 15 ? max : 15);
	memcpy(comm, s, n);
	comm[n] = 0;
}

int ltap_task_perf_apply(struct ltap_proc *proc, unsigned type, unsigned misc, const void *body, size_t size,
			 int *exec)
{
	const char *p = body;
	uint32_t v[4]; /* COMM: pid, tid; FORK: pid, ppid, tid, ptid */
	char comm[16];

	*exec = 0;
	if (size < sizeof v)
		return -1;
	memcpy(v, p, sizeof v);
	switch (type) {
	case PERF_RECORD_COMM:
		/* the name follows pid and tid, NUL-terminated, padded to 8 bytes */
		task_comm_copy(comm, p + 8, size - 8);
		*exec = (misc & PERF_RECORD_MISC_COMM_EXEC) != 0;
		ltap_proc_update(proc, (int)v[1], (int)v[0], comm);
		return (int)v[1];
	case PERF_RECORD_FORK:
		/* a new task has its parent's name (copied: the update may move
		 * the parent's entry); a thread joins its process */
		task_comm_copy(comm, ltap_proc_comm(proc, (int)v[3]), sizeof comm);
		ltap_proc_update(proc, (int)v[2], (int)v[0], comm);
		return (int)v[2];
	}
	return -1;
}
