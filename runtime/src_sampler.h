/* src_sampler.h: perf_event_open sources with call chains, one mmap ring per
 * CPU: tracepoints whose probes ask for stacks, and cpu-clock profiles. */
#ifndef LTAP_SRC_SAMPLER_H
#define LTAP_SRC_SAMPLER_H

#include "stream.h"

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct ltap_symbols;
struct ltap_sampler;

struct ltap_sampler_event {
	const char *name;   /* for messages: "kmem:mm_page_alloc", "profile 99hz" */
	int tp_id;          /* tracepoint id, or -1 for a cpu-clock profile */
	uint64_t freq;      /* profile: samples per second */
	int rec_id;         /* profile: the common_type its records carry */
	const char *filter; /* tracepoint filter (ftrace syntax), or NULL */
};

/* Opens every event on every CPU, for pids (their future children too), or
 * system-wide when npids is 0. Disabled until ltap_sampler_enable, or with
 * on_exec until the pids exec (a command held at its start gate, counted
 * from its exec as perf record does). The ring
 * of a CPU holds ring_kb of data; MMAP2/COMM/FORK records feed syms.
 * NULL with a logged reason. */
struct ltap_sampler *ltap_sampler_open(const struct ltap_sampler_event *evs, int nev,
				       const pid_t *pids, int npids, int on_exec, size_t ring_kb,
				       struct ltap_symbols *syms);
void ltap_sampler_close(struct ltap_sampler *s);
int ltap_sampler_enable(struct ltap_sampler *s, int on);
int ltap_sampler_streams(struct ltap_sampler *s, struct ltap_stream ***streams);

#endif
