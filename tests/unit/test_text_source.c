/* test_text_source.c: the text source (runtime/src_text.c) through its
 * source ops, no kernel: names declared at load time get their ids, a name
 * first seen that a glob wants pauses the stream at its line and is
 * declared between batches, never from inside a read, and the line is
 * then dispatched; names nobody wants are skipped, garbage counted (a
 * line with a NUL in it too, and none after it); names of one length and
 * last byte (one slot of the source's recent names) keep their own ids. */
#include "src_text.h"
#include "text_parse.h"

#include "check.h"
#include "log.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int in_advance, declared, declared_inside;
static char declared_name[64];

static int wanted(void *ud, const char *event)
{
	(void)ud;
	return strncmp(event, "glob_", 5) == 0;
}

static int declare(void *ud, const char *event)
{
	(void)ud;
	declared++;
	declared_inside += in_advance;
	snprintf(declared_name, sizeof declared_name, "%s", event);
	return 7;
}

static void advance(struct ltap_stream *s)
{
	in_advance = 1;
	s->ops->advance(s);
	in_advance = 0;
}

int main(void)
{
	static const char text[] =
		"# tracer: nop\n"
		"            bash-1234  [000] .....   100.000001: known: a=1\n"
		"            bash-1234  [001] .....   100.000002: other: b=2\n"
		"not an event at all\n"
		"            bash-1234  [000] .....   100.000003: glob_x: c=3\n"
		"            bash-1234  [000] .....   100.000004: glob_x: c=4\n"
		"            bash-1234  [000] .....   100.000005: known: a=5\n"
		"            bash-1234  [000] .....   100.000006: known: a=\0006\n"
		"            bash-1234  [000] .....   100.000007: shown: a=7\n"
		"            bash-1234  [000] .....   100.000008: known: a=8\n"
		"            bash-1234  [000] .....   100.000009: shown: a=9\n"
		"            bash-1234  [000] .....   100.000010: known: a=10";
	static const struct ltap_textsrc_names names = {wanted, declare, NULL};
	char path[] = "/tmp/ltap-test-text.XXXXXX";
	struct ltap_source_env env;
	struct ltap_textsrc *t;
	struct ltap_source *src;
	struct ltap_stream **ss, *s;
	int fd = mkstemp(path), got[8], n = 0;
	long first;

	if (fd < 0 || write(fd, text, sizeof text - 1) != (ssize_t)(sizeof text - 1))
		return 1;
	close(fd);
	ltap_log_set_verbosity(LTAP_LOG_NONE);
	t = ltap_textsrc_new(path, &names);
	CHECK(t != NULL);
	src = ltap_textsrc_source(t);
	CHECK(ltap_textsrc_set_id(t, "known", 3) == 0);
	memset(&env, 0, sizeof env);
	CHECK(src->ops->attach(src, &env) == 0);
	CHECK(src->ops->streams(src, &ss) == 1);
	s = ss[0];
	while (n < 8) {
		if (s->has) {
			const struct ltap_textrec *r = s->cur.data;
			got[n++] = r->id;
			advance(s);
			continue;
		}
		if (!s->paused)
			break;
		/* the front end's turn: the line it paused at waits */
		CHECK(n == 1 && declared == 0);
		src->ops->between(src);
		s->ops->fill(s);
	}
	CHECK(n == 6);
	CHECK(got[0] == 3 && got[1] == 7 && got[2] == 7 && got[3] == 3 && got[4] == 3 && got[5] == 3);
	CHECK(declared == 1 && declared_inside == 0 && strcmp(declared_name, "glob_x") == 0);
	CHECK(ltap_textsrc_id(t, "other") == 0 && ltap_textsrc_id(t, "glob_x") == 7);
	CHECK(ltap_textsrc_id(t, "shown") == 0);
	CHECK(ltap_textsrc_malformed(t, &first) == 2 && first == 4);
	src->ops->close(src);
	unlink(path);
	printf("%d checks, %d failed\n", checks, failures);
	return failures != 0;
}
