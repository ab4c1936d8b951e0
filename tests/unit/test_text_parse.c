/* test_text_parse.c: the text line parser (runtime/text_parse.c) alone:
 * each line below, as the kernel prints it in trace or trace_pipe (or
 * broken), and the exact parse it must give: its columns, then its fields
 * as "key=value;..." once cut. Malformed lines give -1, headers and blank
 * lines 1. */
#include "text_parse.h"

#include "check.h"

#include <stdio.h>
#include <string.h>

struct parse_case {
	const char *line;
	int rc;             /* what ltap_text_parse_line returns */
	const char *comm;
	int tid, tgid, cpu;
	uint64_t ts;
	const char *event, *info;
	int form;
	const char *fields; /* "k=v;k=v" as cut */
};

static const struct parse_case cases[] = {
	/* the columns */
	{"            bash-1234  [000] .....   100.000001: sched_wakeup: comm=cat pid=12 prio=120 target_cpu=001\n", 0,
	 "bash", 1234, -1, 0, 100000001000ull, "sched_wakeup", "comm=cat pid=12 prio=120 target_cpu=001", LTAP_TEXT_KV,
	 "comm=cat;pid=12;prio=120;target_cpu=001"},
	/* no irq-flags column */
	{"          <idle>-0     [003]  5.5: cpu_idle: state=1 cpu_id=3", 0,
	 "<idle>", 0, -1, 3, 5500000000ull, "cpu_idle", "state=1 cpu_id=3", LTAP_TEXT_KV, "state=1;cpu_id=3"},
	/* a (tgid) column; a comm with a slash and a colon; info without fields */
	{"     kworker/0:1-42      (     42) [001] d..1.  12.345678901: workqueue_execute_start: work struct 00000000deadbeef: function vmstat_update",
	 0, "kworker/0:1", 42, 42, 1, 12345678901ull, "workqueue_execute_start",
	 "work struct 00000000deadbeef: function vmstat_update", LTAP_TEXT_KV, ""},
	/* an unknown tgid; a comm with a space and colons */
	{"   rs:main Q:Reg-812     (-------) [000] ....  1.000000: writeback_dirty_inode: bdi 8:0 ino=5 flags=I_DIRTY_SYNC",
	 0, "rs:main Q:Reg", 812, -1, 0, 1000000000ull, "writeback_dirty_inode", "bdi 8:0 ino=5 flags=I_DIRTY_SYNC",
	 LTAP_TEXT_KV, "ino=5;flags=I_DIRTY_SYNC"},
	/* a comm with a dash: the tid is after the last one */
	{"  my-prog-77 [001] .... 4.25: ev: a=1", 0, "my-prog", 77, -1, 1, 4250000000ull, "ev", "a=1", LTAP_TEXT_KV, "a=1"},
	/* more than 9 digits of a second: ns, the rest cut */
	{"x-1 [002] 1.1234567891: ev: a=1", 0, "x", 1, -1, 2, 1123456789ull, "ev", "a=1", LTAP_TEXT_KV, "a=1"},
	/* a column before the time stamp that starts as one; a fraction of none */
	{"x-1 [002] 7.5x 2.25: ev: a=1", 0, "x", 1, -1, 2, 2250000000ull, "ev", "a=1", LTAP_TEXT_KV, "a=1"},
	{"x-1 [002] 3.: ev: a=1", 0, "x", 1, -1, 2, 3000000000ull, "ev", "a=1", LTAP_TEXT_KV, "a=1"},
	/* a value with spaces runs to the next " key="; sched_switch's "==>" */
	{"x-1 [000] 3.0: foo: name=a b c id=2", 0, "x", 1, -1, 0, 3000000000ull, "foo", "name=a b c id=2", LTAP_TEXT_KV,
	 "name=a b c;id=2"},
	{"  bash-5 [000] d..2. 2.000000: sched_switch: prev_comm=bash prev_pid=5 prev_prio=120 prev_state=S ==> next_comm=swapper/0 next_pid=0 next_prio=120",
	 0, "bash", 5, -1, 0, 2000000000ull, "sched_switch",
	 "prev_comm=bash prev_pid=5 prev_prio=120 prev_state=S ==> next_comm=swapper/0 next_pid=0 next_prio=120",
	 LTAP_TEXT_KV, "prev_comm=bash;prev_pid=5;prev_prio=120;prev_state=S;next_comm=swapper/0;next_pid=0;next_prio=120"},
	/* a word that is no field is skipped */
	{"x-1 [000] 3.0: ev: hello a=1", 0, "x", 1, -1, 0, 3000000000ull, "ev", "hello a=1", LTAP_TEXT_KV, "a=1"},
	/* the syscall tracer's lines */
	{"  cat-99  [002] .....  7.000000002: sys_openat(dfd: ffffff9c, filename: 7ffd12, flags: 0, mode: 0)", 0,
	 "cat", 99, -1, 2, 7000000002ull, "sys_enter_openat", "dfd: ffffff9c, filename: 7ffd12, flags: 0, mode: 0",
	 LTAP_TEXT_SYS_ENTER, "dfd=ffffff9c;filename=7ffd12;flags=0;mode=0"},
	{"  cat-99  [002] .....  7.000000003: sys_openat -> 0x3\n", 0, "cat", 99, -1, 2, 7000000003ull, "sys_exit_openat",
	 "0x3", LTAP_TEXT_SYS_EXIT, "ret=0x3"},
	/* a trace_marker write is ftrace:print, its text the field buf */
	{"  bash-5 [000] ..... 1.000000: tracing_mark_write: hello world", 0, "bash", 5, -1, 0, 1000000000ull, "print",
	 "hello world", LTAP_TEXT_MARKER, "buf=hello world"},
	/* not events, not malformed */
	{.line = "# tracer: nop\n", .rc = 1},
	{.line = "   \t\n", .rc = 1},
	{.line = "", .rc = 1},
	/* malformed */
	{.line = "not an event at all", .rc = -1},                           /* no CPU column */
	{.line = "[000] 1.0: ev: a=1", .rc = -1},                            /* no task before it */
	{.line = "bash-1 [000 1.0: ev: a=1", .rc = -1},                      /* an unclosed CPU column */
	{.line = "bash [000] 1.0: ev: a=1", .rc = -1},                       /* no tid */
	{.line = "bash-12214748364834 [000] 1.0: ev: a=1", .rc = -1},        /* a tid no pid can be */
	{.line = "bash-1 12) [000] 1.0: ev: a=1", .rc = -1},                 /* a tgid column without its '(' */
	{.line = "bash-1 (99999999999) [000] 1.0: ev: a=1", .rc = -1},       /* a tgid no pid can be */
	{.line = "bash-1234 [000] .....", .rc = -1},                         /* no time stamp */
	{.line = "bash-1 [000] x y: ev: a=1", .rc = -1},                     /* no time stamp in either column */
	{.line = "bash-1 [000] 1.0 ev: a=1", .rc = -1},                      /* a time stamp without its colon */
	{.line = "bash-1 [000] 1.0:x ev: a=1", .rc = -1},                    /* nor with more after it */
	{.line = "bash-1 [000] 1.0: noinfo", .rc = -1},                      /* an event without info */
	{.line = "bash-1 [000] 1.0: sys_read(fd: 3", .rc = -1},              /* an unclosed syscall */
	{.line = "bash-1 [000] 1.0: foo(bar)", .rc = -1},                    /* parentheses of no syscall */
	{.line = "bash-1 [000] 1.0: sys_read => 3", .rc = -1},               /* neither enter nor exit */
	{.line = "bash-1 [000] 1.0: sys_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa(a: 1)", .rc = -1},
};

/* the record's fields, cut, as "k=v;k=v" */
static void fields_str(struct ltap_textrec *r, char *out, size_t n)
{
	size_t len = 0;

	out[0] = 0;
	ltap_textrec_parse(r);
	for (int i = 0; i < r->nfields && len < n; i++)
		len += (size_t)snprintf(out + len, n - len, "%s%s=%s", i ? ";" : "", r->fields[i].key, r->fields[i].value);
}

/* c parsed into r: a record of its own (zeroed), or the one the lines
 * before it were parsed into, as the source parses a text (r->last) */
static int check_case(const struct parse_case *c, struct ltap_textrec *carried)
{
	static char scratch[LTAP_TEXT_SCRATCH];
	char line[512], got[512];
	struct ltap_textrec own, *r = carried ? carried : &own;
	uint64_t ts = 0;
	size_t nlen = 0;
	int cpu = -1, rc, before = failures;

	snprintf(line, sizeof line, "%s", c->line);
	if (!carried)
		memset(r, 0, sizeof *r);
	r->scratch = scratch;
	r->nfields = -1;
	rc = ltap_text_parse_line(line, strlen(line), r, &ts, &cpu, &nlen);
	CHECK(rc == c->rc);
	if (rc != 0 || c->rc != 0)
		return failures == before;
	CHECK(strcmp(r->comm, c->comm) == 0);
	CHECK(r->tid == c->tid && r->tgid == c->tgid && cpu == c->cpu && ts == c->ts);
	CHECK(strcmp(r->event, c->event) == 0 && nlen == strlen(c->event) && r->form == c->form);
	CHECK(strcmp(r->info, c->info) == 0);
	fields_str(r, got, sizeof got);
	CHECK(strcmp(got, c->fields) == 0);
	/* the fields are cut from a copy: the info reads as the line was */
	CHECK(strcmp(r->info, c->info) == 0);
	if (failures != before)
		fprintf(stderr, "  in: %s\n  fields: %s\n", c->line, got);
	return failures == before;
}

int main(void)
{
	static char scratch[LTAP_TEXT_SCRATCH];
	char line[2048], *p = line;
	struct ltap_textrec r;
	uint64_t ts;
	size_t nlen;
	int cpu;

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
		if (!check_case(&cases[i], NULL))
			fprintf(stderr, "  case %zu: %s\n", i, cases[i].line);
	/* the same lines in a row, each twice, and each after every other
	 * one: a line's task and CPU columns as the last line's are taken
	 * from it, and a line that differs there is cut anew */
	memset(&r, 0, sizeof r);
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
		for (size_t j = 0; j < sizeof cases / sizeof cases[0]; j++)
			for (int twice = 0; twice < 2; twice++)
				if (!check_case(&cases[i], &r) || !check_case(&cases[j], &r))
					fprintf(stderr, "  cases %zu then %zu\n", i, j);

	/* at most LTAP_TEXT_FIELDS fields; a key asked for that is not there */
	p += sprintf(p, "x-1 [000] 1.0: many:");
	for (int i = 0; i < LTAP_TEXT_FIELDS + 8; i++)
		p += sprintf(p, " f%d=%d", i, i);
	memset(&r, 0, sizeof r);
	r.scratch = scratch;
	r.nfields = -1;
	CHECK(ltap_text_parse_line(line, strlen(line), &r, &ts, &cpu, &nlen) == 0 && nlen == 4);
	CHECK(ltap_textrec_field(&r, "f0") && strcmp(ltap_textrec_field(&r, "f0"), "0") == 0);
	CHECK(r.nfields == LTAP_TEXT_FIELDS);
	CHECK(strcmp(ltap_textrec_field(&r, "f31"), "31") == 0);
	CHECK(ltap_textrec_field(&r, "f32") == NULL && ltap_textrec_field(&r, "nope") == NULL);
	printf("%d checks, %d failed\n", checks, failures);
	return failures != 0;
}
