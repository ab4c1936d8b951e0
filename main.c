/* main.c: the ltap command, a client of libltap (ltap.h): it parses the
 * command line, forwards the process's signals to its host and prints what
 * the host says; everything else is the library's. */
#include "ltap.h"

#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef __SANITIZE_ADDRESS__
/* In ASan builds, a request for more memory than there is returns NULL,
 * as glibc's malloc does, instead of being a report: the trace.dat reader
 * (runtime/replay_reader.c) asks libtracecmd to read what a damaged size
 * says, and ltap's own code checks what it gets. Here, in the executable:
 * the sanitizer runtime finds it only there. ASAN_OPTIONS may say
 * otherwise. */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
	return "allocator_may_return_null=1";
}
#endif

static const char usage_text[] =
	"usage: ltap [OPTIONS] SCRIPT.lua|./FILE|NAME [ARGS...]  run a script file or a bundled script\n"
	"       ltap [OPTIONS] -e 'CODE' [ARGS...]         run a one-liner\n"
	"       ltap list [-v] [GLOB]                      list events ('kmem:*'), -v with fields\n"
	"       ltap list [-v] 'usdt:PATH:*' | 'u:PATH:GLOB'  SDT markers (-v: arguments) or functions\n"
	"       ltap replay FILE SCRIPT [ARGS...]          run a script over a saved trace\n"
	"       ltap scripts                               list the bundled scripts\n"
	"       ltap --check                               what this machine supports\n"
	"       ltap --version                             which ltap this is\n"
	"       ltap NAME -h                               a bundled script's options\n"
	"\n"
	"options:\n"
	"  -e CODE        run CODE instead of a script file\n"
	"  -p PID         trace only process PID (its threads, and children it starts)\n"
	"  -c COMMAND     start COMMAND, trace it and its children, end when it exits\n"
	"  -d DURATION    end the run after DURATION (\"10s\", \"500ms\")\n"
	"  -a             the whole system (the default without -p or -c)\n"
	"  -b SIZE        ring buffer size per CPU (default 8M)\n"
	"  --unordered    dispatch events per CPU as read, not in time order (faster)\n"
	"  --format json  every report (timer run, begin/finish hook) as one JSON line\n"
	"  --input FILE   replay a saved trace: a trace.dat (trace-cmd, ltap --record),\n"
	"                 or trace/trace_pipe text (- for standard input)\n"
	"  --record FILE  also save the events of this live run as a trace.dat\n"
	"  --max-memory SIZE  limit of the script's Lua memory (default: a quarter of\n"
	"                 the machine's, the cgroup's or the rlimit's memory)\n"
	"  --max-drain DURATION  longest final drain of the rings at the end (default 2s;\n"
	"                 what is left is counted as lost)\n"
	"  --serve [ADDR:]PORT  serve the script's metrics at http://ADDR:PORT/metrics\n"
	"                 for Prometheus (ADDR 127.0.0.1 when only a port is given)\n"
	"  --export-all   export every stats() aggregate the script makes (with --serve)\n"
	"  --check-script load the script (its options, its declarations) and exit\n"
	"                 without attaching anything: 0 when it loads\n"
	"  -v             say more (attach time, ...)\n"
	"  -h, --help     this text\n"
	"\n"
	"Script functions: probe(EVENT, [FILTER,] FN), every(INTERVAL, FN), after(DELAY, FN),\n"
	"begin(FN), finish(FN), exit([CODE]), printf(FMT, ...), sorted(T, [HOW], [N]),\n"
	"stats([OPTS]), report(X, [OPTS]), counter(NAME), profile(FREQ, FN), sym(ADDR, [PID]),\n"
	"metrics.counter/gauge/histogram(NAME, [OPTS]).\n"
	"Probe specs: SYS:EVENT, u:PATH:FUNC, ur:PATH:FUNC, usdt:PATH:NAME, k:FUNC.\n"
	"See man ltap, man ltap-lua (the event object) and docs/ for more.\n";

/* The one global: a signal handler has no other way to find the host. */
static ltap_host *signal_host;

static void on_signal(int sig)
{
	ltap_host_signal(signal_host, sig);
}

/* SIGINT, SIGTERM, SIGHUP and SIGQUIT end the run (a second one at once);
 * no SA_RESTART, so a wait in ltap.measure sees the EINTR. */
static void signals_install(ltap_host *h)
{
	static const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
	struct sigaction sa;

	signal_host = h;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
		sigaction(sigs[i], &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

static void signals_restore(void)
{
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	signal(SIGQUIT, SIG_DFL);
	signal_host = NULL;
}

/* "ltap: MSG" on stderr, after what the script printed */
static void log_stderr(void *ud, enum ltap_log_level level, const char *msg)
{
	(void)ud;
	(void)level;
	fflush(stdout);
	fprintf(stderr, "ltap: %s\n", msg);
}

static int usage(FILE *out, int code)
{
	fputs(usage_text, out);
	return code;
}

static int cmd_list(int argc, char **argv, int verbose)
{
	const char *glob = NULL;
	int rc;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "-v") == 0)
			verbose = 1;
		else if (!glob)
			glob = argv[i];
	}
	ltap_set_log(log_stderr, NULL, verbose);
	rc = ltap_list(stdout, glob, verbose);
	return rc > 0 ? 0 : rc == -EINVAL ? 2 : 1;
}

/* A bundled script is named by a bare name, a script file as a path:
 * contains a / or ends in .lua (ltap runs as root: a bare name is never a
 * file of the current directory). */
static int is_path(const char *name)
{
	size_t n = strlen(name);
	return strchr(name, '/') || (n > 4 && strcmp(name + n - 4, ".lua") == 0);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"help", no_argument, NULL, 'h'},
		{"check", no_argument, NULL, 'C'},
		{"version", no_argument, NULL, 'V'},
		{"unordered", no_argument, NULL, 'U'},
		{"format", required_argument, NULL, 'F'},
		{"input", required_argument, NULL, 'I'},
		{"record", required_argument, NULL, 'R'},
		{"max-memory", required_argument, NULL, 'M'},
		{"max-drain", required_argument, NULL, 'D'},
		{"serve", required_argument, NULL, 'S'},
		{"export-all", no_argument, NULL, 'X'},
		{"check-script", no_argument, NULL, 'L'},
		{NULL, 0, NULL, 0},
	};
	LTAP_HOST_OPTS(o, .output = stdout, .error_output = stderr, .log = log_stderr, .exclude_self = 1,
		       .progress = stderr);
	const char *code = NULL, *name;
	int c, rc, load_only = 0, given_p = 0, given_d = 0, given_r = 0;
	ltap_host *h;
	uint64_t v;
	char *end;
	long pid;

	ltap_set_log(log_stderr, NULL, 0);
	if (argc > 1 && strcmp(argv[1], "list") == 0)
		return cmd_list(argc - 1, argv + 1, 0);
	if (argc > 1 && strcmp(argv[1], "scripts") == 0)
		return ltap_list_scripts(stdout) >= 0 ? 0 : 1;
	while ((c = getopt_long(argc, argv, "+e:p:c:d:ab:vh", longopts, NULL)) != -1) {
		switch (c) {
		case 'e': code = optarg; break;
		case 'c':
			if (o.command) {
				fprintf(stderr, "ltap: -c was given twice\n");
				return 2;
			}
			o.command = optarg;
			break;
		case 'p':
			errno = 0;
			pid = strtol(optarg, &end, 10);
			/* a pid is 32 bits: 4294967297 must not wrap to 1 */
			if (given_p++ || *end || end == optarg || errno || pid <= 0 || pid > INT32_MAX) {
				if (given_p > 1)
					fprintf(stderr, "ltap: -p was given twice\n");
				else
					fprintf(stderr, "ltap: -p: bad pid '%s' (1 to %d)\n", optarg, INT32_MAX);
				return 2;
			}
			o.pid = (int)pid;
			break;
		case 'd':
			if (given_d++ || ltap_parse_duration(optarg, &o.duration_ns) || !o.duration_ns) {
				if (given_d > 1)
					fprintf(stderr, "ltap: -d was given twice\n");
				else
					fprintf(stderr, "ltap: -d: bad duration '%s' (try 10s, 500ms)\n", optarg);
				return 2;
			}
			break;
		case 'a': o.all = 1; break;
		case 'R':
			if (given_r++) {
				fprintf(stderr, "ltap: --record was given twice\n");
				return 2;
			}
			o.record = optarg;
			break;
		case 'b':
			if (ltap_parse_size(optarg, &v) || v < 4096) {
				fprintf(stderr, "ltap: -b: bad size '%s' (try 8M)\n", optarg);
				return 2;
			}
			o.ring_kb = (size_t)(v / 1024);
			break;
		case 'v': o.verbose = 1; break;
		case 'U': o.unordered = 1; break;
		case 'I': o.input = optarg; break;
		case 'L': load_only = 1; break;
		case 'M':
			if (ltap_parse_size(optarg, &v) || v < (16u << 20)) {
				fprintf(stderr, "ltap: --max-memory: bad size '%s' (at least 16M; try 2G)\n", optarg);
				return 2;
			}
			o.max_memory = v;
			break;
		case 'D':
			if (ltap_parse_duration(optarg, &v)) {
				fprintf(stderr, "ltap: --max-drain: bad duration '%s' (try 2s, 500ms; 0: no drain)\n", optarg);
				return 2;
			}
			o.max_drain_ns = v ? (int64_t)v : -1;
			break;
		case 'S': o.serve = optarg; break;
		case 'X': o.export_all = 1; break;
		case 'F':
			if (strcmp(optarg, "json") == 0)
				o.json = 1;
			else if (strcmp(optarg, "text") != 0) {
				fprintf(stderr, "ltap: --format: unknown format '%s' (text, json)\n", optarg);
				return 2;
			}
			break;
		case 'C': return ltap_check(stdout) == 0 ? 0 : 1;
		case 'V': printf("ltap %s\n", ltap_version()); return 0;
		case 'h': return usage(stdout, 0);
		default: return usage(stderr, 2);
		}
	}
	if (argc > 2 && optind == 1 && strcmp(argv[1], "replay") == 0) {
		/* ltap replay FILE SCRIPT [ARGS...] */
		o.input = argv[2];
		optind = 3;
	}
	if (!code && optind >= argc)
		return usage(stderr, 2);
	if (o.json)
		o.progress = NULL; /* JSON output never has a progress line */
	/* bad options are usage errors (exit 2), found before anything starts */
	if ((rc = ltap_host_new(&h, &o)) != 0) {
		ltap_host_free(h);
		return rc == -EINVAL ? 2 : 1;
	}
	signals_install(h);
	if (code) {
		rc = ltap_host_load_string(h, code, "-e", argc - optind, argv + optind);
	} else {
		name = argv[optind++];
		if (is_path(name))
			rc = ltap_host_load_file(h, name, argc - optind, argv + optind);
		else
			rc = ltap_host_load_bundled(h, name, argc - optind, argv + optind);
		if (rc == -ENOENT || (rc < 0 && ltap_host_status(h) < 0))
			rc = 2; /* no such script: as a bad argument */
	}
	if (rc == 0)
		rc = load_only ? 0 : ltap_host_run(h);
	else if (rc < 0)
		rc = ltap_host_status(h) >= 0 ? ltap_host_status(h) : 1;
	fflush(stdout);
	ltap_host_free(h);
	signals_restore();
	return rc;
}
