/* src_tracepoint.h: the per-CPU raw ftrace rings of an ltap instance. */
#ifndef LTAP_SRC_TRACEPOINT_H
#define LTAP_SRC_TRACEPOINT_H

#include "stream.h"

#include <stddef.h>
#include <stdint.h>

struct ltap_instance;
struct tep_handle;
struct ltap_tpsrc;

/* Opens per_cpu/cpuN/trace_pipe_raw for every online CPU; clock_offset turns
 * ring timestamps into CLOCK_MONOTONIC. pool_pages caps the
 * sub-buffers buffered per CPU (memory bound); the kernel drops, and counts,
 * what does not fit. NULL with a logged reason. */
struct ltap_tpsrc *ltap_tpsrc_open(struct ltap_instance *inst, struct tep_handle *tep,
				   int pool_pages, int64_t clock_offset);
void ltap_tpsrc_close(struct ltap_tpsrc *src);
struct ltap_recorder;
/* Every sub-buffer read from now on is also given to rec (ltap --record). */
void ltap_tpsrc_record(struct ltap_tpsrc *src, struct ltap_recorder *rec);
size_t ltap_tpsrc_subbuf_size(struct ltap_tpsrc *src);
int ltap_tpsrc_streams(struct ltap_tpsrc *src, struct ltap_stream ***streams);
/* Events the kernel dropped on cpu (from the ring's stats), or the stream's count. */
uint64_t ltap_tpsrc_dropped(struct ltap_tpsrc *src, int idx);
/* events read out of ring idx so far (the kernel's own count) */
uint64_t ltap_tpsrc_read_events(struct ltap_tpsrc *src, int idx);

#endif
