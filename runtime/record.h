/* record.h: ltap --record FILE: the raw sub-buffers a live run reads, kept
 * per CPU as they come, and written at the end as a trace-cmd trace.dat
 * (version 6, trace-cmd.dat.v6(5)) that ltap and trace-cmd both read. */
#ifndef LTAP_RECORD_H
#define LTAP_RECORD_H

#include <stddef.h>
#include <stdint.h>

struct ltap_recorder;

/* ncpu: the highest CPU number + 1. NULL with a logged reason. */
struct ltap_recorder *ltap_recorder_open(const char *path, int ncpu, size_t page_size);
/* One sub-buffer as trace_pipe_raw gave it. 0 or -errno. */
int ltap_recorder_page(struct ltap_recorder *r, int cpu, const void *page);
/* Writes the file: formats of events[] ("sys/name"), cmdlines ("pid comm"
 * lines), ts_offset added to every timestamp by readers (OFFSET option).
 * Frees r. 0 or -1 with a logged reason. */
int ltap_recorder_close(struct ltap_recorder *r, const char *const *events, int nevents,
			const char *cmdlines, int64_t ts_offset);
/* Drops a recording (a failed run): frees r, removes nothing but its temp data. */
void ltap_recorder_abort(struct ltap_recorder *r);

#endif
