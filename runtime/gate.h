/* gate.h: which events of a command ltap starts are the command's, counted
 * from its exec as perf stat's enable-on-exec counts them.
 *
 * ltap forks the command and holds it at a start gate; what that process
 * does before its exec (reading the gate, the execve call, dropping ltap's
 * copied address space) is ltap's work under the comm "ltap". The kernel
 * enables enable_on_exec counters in perf_event_exec(), called just before
 * __set_task_comm() in begin_new_exec() (fs/exec.c, 6.1 to 6.18), whose
 * task:task_rename is thus the first event perf counts: events of a held
 * pid are dropped up to, not including, its task_rename.
 *
 * The other end is not perf's: perf stops counting a task in
 * perf_event_exit_task(), before the kernel tears down its address space,
 * while ltap sees the task to its last event (docs/design.md, "-c counts").
 *
 * The per-event cost is one test of `active` when no command is held. */
#ifndef LTAP_GATE_H
#define LTAP_GATE_H

#include <stdint.h>

#define LTAP_GATE_WAIT 8 /* commands waiting for their exec at once */

struct ltap_gate {
	int active; /* anything to check per event */
	int nwait;
	int32_t wait[LTAP_GATE_WAIT];
};

enum { LTAP_GATE_EVENT, LTAP_GATE_EXEC, LTAP_GATE_EXIT };

void ltap_gate_init(struct ltap_gate *g);
/* pid waits at a start gate: its events count from its exec's task_rename. */
void ltap_gate_hold(struct ltap_gate *g, int pid);
/* Whether an event of tid is dropped. kind: LTAP_GATE_EXEC for a
 * task_rename (it opens tid's gate and counts), LTAP_GATE_EXIT for a
 * sched_process_exit (a held task that exits never ran the command). */
int ltap_gate_drop(struct ltap_gate *g, int tid, int kind);
/* A new task tid (task_newtask): a held task of that number is gone. */
void ltap_gate_newtask(struct ltap_gate *g, int tid);

#endif
