/* fuzz_format.c: libFuzzer harness of a saved trace's format and record
 * checks (runtime/evcheck.c) against what libtraceevent then does.
 *
 * The input is an event format's text, a 0 byte, and one record. The
 * format is parsed as ltap parses a trace.dat's (tep_parse_event); if
 * ltap_evcheck_new takes it and ltap_evcheck_record takes the record, the
 * record is used as ltap uses it: rendered by libtraceevent (tostring) and
 * matched by a filter, from a heap buffer of its exact size and a 0, as
 * src_replay.c hands it over. A crash there is a hole in the checks.
 * libtraceevent's parser crashes on some texts by itself: in ltap the reader
 * process parses every format first and dies of it instead, so here a fork
 * parses the text first too, and a text it dies of is left out. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "evcheck.h"

#include <event-parse.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

void __sanitizer_set_report_path(const char *path);
void __sanitizer_set_death_callback(void (*callback)(void));

static struct tep_handle *fuzz_tep(void)
{
	struct tep_handle *tep = tep_alloc();

	if (!tep)
		abort();
	tep_set_long_size(tep, 8);
	tep_set_file_bigendian(tep, TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(tep, TEP_LITTLE_ENDIAN);
	return tep;
}

/* Whether libtraceevent parses the text without dying, in a fork set up as
 * ltap's reader process is (src_replay.c replay_spawn). */
static int parses(const char *text, size_t len)
{
	int st;
	pid_t pid = fork();

	if (pid < 0)
		abort();
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);
		signal(SIGSEGV, SIG_DFL);
		signal(SIGBUS, SIG_DFL);
		signal(SIGFPE, SIG_DFL);
		signal(SIGABRT, SIG_DFL);
		dup2(null, 2);
		__sanitizer_set_report_path("stderr");
		__sanitizer_set_death_callback(NULL);
		tep_parse_event(fuzz_tep(), text, len, "fz");
		_exit(0);
	}
	while (waitpid(pid, &st, 0) < 0)
		;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *nul = memchr(data, 0, size);
	struct tep_handle *tep;
	struct ltap_evcheck *check;
	char why[300];

	if (!nul || !parses((const char *)data, (size_t)(nul - data)))
		return 0;
	tep = fuzz_tep();
	tep_parse_event(tep, (const char *)data, (size_t)(nul - data), "fz");
	check = ltap_evcheck_new(tep, why, sizeof why);
	if (check) {
		size_t n = size - (size_t)(nul + 1 - data);
		char *rec = malloc(n + 1);
		if (!rec)
			abort();
		memcpy(rec, nul + 1, n);
		rec[n] = 0;
		if (n < 65536 && ltap_evcheck_record(check, rec, (int)n, why, sizeof why) == 0) {
			struct tep_record r = {.size = (int)n, .data = rec};
			struct tep_event *ev = tep_find_event_by_record(tep, &r);
			struct trace_seq s;
			if (ev) {
				struct tep_event_filter *f = tep_filter_alloc(tep);
				char spec[600];
				trace_seq_init(&s);
				tep_print_event(tep, &s, &r, "%s", TEP_PRINT_INFO);
				trace_seq_destroy(&s);
				snprintf(spec, sizeof spec, "%s/%s:common_pid >= 0", ev->system, ev->name);
				if (f && tep_filter_add_filter_str(f, spec) >= 0)
					tep_filter_match(f, &r);
				tep_filter_free(f);
			}
		}
		free(rec);
		ltap_evcheck_free(check);
	}
	tep_free(tep);
	return 0;
}
