/* test_filter.c: user-space filters (runtime/filter.c) against one record of
 * a made-up format, with the answers the kernel gives to the same filters
 * (tests/live/t_filter.sh compares the two on live events). */
#include "filter.h"
#include "check.h"

#include <event-parse.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>


static const char format[] =
	"name: fake\n"
	"ID: 42\n"
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\n"
	"\tfield:int pid;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:unsigned int upid;\toffset:12;\tsize:4;\tsigned:0;\n"
	"\tfield:long ret;\toffset:16;\tsize:8;\tsigned:1;\n"
	"\tfield:unsigned long flags;\toffset:24;\tsize:8;\tsigned:0;\n"
	"\tfield:short s;\toffset:32;\tsize:2;\tsigned:1;\n"
	"\tfield:char comm[16];\toffset:34;\tsize:16;\tsigned:0;\n"
	"\tfield:__data_loc char[] name;\toffset:52;\tsize:4;\tsigned:0;\n"
	"\tfield:const char * ptr;\toffset:56;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned long args[2];\toffset:64;\tsize:16;\tsigned:0;\n"
	"\n"
	"print fmt: \"pid=%d\", REC->pid\n";

static char rec[96];
static const char *comm_now = "getpgid_loop";

static const char *test_comm(void *ud, int tid)
{
	(void)ud;
	return tid == 1234 ? comm_now : NULL;
}

static void put(int off, const void *v, size_t n)
{
	memcpy(rec + off, v, n);
}

/* 1 match, 0 no match, -1 refused (why in why) */
static int match(struct tep_event *ev, const char *text, char *why, size_t whylen)
{
	struct ltap_filter *f = ltap_filter_new(ev, text, test_comm, NULL, why, whylen);
	int m;

	if (!f)
		return -1;
	m = ltap_filter_match(f, rec, (int)sizeof rec, 1);
	ltap_filter_free(f);
	return m;
}

static void expect(struct tep_event *ev, const char *text, int want)
{
	char why[512] = "";
	int got = match(ev, text, why, sizeof why);

	checks++;
	if (got != want) {
		failures++;
		fprintf(stderr, "filter '%s': expected %d, got %d %s\n", text, want, got, why);
	}
}

static void refused(struct tep_event *ev, const char *text, const char *reason)
{
	char why[512] = "";
	int got = match(ev, text, why, sizeof why);

	checks++;
	if (got != -1 || !strstr(why, reason)) {
		failures++;
		fprintf(stderr, "filter '%s': expected refusal '%s', got %d '%s'\n", text, reason, got, why);
	}
}

int main(void)
{
	struct tep_handle *tep = tep_alloc();
	struct tep_event *ev;
	int32_t common_pid = 1234, pid = -3, name_loc = (5 << 16) | 80;
	uint32_t upid = 7;
	int64_t ret = -2;
	uint64_t flags = 0x410;
	int16_t s = -1;

	CHECK(tep && tep_parse_event(tep, format, sizeof format - 1, "fake") == 0);
	ev = tep ? tep_find_event_by_name(tep, "fake", "fake") : NULL;
	CHECK(ev != NULL);
	if (!ev)
		return 1;
	put(4, &common_pid, 4);
	put(8, &pid, 4);
	put(12, &upid, 4);
	put(16, &ret, 8);
	put(24, &flags, 8);
	put(32, &s, 2);
	put(34, "bash", 5);
	put(52, &name_loc, 4);
	put(80, "eth0", 5);

	/* numbers compare by the field's size and sign */
	expect(ev, "pid == -3", 1);
	expect(ev, "pid < 0", 1);
	expect(ev, "ret < 0", 1);
	expect(ev, "ret == -2", 1);
	expect(ev, "ret > -3 && ret < -1", 1);
	expect(ev, "upid == 7", 1);
	expect(ev, "upid == 0x100000007", 1); /* the value is cut to the field's 4 bytes */
	expect(ev, "upid == 07", 1);
	expect(ev, "flags & 0x400", 1);
	expect(ev, "flags & 0x1", 0);
	expect(ev, "s == -1", 1);
	expect(ev, "s == 0xffff", 1);
	expect(ev, "s < 0", 1);
	expect(ev, "common_pid == 1234", 1);
	expect(ev, "common_pid > 0x100000000", 1); /* (s32)0x100000000 is 0 */
	/* strings: ==, != and ~ with the kernel's match kinds */
	expect(ev, "comm == \"bash\"", 1);
	expect(ev, "comm == 'bash'", 1);
	expect(ev, "comm != \"bash\"", 0);
	expect(ev, "comm == \"bas\"", 0);
	expect(ev, "comm ~ \"ba*\"", 1);
	expect(ev, "comm ~ \"*as*\"", 1);
	expect(ev, "comm ~ \"*sh\"", 0); /* the kernel compares the end of the char[16] */
	expect(ev, "comm ~ \"b?sh\"", 1);
	expect(ev, "comm ~ \"[a-c]ash\"", 1);
	expect(ev, "comm ~ \"[!a-c]ash\"", 0);
	expect(ev, "comm ~ \"!ba*\"", 0);
	expect(ev, "comm ~ \"!x*\"", 1);
	expect(ev, "comm ~ \"*\"", 1);
	expect(ev, "name ~ \"*th0\"", 1); /* a __data_loc string ends at its NUL */
	expect(ev, "name == \"eth0\"", 1);
	expect(ev, "name ~ \"eth\"", 0);
	expect(ev, "name ~ \"e*0\"", 1);
	/* the generic fields */
	expect(ev, "COMM == \"getpgid_loop\"", 1);
	expect(ev, "COMM ~ \"getpgid*\"", 1);
	expect(ev, "COMM ~ \"*_loop\"", 0); /* as the kernel: the end of task->comm[16] */
	expect(ev, "CPU == 1", 1);
	expect(ev, "cpu == 1", 1);
	expect(ev, "common_cpu < 1", 0);
	expect(ev, "CPU & 1", 0); /* the kernel's filter_pred_cpu has no '&' */
	/* logic: ! binds to what follows, && before || */
	expect(ev, "!(pid == -3) || upid == 7", 1);
	expect(ev, "!pid == -3", 0);
	expect(ev, "!!pid == -3", 1);
	expect(ev, "pid == -3 && upid == 8 || s == -1", 1);
	expect(ev, "pid == -3 && (upid == 8 || s == 0)", 0);
	expect(ev, "pid==-3&&upid!=8", 1);
	expect(ev, "  ( ( pid == -3 ) )  ", 1);
	/* what the kernel refuses, or only the kernel can apply */
	refused(ev, "ordr == 1", "no field 'ordr' (fields: pid, upid");
	refused(ev, "pid = 3", "expected an operator");
	refused(ev, "pid == \"3\"", "is a number");
	refused(ev, "comm == 3", "is a string");
	refused(ev, "comm < \"a\"", "does not compare strings");
	refused(ev, "pid ~ 3", "'~' matches strings");
	refused(ev, "upid == -1", "bad number '-1'");
	refused(ev, "pid == 3abc", "bad number");
	refused(ev, "pid == 08", "bad number");
	refused(ev, "ptr == \"x\"", "only the kernel");
	refused(ev, "args == 1", "kernel only");
	refused(ev, "pid.function == x", "kernel only");
	refused(ev, "CPU & CPUS{1}", "kernel only");
	refused(ev, "pid == 3 &&", "incomplete");
	refused(ev, "", "incomplete");
	refused(ev, "(pid == 3", "missing ')'");
	refused(ev, "pid == 3)", "too many ')'");
	refused(ev, "pid == 3 pid == 4", "expected && or ||");
	refused(ev, "pid & 1 == 1", "expected && or ||");
	refused(ev, "pid == 3 & pid == 4", "expected && or ||");
	refused(ev, "comm == \"bash", "missing closing quote");
	refused(ev, "pid == x", "needs a number or a quoted string");
	refused(ev, "((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((pid == 1", "nested");

	/* a damaged record: a string beyond its end is empty, never read */
	name_loc = (200 << 16) | 80;
	put(52, &name_loc, 4);
	expect(ev, "name == \"\"", 1);
	expect(ev, "name ~ \"*\"", 1);

	tep_free(tep);
	printf("%d checks, %d failed\n", checks, failures);
	return failures != 0;
}
