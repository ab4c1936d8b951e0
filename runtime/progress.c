/* progress.c: the one-line progress indicator of progress.h. */
#include "progress.h"

#include "loop.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct ltap_progress {
	FILE *term, *out;
	char what[160];
	uint64_t next;        /* CLOCK_MONOTONIC ns: the next redraw is due */
	int drawn;            /* the line is on the terminal now */
	int hold;             /* out is the same terminal: held between redraws */
};

/* the held output's buffer: room for what a run prints between two
 * redraws; one terminal line per process (hold_taken) */
static char hold_buf[1 << 16];
static int hold_taken;

static int same_terminal(FILE *a, FILE *b)
{
	struct stat sa, sb;

	return a && b && isatty(fileno(a)) && isatty(fileno(b)) && fstat(fileno(a), &sa) == 0 &&
	       fstat(fileno(b), &sb) == 0 && sa.st_rdev == sb.st_rdev;
}

int ltap_progress_wanted(FILE *term)
{
	return term && isatty(fileno(term));
}

struct ltap_progress *ltap_progress_new(FILE *term, FILE *out, const char *what)
{
	struct ltap_progress *p;

	if (!ltap_progress_wanted(term) || !(p = calloc(1, sizeof *p)))
		return NULL;
	p->term = term;
	p->out = out;
	snprintf(p->what, sizeof p->what, "%.60s", what);
	p->next = ltap_now() + LTAP_PROGRESS_AFTER;
	if (!hold_taken && same_terminal(out, term)) {
		fflush(out);
		setvbuf(out, hold_buf, _IOFBF, sizeof hold_buf);
		p->hold = hold_taken = 1;
	}
	return p;
}

int ltap_progress_due(const struct ltap_progress *p)
{
	return p && ltap_now() >= p->next;
}

void ltap_progress_erase(struct ltap_progress *p)
{
	if (p && p->drawn) {
		fputs("\r\033[K", p->term);
		fflush(p->term);
		p->drawn = 0;
	}
}

/* "12.3 MB", "3.2 s" */
static void progress_amount(char *out, size_t len, uint64_t v, enum ltap_progress_unit unit)
{
	if (unit == LTAP_PROGRESS_NS)
		snprintf(out, len, "%.1f s", (double)v / 1e9);
	else if (v >= 10ull << 30)
		snprintf(out, len, "%.1f GB", (double)v / (1 << 30));
	else
		snprintf(out, len, "%.1f MB", (double)v / (1 << 20));
}

void ltap_progress_show(struct ltap_progress *p, uint64_t done, uint64_t total, enum ltap_progress_unit unit)
{
	char d[32], t[32];

	if (!p)
		return;
	p->next = ltap_now() + LTAP_PROGRESS_EVERY;
	ltap_progress_erase(p);
	if (p->out)
		fflush(p->out); /* what the run printed meanwhile, above the line */
	progress_amount(d, sizeof d, done, unit);
	if (total) {
		progress_amount(t, sizeof t, total, unit);
		fprintf(p->term, "ltap: %s: %3d%% (%s of %s%s)", p->what,
			(int)(done >= total ? 100 : 100 * done / total), d, t, unit == LTAP_PROGRESS_NS ? " of trace" : "");
	} else {
		fprintf(p->term, "ltap: %s: %s%s", p->what, d, unit == LTAP_PROGRESS_NS ? " of trace" : "");
	}
	fflush(p->term);
	p->drawn = 1;
}

void ltap_progress_flush(struct ltap_progress *p)
{
	if (p->hold)
		ltap_progress_erase(p);
	if (p->out)
		fflush(p->out);
}

void ltap_progress_free(struct ltap_progress *p)
{
	if (!p)
		return;
	ltap_progress_erase(p);
	if (p->hold) {
		fflush(p->out);
		setvbuf(p->out, NULL, _IOLBF, 0);
		hold_taken = 0;
	}
	free(p);
}
