/* progress.c: the one-line progress indicator of progress.h on stderr. */
#include "progress.h"

#include "log.h"
#include "loop.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct ltap_progress {
	char what[160];
	uint64_t start, next; /* CLOCK_MONOTONIC ns: started, next redraw due */
	int drawn;            /* the line is on the terminal now */
	int hold;             /* stdout is the same terminal: held between redraws */
};

/* stdout's buffer while held: room for what a run prints between two
 * redraws (one terminal and one stdout per process, hence static) */
static char hold_buf[1 << 16];

static int same_terminal(int a, int b)
{
	struct stat sa, sb;

	return isatty(a) && isatty(b) && fstat(a, &sa) == 0 && fstat(b, &sb) == 0 && sa.st_rdev == sb.st_rdev;
}

static void progress_erase(void *ud)
{
	struct ltap_progress *p = ud;

	if (p->drawn) {
		fputs("\r\033[K", stderr);
		fflush(stderr);
		p->drawn = 0;
	}
}

struct ltap_progress *ltap_progress_new(const char *what)
{
	struct ltap_progress *p;

	if (!isatty(STDERR_FILENO) || !(p = calloc(1, sizeof *p)))
		return NULL;
	snprintf(p->what, sizeof p->what, "%s", what);
	p->start = ltap_now();
	p->next = p->start + LTAP_PROGRESS_AFTER;
	p->hold = same_terminal(STDOUT_FILENO, STDERR_FILENO);
	if (p->hold) {
		fflush(stdout);
		setvbuf(stdout, hold_buf, _IOFBF, sizeof hold_buf);
	}
	ltap_log_set_before(progress_erase, p);
	return p;
}

int ltap_progress_due(const struct ltap_progress *p)
{
	return p && ltap_now() >= p->next;
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
	progress_erase(p);
	fflush(stdout); /* what the run printed meanwhile, above the line */
	progress_amount(d, sizeof d, done, unit);
	if (total) {
		progress_amount(t, sizeof t, total, unit);
		fprintf(stderr, "ltap: %s: %3d%% (%s of %s%s)", p->what, (int)(done >= total ? 100 : 100 * done / total),
			d, t, unit == LTAP_PROGRESS_NS ? " of trace" : "");
	} else {
		fprintf(stderr, "ltap: %s: %s%s", p->what, d, unit == LTAP_PROGRESS_NS ? " of trace" : "");
	}
	fflush(stderr);
	p->drawn = 1;
}

void ltap_progress_flush(struct ltap_progress *p)
{
	if (p && p->hold)
		progress_erase(p);
	fflush(stdout);
}

void ltap_progress_free(struct ltap_progress *p)
{
	if (!p)
		return;
	progress_erase(p);
	ltap_log_set_before(NULL, NULL);
	if (p->hold) {
		fflush(stdout);
		setvbuf(stdout, NULL, _IOLBF, 0);
	}
	free(p);
}
