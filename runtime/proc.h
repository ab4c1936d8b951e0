/* proc.h: the tid -> (tgid, comm) cache. Fed in event order by task events
 * (newtask, rename, exec) so names are right at each event's time; /proc is
 * read only on the first sight of a task that was already running. */
#ifndef LTAP_PROC_H
#define LTAP_PROC_H

struct ltap_proc;

struct ltap_proc *ltap_proc_new(void);
void ltap_proc_free(struct ltap_proc *p);

/* Reads every running task from /proc, so tasks that exit before their
 * events are dispatched keep their names. Returns the number read. */
int ltap_proc_seed(struct ltap_proc *p);
/* The comm of tid ("<...>" when it cannot be known, as the kernel prints). */
const char *ltap_proc_comm(struct ltap_proc *p, int tid);
/* The process (thread group) id of tid, or tid itself when unknown. */
int ltap_proc_tgid(struct ltap_proc *p, int tid);
/* Changes whenever a task's name or process may have changed (an update,
 * a task read late): what a cache of names by tid checks. */
unsigned ltap_proc_generation(const struct ltap_proc *p);
/* Where it is kept, for a per-event check without a call (feed.c). */
const unsigned *ltap_proc_generation_ref(const struct ltap_proc *p);
/* Records what an event told: tgid < 0 or comm NULL keep the old value. */
void ltap_proc_update(struct ltap_proc *p, int tid, int tgid, const char *comm);

/* Which tasks the perf rings follow under -p / -c (their per-task events,
 * inherited by the tasks they start): marked at attach and at each FORK
 * record, unmarked at each EXIT record, in time order with the events. A
 * task's events that the tracefs instance gives too are the perf rings'
 * when it is followed there (dispatch.c). */
void ltap_proc_follow(struct ltap_proc *p, int tid, int on);
int ltap_proc_followed(struct ltap_proc *p, int tid);

/* Names of unknown tids from lookup instead of /proc (replay). */
void ltap_proc_set_lookup(struct ltap_proc *p, const char *(*lookup)(void *ud, int tid), void *ud);
/* "tid comm" lines of every known task, as saved_cmdlines has them; caller frees. */
char *ltap_proc_cmdlines(struct ltap_proc *p);

#endif
