/* src_replay.c: a trace.dat file as a stream of checked records.
 *
 * The file is read by another process (replay_reader.c, libtracecmd) that
 * sends its formats and its records, merged by time, over a pipe
 * (replay_wire.h). Here every frame is checked before use: sizes against
 * bounds, the formats (evcheck.c) once, each record against its format. A
 * reader that dies, stalls or sends nonsense ends the replay with one
 * message naming the file; ltap itself never runs libtracecmd. */
#include "src_replay.h"

#include "evcheck.h"
#include "gate.h"
#include "log.h"
#include "progress.h"
#include "proc.h"
#include "replay_reader.h"
#include "replay_wire.h"
#include "ringclock.h"
#include "sandbox.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <event-parse.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Records are read in chunks into a buffer of this size, with room for the
 * largest record frame. The slack after it stays zero: libtraceevent reads
 * a few bytes past a value it prints in places (binary printk arguments). */
#define BUF_CAP (4u << 20)
#define BUF_SLACK 64
/* A reader that sends nothing for this long is stuck in a loop of
 * libtracecmd's on a damaged file. */
#define STALL_MS 5000
/* CPU numbers, as ltap keeps them */
#define STREAMS_CPU_MAX 65535

struct text {
	uint32_t type;
	uint32_t len;
	int long_size;    /* WIRE_HEADER_PAGE */
	const char *sys;  /* WIRE_FORMAT */
	char *data;       /* len bytes and a 0 */
};

struct ltap_replay {
	struct ltap_source src;  /* first: the run sees a struct ltap_source */
	char *path;
	pid_t pid;
	int fd;
	char *buf;
	size_t cap, head, tail; /* buf[head, tail): received, not yet used */
	struct tep_handle *tep;
	struct tep_plugin_list *plugins;
	struct ltap_evcheck *check;
	struct ltap_stream s;   /* one stream: the reader merges the CPUs */
	struct ltap_stream *streams[1];
	uint64_t start, end, records;
	/* for progress, on the file's own clock: the first event's time, the
	 * current one's, the last's (LTAP_REPLAY_LAST) */
	uint64_t first, cur, last;
	int command;            /* the recorded run's -c command ("start=NS command=PID") */
	struct ltap_gate *gate; /* where "measure=PID" marks go, in order with the events */
	struct tep_event *print; /* ftrace:print, for those marks */
	struct tep_format_field *print_buf;
	struct ltap_ringclock clock; /* the recorded run's clock segments (ringclock.h) */
	int reports;            /* a sanitizer build's reports of the reader (memfd), or -1 */
	int last_cpu;
	int ended;              /* END received */
	char why[400];          /* what is wrong with the file, "" if nothing */
};

static int replay_failed(struct ltap_replay *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int replay_failed(struct ltap_replay *r, const char *fmt, ...)
{
	va_list ap;

	if (!r->why[0]) {
		va_start(ap, fmt);
		vsnprintf(r->why, sizeof r->why, fmt, ap);
		va_end(ap);
	}
	r->s.has = 0;
	return -1;
}

static void replay_relay_reports(struct ltap_replay *r, pid_t pid);

static void replay_stop_reader(struct ltap_replay *r, int *status)
{
	int st = 0;

	if (r->pid <= 0)
		return;
	kill(r->pid, SIGKILL);
	while (waitpid(r->pid, &st, 0) < 0 && errno == EINTR)
		;
	replay_relay_reports(r, r->pid);
	r->pid = 0;
	if (status)
		*status = st;
}

/* The reader's end, as the reason the file cannot be read. */
static int replay_reader_died(struct ltap_replay *r, int stalled)
{
	char where[120];
	int st = 0;

	if (r->records)
		snprintf(where, sizeof where, "after %llu events, the last on cpu %d", (unsigned long long)r->records,
			 r->last_cpu);
	else
		snprintf(where, sizeof where, r->tep ? "before the first event" : "opening it");
	if (stalled) {
		replay_stop_reader(r, NULL);
		return replay_failed(r, "damaged trace.dat (libtracecmd made no progress for %d s, %s)",
				     STALL_MS / 1000, where);
	}
	/* the pipe's end: the reader has exited or been killed */
	replay_stop_reader(r, &st);
	if (WIFSIGNALED(st) && WTERMSIG(st) != SIGKILL)
		return replay_failed(r, "damaged trace.dat (libtracecmd crashed with %s %s)",
				     sigabbrev_np(WTERMSIG(st)) ? sigabbrev_np(WTERMSIG(st)) : "a signal", where);
	if (WIFEXITED(st))
		return replay_failed(r, "damaged trace.dat (its reader stopped with exit code %d %s)", WEXITSTATUS(st),
				     where);
	return replay_failed(r, "damaged trace.dat (its reader was killed %s)", where);
}

/* Makes n bytes from head available: 0, or -1 with the reason set. */
static int replay_need(struct ltap_replay *r, size_t n)
{
	struct timespec t0, now;

	if (r->tail - r->head >= n)
		return 0;
	if (n > r->cap) {
		size_t cap = n > r->cap * 2 ? n : r->cap * 2;
		char *nb = malloc(cap + BUF_SLACK);
		if (!nb)
			return replay_failed(r, "out of memory");
		memcpy(nb, r->buf + r->head, r->tail - r->head);
		memset(nb + (r->tail - r->head), 0, cap + BUF_SLACK - (r->tail - r->head));
		free(r->buf);
		r->buf = nb;
		r->cap = cap;
		r->tail -= r->head;
		r->head = 0;
	} else if (r->head + n > r->cap) {
		memmove(r->buf, r->buf + r->head, r->tail - r->head);
		r->tail -= r->head;
		r->head = 0;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (r->tail - r->head < n) {
		struct pollfd p = {.fd = r->fd, .events = POLLIN};
		long waited;
		ssize_t got;
		int e;

		clock_gettime(CLOCK_MONOTONIC, &now);
		waited = (now.tv_sec - t0.tv_sec) * 1000 + (now.tv_nsec - t0.tv_nsec) / 1000000;
		e = poll(&p, 1, waited >= STALL_MS ? 0 : (int)(STALL_MS - waited));
		if (e < 0 && errno == EINTR)
			continue;
		if (e == 0)
			return replay_reader_died(r, 1);
		got = read(r->fd, r->buf + r->tail, r->cap - r->tail);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			return replay_reader_died(r, 0);
		r->tail += (size_t)got;
		clock_gettime(CLOCK_MONOTONIC, &t0);
	}
	return 0;
}

/* The next frame: its header in *f, its payload at *payload (valid until
 * the next call; NULL when there is none). 0, or -1 with the reason set. */
static int replay_frame(struct ltap_replay *r, struct ltap_wire_frame *f, char **payload)
{
	uint64_t size;

	*payload = NULL;
	if (replay_need(r, sizeof *f))
		return -1;
	memcpy(f, r->buf + r->head, sizeof *f);
	if (f->type == WIRE_RECORD ? f->len > LTAP_WIRE_MAX_RECORD + sizeof(struct ltap_wire_rec) + 1
				   : f->len > LTAP_WIRE_MAX_TEXT + 16) {
		replay_stop_reader(r, NULL);
		return replay_failed(r, "damaged trace.dat (its reader sent a frame of %u bytes)", f->len);
	}
	size = ltap_wire_size(f->len);
	if (replay_need(r, size))
		return -1;
	*payload = r->buf + r->head + sizeof *f;
	r->head += size;
	return 0;
}

static int replay_bad_frame(struct ltap_replay *r, const struct ltap_wire_frame *f)
{
	replay_stop_reader(r, NULL);
	return replay_failed(r, "damaged trace.dat (its reader sent a frame of type %u and %u bytes)", f->type, f->len);
}

/* The reader's own reason, printable characters only. */
static int replay_reader_error(struct ltap_replay *r, const char *text, uint32_t len)
{
	char why[200];
	size_t n = len < sizeof why - 1 ? len : sizeof why - 1;

	for (size_t i = 0; i < n; i++)
		why[i] = text[i] >= 0x20 && text[i] < 0x7f ? text[i] : '?';
	why[n] = 0;
	replay_stop_reader(r, NULL);
	return replay_failed(r, "%s", why);
}

/* "ltap-record measure=PID", written by ltap.measure of the recorded run
 * before its command left the start gate: from here the replay holds that
 * command until its exec, as the live run did (gate.h). The start mark's
 * command came with SETUP. */
static void replay_mark(struct ltap_replay *r, const char *data, int size)
{
	static const char mark[] = "ltap-record measure=";
	uint16_t type;
	int off, pid;

	if (!r->gate || !r->print_buf || size < 2)
		return;
	memcpy(&type, data, sizeof type);
	off = r->print_buf->offset;
	if (type != r->print->id || off < 0 || size - off < (int)sizeof mark ||
	    strncmp(data + off, mark, sizeof mark - 1) != 0)
		return;
	if (sscanf(data + off + sizeof mark - 1, "%d", &pid) == 1 && pid > 0)
		ltap_gate_hold(r->gate, pid);
}

/* A clock mark of the recorded run ("ltap-clock ..."): the segment it
 * announces taken, so events convert as they did live; never dispatched. */
static int replay_clock_mark(struct ltap_replay *r, const char *data, int size)
{
	struct ltap_ringclock_seg seg;
	unsigned seq, k;
	uint16_t type;
	int off, has;

	if (!r->print_buf || size < 2)
		return 0;
	memcpy(&type, data, sizeof type);
	off = r->print_buf->offset;
	if (type != r->print->id || off < 0 || size <= off ||
	    !ltap_ringclock_parse(data + off, (size_t)(size - off), &seq, &k, &seg, &has))
		return 0;
	if (has)
		ltap_ringclock_push(&r->clock, &seg);
	return 1;
}

/* Moves the stream to the next record; at the end or on an error it has
 * none (ltap_replay_error tells which). */
static void replay_next(struct ltap_replay *r)
{
	struct ltap_wire_frame f;
	char *p, why[300];

	r->s.has = 0;
	while (!r->ended && !r->why[0] && replay_frame(r, &f, &p) == 0) {
		switch (f.type) {
		case WIRE_RECORD: {
			struct ltap_wire_rec w;
			char *data = p + sizeof w;
			if (f.len < sizeof w + 1)
				goto bad;
			memcpy(&w, p, sizeof w);
			if ((uint64_t)w.size + sizeof w + 1 != f.len || w.cpu > STREAMS_CPU_MAX)
				goto bad;
			data[w.size] = 0; /* ends any string the record does not */
			if (ltap_evcheck_record(r->check, data, (int)w.size, why, sizeof why)) {
				replay_stop_reader(r, NULL);
				replay_failed(r, "damaged trace.dat (event %llu, cpu %u: %s)",
					      (unsigned long long)r->records + 1, w.cpu, why);
				return;
			}
			if (!r->records++)
				r->first = w.ts;
			r->cur = w.ts;
			if (replay_clock_mark(r, data, (int)w.size))
				break;
			replay_mark(r, data, (int)w.size);
			r->last_cpu = (int)w.cpu;
			r->s.cur.ts = ltap_ringclock_mono(&r->clock, w.ts);
			r->s.cur.data = data;
			r->s.cur.size = (int)w.size;
			r->s.cur.cpu = (int)w.cpu;
			r->s.has = 1;
			return;
		}
		case WIRE_MISSED: {
			struct ltap_wire_missed m;
			if (f.len != sizeof m)
				goto bad;
			memcpy(&m, p, sizeof m);
			r->s.lost += m.count;
			break;
		}
		case WIRE_END: {
			struct ltap_wire_end e;
			if (f.len != sizeof e)
				goto bad;
			memcpy(&e, p, sizeof e);
			if (e.records != r->records)
				goto bad;
			r->end = e.end;
			r->ended = 1;
			return;
		}
		case WIRE_ERROR:
			replay_reader_error(r, p, f.len);
			return;
		default:
			goto bad;
		}
	}
	return;
bad:
	replay_bad_frame(r, &f);
}

static void replay_advance(struct ltap_stream *s)
{
	replay_next((struct ltap_replay *)((char *)s - offsetof(struct ltap_replay, s)));
}

static int replay_fill(struct ltap_stream *s)
{
	(void)s; /* the stream reads as it advances */
	return 0;
}

static const struct ltap_stream_ops replay_ops = {
	.fill = replay_fill,
	.advance = replay_advance,
};

/* In sanitizer builds: where reports go, and what runs before the end
 * (libFuzzer's crash dump, in tests/fuzz/fuzz_tracedat). */
void __sanitizer_set_report_fd(void *fd) __attribute__((weak));
void __sanitizer_set_death_callback(void (*callback)(void)) __attribute__((weak));

/* The reader's sanitizer reports go to every sanitizer runtime of the
 * process: ASan's and, in GCC's builds, UBSan's library of its own. */
static void reader_report_fd(int fd)
{
	void *ubsan = dlopen("libubsan.so.1", RTLD_NOW | RTLD_NOLOAD);
	void (*set)(void *) = ubsan ? (void (*)(void *))dlsym(ubsan, "__sanitizer_set_report_fd") : NULL;

	__sanitizer_set_report_fd((void *)(intptr_t)fd);
	if (set && set != __sanitizer_set_report_fd)
		set((void *)(intptr_t)fd);
	if (ubsan)
		dlclose(ubsan);
}

/* A sanitizer build's reports of the reader, kept in a memfd (the reader
 * may open no file): written where this process's own would go, the
 * log_path of ASAN_OPTIONS (or UBSAN_OPTIONS) as "PATH.READER_PID", or
 * standard error, so a test sees a memory error of the reader as it sees
 * one of ltap's. Not ASan's warning that it returned NULL for more memory
 * than there is (allocator_may_return_null: glibc's answer): no report. */
static void replay_relay_reports(struct ltap_replay *r, pid_t pid)
{
	const char *opts[] = {getenv("ASAN_OPTIONS"), getenv("UBSAN_OPTIONS")};
	char path[4096] = "", *text;
	struct stat st;
	size_t len;
	int out;

	if (r->reports < 0 || fstat(r->reports, &st) < 0 || st.st_size == 0)
		return;
	len = st.st_size < (1 << 20) ? (size_t)st.st_size : (1 << 20);
	text = malloc(len + 1);
	if (text && pread(r->reports, text, len, 0) == (ssize_t)len) {
		text[len] = 0;
		for (int i = 0; i < 2 && !path[0]; i++) {
			const char *p = opts[i] ? strstr(opts[i], "log_path=") : NULL;
			if (p && (p == opts[i] || p[-1] == ':'))
				snprintf(path, sizeof path, "%.*s.%d", (int)strcspn(p + 9, ":"), p + 9, (int)pid);
		}
		if (strstr(text, "ERROR: ") || strstr(text, "runtime error")) {
			out = path[0] ? open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644) : dup(STDERR_FILENO);
			if (out >= 0 && write(out, text, len) != (ssize_t)len)
				ltap_warn("replay: the reader's sanitizer report is cut short");
			if (out >= 0)
				close(out);
		}
	}
	free(text);
	if (ftruncate(r->reports, 0) < 0) {
		/* a memfd: cannot fail */
	}
}

/* The reader process, its output on the returned fd; -1 on error. */
static int replay_spawn(struct ltap_replay *r, int file_fd, int flags)
{
	int p[2];
	pid_t parent = getpid();
	struct ltap_sandbox sb;

	ltap_sandbox_ids(&sb.uid, &sb.gid);
	if (__sanitizer_set_report_fd && r->reports < 0)
		r->reports = memfd_create("ltap-reader-reports", MFD_CLOEXEC);
	if (pipe2(p, O_CLOEXEC) < 0)
		return -1;
	/* a pipe of 64 KB makes the two processes take turns every 1,000
	 * records; 1 MB (the default pipe-max-size) lets them run side by side */
	fcntl(p[1], F_SETPIPE_SZ, 1 << 20);
	r->pid = fork();
	if (r->pid < 0) {
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (r->pid == 0) {
		static const int fatal[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTERM, SIGHUP};
		sigset_t none;
		close(p[0]);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(1);
		/* ^C reaches the terminal's whole process group: ltap handles it;
		 * a crash is only this process's end, not a report of ltap's */
		signal(SIGINT, SIG_IGN);
		signal(SIGQUIT, SIG_IGN);
		for (size_t i = 0; i < sizeof fatal / sizeof fatal[0]; i++)
			signal(fatal[i], SIG_DFL);
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		/* libtracecmd prints warnings whatever its log level: standard
		 * error is /dev/null there (sandbox.c); a sanitizer's report of a
		 * memory error found in the reader goes to the memfd, which ltap
		 * relays once the reader is gone (replay_relay_reports) */
		if (r->reports >= 0)
			reader_report_fd(r->reports);
		if (__sanitizer_set_death_callback)
			__sanitizer_set_death_callback(NULL);
		sb.in_fd = file_fd;
		sb.out_fd = p[1];
		sb.report_fd = r->reports;
		_exit(ltap_replay_reader_run(&sb, parent, flags & LTAP_REPLAY_LAST));
	}
	close(p[1]);
	return p[0];
}

static int replay_setup_text(struct ltap_replay *r, struct text *t, const struct ltap_wire_frame *f, const char *p)
{
	size_t pre = 0;

	t->type = f->type;
	if (f->type == WIRE_HEADER_PAGE) {
		uint32_t ls[2];
		if (f->len < sizeof ls)
			return -1;
		memcpy(ls, p, sizeof ls);
		t->long_size = (int)ls[0];
		pre = sizeof ls;
	} else if (f->type == WIRE_FORMAT) {
		const char *nul = memchr(p, 0, f->len);
		if (!nul)
			return -1;
		pre = (size_t)(nul - p) + 1;
		if (!(t->sys = strdup(p)))
			return replay_failed(r, "out of memory");
	}
	t->len = f->len - (uint32_t)pre;
	t->data = malloc((size_t)t->len + 1);
	if (!t->data)
		return replay_failed(r, "out of memory");
	memcpy(t->data, p + pre, t->len);
	t->data[t->len] = 0;
	return 0;
}

/* The file's formats, as libtracecmd set up its own tep_handle: the same
 * plugins, byte order, long size, then the texts in the order it parsed
 * them. */
static int replay_build_tep(struct ltap_replay *r, const struct ltap_wire_setup *su, struct text *t, int n)
{
	char why[300];

	r->tep = tep_alloc();
	if (!r->tep)
		return replay_failed(r, "out of memory");
	r->plugins = tep_load_plugins(r->tep);
	tep_set_file_bigendian(r->tep, su->file_bigendian ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(r->tep, __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__ ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	tep_set_long_size(r->tep, su->long_size);
	for (int i = 0; i < n; i++) {
		switch (t[i].type) {
		case WIRE_HEADER_PAGE:
			tep_parse_header_page(r->tep, t[i].data, t[i].len, t[i].long_size);
			break;
		case WIRE_FORMAT:
			/* a format libtraceevent cannot parse is left out, as by libtracecmd */
			tep_parse_event(r->tep, t[i].data, t[i].len, t[i].sys);
			break;
		case WIRE_KALLSYMS:
			tep_parse_kallsyms(r->tep, t[i].data);
			break;
		case WIRE_PRINTK:
			/* the reader sent what it parsed; it may lie */
			ltap_evcheck_printk(t[i].data);
			tep_parse_printk_formats(r->tep, t[i].data);
			break;
		case WIRE_CMDLINES:
			tep_parse_saved_cmdlines(r->tep, t[i].data);
			break;
		}
	}
	tep_set_cpus(r->tep, (int)su->cpus);
	r->check = ltap_evcheck_new(r->tep, why, sizeof why);
	if (!r->check)
		return replay_failed(r, "damaged trace.dat (%s)", why);
	return 0;
}

/* The frames before the first record: the texts, then SETUP. */
static int replay_setup(struct ltap_replay *r)
{
	struct ltap_wire_setup su;
	struct ltap_wire_frame f;
	struct text *t = NULL;
	uint64_t total = 0;
	int n = 0, rc = -1;
	char *p;

	for (;;) {
		if (replay_frame(r, &f, &p))
			goto out;
		if (f.type == WIRE_SETUP)
			break;
		if (f.type == WIRE_ERROR) {
			replay_reader_error(r, p, f.len);
			goto out;
		}
		if (f.type < WIRE_HEADER_PAGE || f.type > WIRE_CMDLINES || (total += f.len) > LTAP_WIRE_MAX_SETUP) {
			replay_bad_frame(r, &f);
			goto out;
		}
		struct text *nt = realloc(t, (size_t)(n + 1) * sizeof *t);
		if (!nt) {
			replay_failed(r, "out of memory");
			goto out;
		}
		t = nt;
		memset(&t[n], 0, sizeof t[n]);
		if (replay_setup_text(r, &t[n++], &f, p)) {
			replay_bad_frame(r, &f);
			goto out;
		}
	}
	if (f.len != sizeof su) {
		replay_bad_frame(r, &f);
		goto out;
	}
	memcpy(&su, p, sizeof su);
	if (su.long_size != 4 && su.long_size != 8) {
		replay_stop_reader(r, NULL);
		replay_failed(r, "damaged trace.dat (a long of %u bytes)", su.long_size);
		goto out;
	}
	r->start = su.start;
	r->last = su.last;
	r->command = (int)su.command;
	rc = replay_build_tep(r, &su, t, n);
	if (rc == 0 && (r->print = tep_find_event_by_name(r->tep, "ftrace", "print")) != NULL)
		r->print_buf = tep_find_field(r->print, "buf");
out:
	for (int i = 0; i < n; i++) {
		free(t[i].data);
		free((char *)t[i].sys);
	}
	free(t);
	return rc;
}

static const struct ltap_source_ops replay_source_ops;

struct ltap_replay *ltap_replay_open(const char *path, int flags)
{
	struct ltap_replay *r = calloc(1, sizeof *r);
	struct stat st;
	int file_fd;

	if (!r || !(r->path = strdup(path)) || !(r->buf = calloc(1, BUF_CAP + BUF_SLACK))) {
		ltap_err("replay: cannot read %s: %s", path, strerror(ENOMEM));
		ltap_replay_close(r);
		return NULL;
	}
	r->src.ops = &replay_source_ops;
	r->cap = BUF_CAP;
	r->fd = -1;
	r->reports = -1;
	ltap_ringclock_init(&r->clock);
	file_fd = open(path, O_RDONLY | O_CLOEXEC);
	if (file_fd < 0 || fstat(file_fd, &st) < 0 || S_ISDIR(st.st_mode)) {
		ltap_err("replay: cannot read %s: %s", path, strerror(file_fd < 0 ? errno : EISDIR));
		if (file_fd >= 0)
			close(file_fd);
		ltap_replay_close(r);
		return NULL;
	}
	r->fd = replay_spawn(r, file_fd, flags);
	close(file_fd);
	if (r->fd < 0) {
		ltap_err("replay: cannot start the reader of %s: %s", path, strerror(errno));
		ltap_replay_close(r);
		return NULL;
	}
	r->s.ops = &replay_ops;
	r->s.fd = -1;
	r->streams[0] = &r->s;
	if (replay_setup(r)) {
		ltap_err("replay: cannot read %s: %s", path, r->why);
		ltap_replay_close(r);
		return NULL;
	}
	replay_next(r);
	return r;
}

void ltap_replay_close(struct ltap_replay *r)
{
	if (!r)
		return;
	replay_stop_reader(r, NULL);
	if (r->fd >= 0)
		close(r->fd);
	if (r->reports >= 0)
		close(r->reports);
	ltap_evcheck_free(r->check);
	if (r->tep) {
		tep_unload_plugins(r->plugins, r->tep);
		tep_free(r->tep);
	}
	free(r->buf);
	free(r->path);
	free(r);
}

const char *ltap_replay_error(struct ltap_replay *r)
{
	return r->why[0] ? r->why : NULL;
}

struct tep_handle *ltap_replay_tep(struct ltap_replay *r)
{
	return r->tep;
}

int ltap_replay_streams(struct ltap_replay *r, struct ltap_stream ***streams)
{
	*streams = r->streams;
	return 1;
}

uint64_t ltap_replay_start(struct ltap_replay *r)
{
	return r->start;
}

uint64_t ltap_replay_end(struct ltap_replay *r)
{
	return r->end;
}

const char *ltap_replay_comm(struct ltap_replay *r, int pid)
{
	if (!tep_is_pid_registered(r->tep, pid))
		return NULL;
	return tep_data_comm_from_pid(r->tep, pid);
}

static struct ltap_replay *replay_of(struct ltap_source *s)
{
	return (struct ltap_replay *)s;
}

static const char *replay_comm(void *ud, int pid)
{
	return ltap_replay_comm(ud, pid);
}

void ltap_replay_set_gate(struct ltap_replay *r, struct ltap_gate *g)
{
	r->gate = g;
	if (r->command)
		ltap_gate_hold(g, r->command);
}

/* Names of tasks come from the trace (its task events and saved
 * cmdlines), never from this machine's /proc. */
static int replay_attach(struct ltap_source *s, struct ltap_source_env *env)
{
	ltap_proc_set_lookup(env->proc, replay_comm, replay_of(s));
	return 0;
}

static int replay_streams(struct ltap_source *s, struct ltap_stream ***out)
{
	return ltap_replay_streams(replay_of(s), out);
}

static void replay_span(struct ltap_source *s, uint64_t *start, uint64_t *end)
{
	*start = replay_of(s)->start;
	*end = replay_of(s)->end;
}

/* by trace time: the event at hand between the first and the last */
static int replay_progress(struct ltap_source *s, uint64_t *done, uint64_t *total)
{
	struct ltap_replay *r = replay_of(s);

	if (!r->s.has || !r->last || r->last < r->first)
		return -1;
	*done = r->cur > r->first ? r->cur - r->first : 0;
	*total = r->last - r->first;
	return LTAP_PROGRESS_NS;
}

/* The input ended early: what the script saw is not the file. */
static int replay_finish(struct ltap_source *s)
{
	struct ltap_replay *r = replay_of(s);

	if (!r->why[0])
		return 0;
	ltap_err("replay: cannot read %s: %s", r->path, r->why);
	return -1;
}

static void replay_close(struct ltap_source *s)
{
	ltap_replay_close(replay_of(s));
}

static const struct ltap_source_ops replay_source_ops = {
	.name = "trace.dat",
	.attach = replay_attach,
	.streams = replay_streams,
	.finish = replay_finish,
	.close = replay_close,
	.span = replay_span,
	.progress = replay_progress,
};

struct ltap_source *ltap_replay_source(struct ltap_replay *r)
{
	return &r->src;
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
