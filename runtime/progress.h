/* progress.h: how far long work is, as one line on stderr that redraws
 * itself ("ltap: replay run.dat: 45% (3.2 of 7.1 s of trace)"), for a
 * person at a terminal: only when stderr is a terminal, so never in a pipe
 * or a file (and the command line asks for none with --format json).
 *
 * The line shows after the work has run for a while (short work draws
 * nothing), is redrawn at most every LTAP_PROGRESS_EVERY, and is erased
 * before anything else ltap writes on stderr (log.c) and when the work
 * ends. When stdout is the same terminal, what the run prints there is
 * held in stdout's buffer and written at each redraw, after the line is
 * erased, so output never lands inside the line. */
#ifndef LTAP_PROGRESS_H
#define LTAP_PROGRESS_H

#include <stdint.h>

#define LTAP_PROGRESS_EVERY 250000000ull /* ns between redraws */
#define LTAP_PROGRESS_AFTER 500000000ull /* ns of work before the first */

/* What done and total count: bytes of input, or ns of trace time. */
enum ltap_progress_unit { LTAP_PROGRESS_BYTES, LTAP_PROGRESS_NS };

struct ltap_progress;

/* A progress line for WHAT ("replay run.dat"), or NULL (nothing is ever
 * drawn) when stderr is not a terminal or memory is short. */
struct ltap_progress *ltap_progress_new(const char *what);
/* Whether a redraw is due (one clock read): callers gather done and
 * total only then. NULL-safe: never due. */
int ltap_progress_due(const struct ltap_progress *p);
/* Redraws the line: done of total (total 0: unknown, done alone shown). */
void ltap_progress_show(struct ltap_progress *p, uint64_t done, uint64_t total, enum ltap_progress_unit unit);
/* Writes what the run printed (fflush(stdout)), the line erased first when
 * it is drawn and stdout is on the same terminal (redrawn when next due).
 * NULL-safe: fflush(stdout) alone. */
void ltap_progress_flush(struct ltap_progress *p);
/* Erases the line, gives stdout its line buffering back and frees p.
 * NULL-safe. */
void ltap_progress_free(struct ltap_progress *p);

#endif
