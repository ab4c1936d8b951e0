/* progress.h: how far long work is, as one line that redraws itself on a
 * terminal ("ltap: replay run.dat:  45% (3.2 of 7.1 s of trace)"), for a
 * person watching: drawn only on a terminal the host was given for it
 * (ltap.h's progress option; the ltap command gives its stderr, and none
 * with --format json), so never into a pipe or a file.
 *
 * The line shows after the work has run for a while (short work draws
 * nothing), is redrawn at most every LTAP_PROGRESS_EVERY, and is erased
 * before the host's messages (host.c) and when the work ends. When the
 * host's output is the same terminal, what the run prints is held in the
 * output's buffer and written at each redraw, after the line is erased, so
 * output never lands inside the line. One line per process at a time: the
 * held output's buffer is process-wide. */
#ifndef LTAP_PROGRESS_H
#define LTAP_PROGRESS_H

#include <stdint.h>
#include <stdio.h>

#define LTAP_PROGRESS_EVERY 250000000ull /* ns between redraws */
#define LTAP_PROGRESS_AFTER 500000000ull /* ns of work before the first */

/* What done and total count: bytes of input, or ns of trace time. */
enum ltap_progress_unit { LTAP_PROGRESS_BYTES, LTAP_PROGRESS_NS };

struct ltap_progress;

/* Whether term is a terminal to draw on (NULL: no). */
int ltap_progress_wanted(FILE *term);
/* A progress line for WHAT ("replay run.dat") on term, the run's output
 * being out (NULL: none); NULL (nothing is ever drawn) when term is no
 * terminal or memory is short. */
struct ltap_progress *ltap_progress_new(FILE *term, FILE *out, const char *what);
/* Whether a redraw is due (one clock read): callers gather done and
 * total only then. NULL-safe: never due. */
int ltap_progress_due(const struct ltap_progress *p);
/* Redraws the line: done of total (total 0: unknown, done alone shown). */
void ltap_progress_show(struct ltap_progress *p, uint64_t done, uint64_t total, enum ltap_progress_unit unit);
/* Takes the line off the terminal until the next redraw. NULL-safe. */
void ltap_progress_erase(struct ltap_progress *p);
/* Writes what the run printed (fflush of the output), the line erased
 * first when the output is held. */
void ltap_progress_flush(struct ltap_progress *p);
/* Erases the line, gives the output its line buffering back and frees p.
 * NULL-safe. */
void ltap_progress_free(struct ltap_progress *p);

#endif
