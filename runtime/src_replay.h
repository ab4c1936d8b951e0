/* src_replay.h: the trace.dat source: a saved trace (trace-cmd's trace.dat, or one written by
 * ltap --record) as a stream for the loop: its per-CPU streams merged by
 * timestamp, read by a process of its own with libtracecmd
 * (replay_reader.h), decoded with the formats stored in the file, every
 * record checked against its format first (evcheck.h). */
#ifndef LTAP_SRC_REPLAY_H
#define LTAP_SRC_REPLAY_H

#include "source.h"

#include <stdint.h>

struct tep_handle;
struct ltap_replay;

/* The first 10 bytes of every trace.dat (trace-cmd.dat.v6(5)). */
#define LTAP_TRACEDAT_MAGIC "\x17\x08\x44tracing"

/* Whether path starts as a trace.dat does (else: text, or unreadable). */
int ltap_replay_is_tracedat(const char *path);

/* flags of ltap_replay_open: also learn the last event's time, so that
 * ltap_replay_progress can say how far the replay is (a progress line) */
#define LTAP_REPLAY_LAST 1

/* NULL with a logged reason naming the file. */
struct ltap_replay *ltap_replay_open(const char *path, int flags);
/* Why the stream ended before the file's end (damaged, or its reader
 * died), or NULL: the reason for "replay: cannot read FILE: ...". */
const char *ltap_replay_error(struct ltap_replay *r);
void ltap_replay_close(struct ltap_replay *r);
struct tep_handle *ltap_replay_tep(struct ltap_replay *r);
int ltap_replay_streams(struct ltap_replay *r, struct ltap_stream ***streams);
/* The run's start and end as ltap --record noted them (ftrace:print
 * "ltap-record start=NS" / "end=NS"), else the first event's time and 0. */
uint64_t ltap_replay_start(struct ltap_replay *r);
uint64_t ltap_replay_end(struct ltap_replay *r);
/* The commands of the recorded run wait at their start gate in g (gate.h),
 * so the replay counts them from their exec as the live run did: its -c
 * command ("command=PID" in the start mark) from now on, those
 * ltap.measure started ("measure=PID") as the replay reaches their marks. */
struct ltap_gate;
void ltap_replay_set_gate(struct ltap_replay *r, struct ltap_gate *g);
/* The trace.dat source (source.h), r's own (ltap_replay_close is its
 * close): its attach names tasks from the trace, its span is the recorded
 * start and end, its finish tells why the input ended early. */
struct ltap_source *ltap_replay_source(struct ltap_replay *r);
/* The comm the trace's saved cmdlines give pid, or NULL. */
const char *ltap_replay_comm(struct ltap_replay *r, int pid);

#endif
