/* src_sampler.h: the perf source: perf_event_open with call chains, one mmap ring per
 * CPU: tracepoints whose probes ask for stacks, and cpu-clock profiles. */
#ifndef LTAP_SRC_SAMPLER_H
#define LTAP_SRC_SAMPLER_H

#include "source.h"

struct ltap_symbols;

/* The perf source (source.h): its attach opens the events of probes with
 * stacks and of profiles, one mmap ring per CPU, for the run's targets
 * (counted from their exec when a command is held at its start gate);
 * MMAP2/COMM/FORK records feed syms. NULL when out of memory. */
struct ltap_source *ltap_sampler_new(struct ltap_symbols *syms);

#endif
