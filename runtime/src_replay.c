/* src_replay.c: a trace.dat file as per-CPU streams, through libtracecmd. */
#include "src_replay.h"

#include "gate.h"
#include "log.h"

#include <errno.h>
#include <event-parse.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <trace-cmd/trace-cmd.h>
#include <unistd.h>

/* In libtracecmd since 1.0 and used by trace-cmd itself, but not declared in
 * the public header of 1.3. */
int tracecmd_cpus(struct tracecmd_input *handle);

#define RECORD_MARK "ltap-record "

struct replay_cpu {
	struct ltap_stream s; /* first: the loop sees a struct ltap_stream */
	struct ltap_replay *r;
	struct tracecmd_input *h; /* the buffer this CPU's stream is in */
	struct tep_record *rec;
};

/* A trace.dat holds the top-level buffer and those of instances (trace-cmd
 * record -B NAME): every CPU of every buffer is one stream, all merged. */
struct ltap_replay {
	struct tracecmd_input *h;
	struct tracecmd_input **inst; /* the instances' buffers */
	int ninst;
	struct tep_handle *tep;
	struct tep_event *print;         /* ftrace:print, for ltap-record marks */
	struct tep_format_field *print_buf;
	int n;
	struct replay_cpu *cpus;
	struct ltap_stream **streams;
	uint64_t start, end, first;
	int command;                     /* the -c command's pid */
	struct ltap_gate *gate;          /* where measure=PID marks go */
};

/* "ltap-record start=NS [command=PID]" / "end=NS" / "measure=PID" written
 * by ltap --record */
static void replay_mark(struct ltap_replay *r, struct tep_record *rec)
{
	unsigned long long v;
	const char *buf;
	int type;

	if (!r->print_buf || rec->size < 2)
		return;
	/* common_type is the record's first 2 bytes (header_page ABI): read it
	 * here, on every record, without tep_data_type's field lookup */
	uint16_t t16;
	memcpy(&t16, rec->data, sizeof t16);
	type = t16;
	if (type != r->print->id)
		return;
	buf = (const char *)rec->data + r->print_buf->offset;
	if (rec->size < r->print_buf->offset + (int)strlen(RECORD_MARK) ||
	    strncmp(buf, RECORD_MARK, strlen(RECORD_MARK)) != 0)
		return;
	int pid, k = sscanf(buf + strlen(RECORD_MARK), "start=%llu command=%d", &v, &pid);
	if (k >= 1) {
		r->start = v;
		if (k == 2)
			r->command = pid;
	} else if (sscanf(buf + strlen(RECORD_MARK), "end=%llu", &v) == 1) {
		r->end = v;
	} else if (sscanf(buf + strlen(RECORD_MARK), "measure=%d", &pid) == 1 && r->gate) {
		ltap_gate_hold(r->gate, pid);
	}
}

static void replay_set(struct replay_cpu *c, struct tep_record *rec)
{
	if (c->rec)
		tracecmd_free_record(c->rec);
	c->rec = rec;
	c->s.has = rec != NULL;
	if (!rec)
		return;
	if (rec->missed_events > 0)
		c->s.lost += (uint64_t)rec->missed_events;
	replay_mark(c->r, rec);
	c->s.cur.ts = rec->ts;
	c->s.cur.data = rec->data;
	c->s.cur.size = rec->size;
	c->s.cur.cpu = rec->cpu;
}

static void replay_advance(struct ltap_stream *s)
{
	struct replay_cpu *c = (struct replay_cpu *)s;
	replay_set(c, tracecmd_read_data(c->h, c->s.cpu));
}

static int replay_fill(struct ltap_stream *s)
{
	(void)s; /* a file has everything already */
	return 0;
}

static const struct ltap_stream_ops replay_ops = {
	.fill = replay_fill,
	.advance = replay_advance,
};

/* libtracecmd 1.3 crashes in the error path of tracecmd_open on a truncated
 * or damaged file; a child process tries the file first. */
static int replay_file_opens(const char *path)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return 1; /* cannot check: let the real open try */
	if (pid == 0) {
		tracecmd_set_loglevel(TEP_LOG_NONE);
		_exit(tracecmd_open(path, 0) ? 0 : 1);
	}
	if (waitpid(pid, &status, 0) < 0)
		return 1;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

struct ltap_replay *ltap_replay_open(const char *path)
{
	struct ltap_replay *r = calloc(1, sizeof *r);

	if (!r)
		return NULL;
	tracecmd_set_loglevel(TEP_LOG_NONE);
	if (access(path, R_OK) < 0) {
		ltap_err("replay: cannot read %s: %s", path, strerror(errno));
		free(r);
		return NULL;
	}
	r->h = replay_file_opens(path) ? tracecmd_open(path, 0) : NULL;
	if (!r->h) {
		ltap_err("replay: cannot read %s: not a trace.dat file (or a damaged one)", path);
		free(r);
		return NULL;
	}
	r->tep = tracecmd_get_tep(r->h);
	r->print = tep_find_event_by_name(r->tep, "ftrace", "print");
	r->print_buf = r->print ? tep_find_field(r->print, "buf") : NULL;
	r->ninst = tracecmd_buffer_instances(r->h);
	if (r->ninst < 0)
		r->ninst = 0;
	r->inst = calloc((size_t)r->ninst + 1, sizeof *r->inst);
	if (!r->inst) {
		ltap_replay_close(r);
		return NULL;
	}
	r->n = tracecmd_cpus(r->h) > 0 ? tracecmd_cpus(r->h) : 0;
	for (int i = 0; i < r->ninst; i++) {
		r->inst[i] = tracecmd_buffer_instance_handle(r->h, i);
		if (r->inst[i] && tracecmd_cpus(r->inst[i]) > 0)
			r->n += tracecmd_cpus(r->inst[i]);
	}
	r->cpus = calloc((size_t)r->n + 1, sizeof *r->cpus);
	r->streams = calloc((size_t)r->n + 1, sizeof *r->streams);
	if (!r->cpus || !r->streams) {
		ltap_replay_close(r);
		return NULL;
	}
	r->first = UINT64_MAX;
	r->n = 0;
	for (int b = -1; b < r->ninst; b++) {
		struct tracecmd_input *h = b < 0 ? r->h : r->inst[b];
		int ncpu = h ? tracecmd_cpus(h) : 0;
		/* the start mark is among the first records, not always the very first */
		for (int cpu = 0; cpu < ncpu && !r->start; cpu++) {
			struct tep_record *rec = tracecmd_read_cpu_first(h, cpu);
			for (int k = 0; rec && k < 256 && !r->start; k++) {
				replay_mark(r, rec);
				tracecmd_free_record(rec);
				rec = tracecmd_read_data(h, cpu);
			}
			if (rec)
				tracecmd_free_record(rec);
		}
		for (int cpu = 0; cpu < ncpu; cpu++) {
			struct replay_cpu *c = &r->cpus[r->n];
			c->r = r;
			c->h = h;
			c->s.ops = &replay_ops;
			c->s.fd = -1;
			c->s.cpu = cpu;
			replay_set(c, tracecmd_read_cpu_first(h, cpu));
			if (c->rec && c->rec->ts < r->first)
				r->first = c->rec->ts;
			r->streams[r->n++] = &c->s;
		}
	}
	return r;
}

void ltap_replay_close(struct ltap_replay *r)
{
	if (!r)
		return;
	for (int i = 0; r->cpus && i < r->n; i++)
		if (r->cpus[i].rec)
			tracecmd_free_record(r->cpus[i].rec);
	free(r->cpus);
	free(r->streams);
	for (int i = 0; r->inst && i < r->ninst; i++)
		if (r->inst[i])
			tracecmd_close(r->inst[i]);
	free(r->inst);
	if (r->h)
		tracecmd_close(r->h);
	free(r);
}

struct tep_handle *ltap_replay_tep(struct ltap_replay *r)
{
	return r->tep;
}

int ltap_replay_streams(struct ltap_replay *r, struct ltap_stream ***streams)
{
	*streams = r->streams;
	return r->n;
}

uint64_t ltap_replay_start(struct ltap_replay *r)
{
	return r->start ? r->start : r->first == UINT64_MAX ? 0 : r->first;
}

uint64_t ltap_replay_end(struct ltap_replay *r)
{
	return r->end;
}

int ltap_replay_command(struct ltap_replay *r)
{
	return r->command;
}

void ltap_replay_set_gate(struct ltap_replay *r, struct ltap_gate *g)
{
	r->gate = g;
}

const char *ltap_replay_comm(struct ltap_replay *r, int pid)
{
	if (!tep_is_pid_registered(r->tep, pid))
		return NULL;
	return tep_data_comm_from_pid(r->tep, pid);
}

int ltap_replay_is_tracedat(const char *path)
{
	char magic[10] = "";
	FILE *f = fopen(path, "rb");

	if (!f)
		return 0;
	if (fread(magic, 1, sizeof magic, f) != sizeof magic)
		magic[0] = 0;
	fclose(f);
	return memcmp(magic, LTAP_TRACEDAT_MAGIC, sizeof magic) == 0;
}
