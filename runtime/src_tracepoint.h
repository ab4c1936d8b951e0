/* src_tracepoint.h: the tracefs source: an instance of ltap's own
 * (instance.h), its events, filters and pids, and its per-CPU raw ftrace
 * rings; with --record, every sub-buffer read is also teed into a
 * trace.dat (record.h). */
#ifndef LTAP_SRC_TRACEPOINT_H
#define LTAP_SRC_TRACEPOINT_H

#include "source.h"

/* The source (source.h); its attach creates the instance when an event is
 * for it. NULL when out of memory. */
struct ltap_source *ltap_tpsrc_new(void);

#endif
