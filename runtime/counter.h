/* counter.h: counting-mode perf events (perf stat's kind): tracepoints,
 * software, hardware and raw PMU events, counted in the kernel with no cost
 * per event in user space, read when asked. */
#ifndef LTAP_COUNTER_H
#define LTAP_COUNTER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct ltap_counter;

struct ltap_counter_value {
	uint64_t raw;      /* as counted while running */
	uint64_t enabled;  /* ns the counter was enabled */
	uint64_t running;  /* ns it was on the PMU (less when multiplexed) */
	double scaled;     /* raw * enabled / running, as perf shows */
};

/* Resolves NAME ("task-clock", "cycles", "kmem:mm_page_alloc", "r01c2").
 * 0, or -ENOENT with a message naming it (and near names) in err. */
int ltap_counter_resolve(const char *name, uint32_t *type, uint64_t *config, char *err, size_t errlen);

/* Opens one counter: for pid (its threads, and children forked later) when
 * pid > 0, or for every CPU when pid == -1. With on_exec, it starts counting
 * when pid execs (a command held at a start gate). NULL with errno;
 * ltap_counter_unsupported(errno) tells a counter this machine lacks. */
struct ltap_counter *ltap_counter_open(uint32_t type, uint64_t config, pid_t pid, int on_exec);
void ltap_counter_close(struct ltap_counter *c);
int ltap_counter_unsupported(int err);
int ltap_counter_read(struct ltap_counter *c, struct ltap_counter_value *v);
/* The n-th fd's value: per CPU for a system-wide counter. n < 0 past the end. */
int ltap_counter_read_one(struct ltap_counter *c, int n, int *cpu, struct ltap_counter_value *v);

#endif
