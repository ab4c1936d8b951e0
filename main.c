/* main.c: the command line: run a script, a one-liner or a bundled script;
 * list events and scripts; say what this machine supports. */
#include "catalog.h"
#include "command.h"
#include "ctx.h"
#include "elfsym.h"
#include "embedded.h"
#include "guardian.h"
#include "log.h"
#include "parse.h"
#include "readfile.h"
#include "targetopt.h"
#include "tracefs_dir.h"
#include "version.h"

#include <errno.h>
#include <fnmatch.h>
#include <getopt.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static const char usage_text[] =
	"usage: ltap [OPTIONS] SCRIPT.lua|./FILE|NAME [ARGS...]  run a script file or a bundled script\n"
	"       ltap [OPTIONS] -e 'CODE' [ARGS...]         run a one-liner\n"
	"       ltap list [-v] [GLOB]                      list events ('kmem:*'), -v with fields\n"
	"       ltap list [-v] 'usdt:PATH:*' | 'u:PATH:GLOB'  SDT markers (-v: arguments) or functions\n"
	"       ltap replay FILE SCRIPT [ARGS...]          run a script over a saved trace\n"
	"       ltap scripts                               list the bundled scripts\n"
	"       ltap --check                               what this machine supports\n"
	"       ltap NAME -h                               a bundled script's options\n"
	"       ltap --version                             which ltap this is\n"
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
	"  --version      the version, and the git commit it was built from\n"
	"\n"
	"Script functions: probe(EVENT, [FILTER,] FN), every(INTERVAL, FN), after(DELAY, FN),\n"
	"begin(FN), finish(FN), exit([CODE]), printf(FMT, ...), sorted(T, [HOW], [N]),\n"
	"stats([OPTS]), report(X, [OPTS]), counter(NAME), profile(FREQ, FN), sym(ADDR, [PID]),\n"
	"metrics.counter/gauge/histogram(NAME, [OPTS]).\n"
	"Probe specs: SYS:EVENT, u:PATH:FUNC, ur:PATH:FUNC, usdt:PATH:NAME, k:FUNC.\n"
	"See man ltap, man ltap-lua (the event object) and docs/ for more.\n";

static int usage(FILE *out, int code)
{
	fputs(usage_text, out);
	return code;
}

/* ltap list 'usdt:PATH:*' or 'u:PATH:GLOB': markers or functions of a file */
static int cmd_list_user(const char *glob, int verbose)
{
	int usdt = strncmp(glob, "usdt:", 5) == 0, n = 0;
	char path[4096];
	const char *rest = glob + (usdt ? 5 : strncmp(glob, "uprobe:", 7) == 0 ? 7 : 2), *pat;
	struct ltap_elf *e;

	pat = strrchr(rest, ':');
	if (!pat || pat == rest) {
		ltap_err("list: '%s' needs PATH:GLOB ('usdt:/usr/bin/python3:*')", glob);
		return 2;
	}
	snprintf(path, sizeof path, "%.*s", (int)(pat - rest), rest);
	pat++;
	if (!(e = ltap_elf_open(path))) {
		ltap_err("list: %s: %s", path, errno == ENOEXEC ? "not an ELF file" : strerror(errno));
		return 1;
	}
	if (usdt) {
		const struct ltap_sdt *s;
		int ns = ltap_elf_sdts(e, &s);
		for (int i = 0; i < ns; i++) {
			char full[160];
			snprintf(full, sizeof full, "%s:%s", s[i].provider, s[i].name);
			if (fnmatch(pat, full, 0) && fnmatch(pat, s[i].name, 0))
				continue;
			printf("usdt:%s:%s%s%s%s\n", path, full, s[i].sem_offset ? " (semaphore)" : "",
			       verbose ? "  " : "", verbose ? s[i].args : "");
			n++;
		}
	} else {
		const struct ltap_elf_func *f;
		int nf = ltap_elf_funcs(e, &f);
		for (int i = 0; i < nf; i++)
			if (fnmatch(pat, f[i].name, 0) == 0) {
				printf("u:%s:%s\n", path, f[i].name);
				n++;
			}
	}
	ltap_elf_close(e);
	if (!n)
		ltap_err("list: nothing in %s matches '%s'", path, pat);
	return n ? 0 : 1;
}

static int cmd_list(int argc, char **argv)
{
	struct ltap_catalog *cat;
	int verbose = 0, n;
	const char *glob = NULL;

	ltap_guardian_reap_stale();
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "-v") == 0)
			verbose = 1;
		else if (!glob)
			glob = argv[i];
	}
	if (glob && (strncmp(glob, "usdt:", 5) == 0 || strncmp(glob, "u:", 2) == 0 || strncmp(glob, "uprobe:", 7) == 0))
		return cmd_list_user(glob, verbose);
	cat = ltap_catalog_open();
	if (!cat)
		return 1;
	n = ltap_catalog_list(cat, glob, verbose, stdout);
	if (n == 0 && glob) {
		char near[512];
		ltap_catalog_suggest(cat, glob, near, sizeof near);
		if (near[0])
			ltap_err("list: no event matches '%s' (did you mean %s?)", glob, near);
		else
			ltap_err("list: no event matches '%s'", glob);
	} else if (n < 0) {
		ltap_err("list: cannot read available_events: %s", strerror(-n));
	}
	ltap_catalog_close(cat);
	return n > 0 ? 0 : 1;
}

/* The value of "-- key: value" in a script's header comment. */
static int header_field(const char *src, const char *key, char *out, size_t len)
{
	size_t kl = strlen(key);
	for (const char *p = src; p && strncmp(p, "--", 2) == 0; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		const char *q = p + 2;
		while (*q == ' ')
			q++;
		if (strncmp(q, key, kl) == 0 && q[kl] == ':') {
			q += kl + 1;
			while (*q == ' ')
				q++;
			snprintf(out, len, "%.*s", (int)strcspn(q, "\n"), q);
			return 1;
		}
	}
	return 0;
}

static int cmd_scripts(void)
{
	for (const struct ltap_embedded *e = ltap_embedded; e->name; e++) {
		char summary[256] = "";
		if (e->kind != LTAP_EMBED_SCRIPT)
			continue;
		header_field(e->src, "summary", summary, sizeof summary);
		printf("%-22s %s\n", e->name, summary);
	}
	return 0;
}

static int check_perf(__u32 type, __u64 config, __u64 sample_type)
{
	struct perf_event_attr a;
	memset(&a, 0, sizeof a);
	a.size = sizeof a;
	a.type = type;
	a.config = config;
	a.disabled = 1;
	a.sample_type = sample_type;
	if (sample_type)
		a.sample_period = 1000000;
	int fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

/* "yes", or why not: a permission problem names what was refused (as
 * non-root, the tracefs directory itself) instead of a bare "no". */
static const char *check_path(const char *dir, const char *rel, int mode, const char *absent, char *buf, size_t len)
{
	char path[4200];

	snprintf(path, sizeof path, "%s/%s", dir, rel);
	if (access(path, mode) == 0)
		return "yes";
	if (errno != EACCES && errno != EPERM)
		return absent;
	if (access(dir, R_OK | X_OK) != 0)
		snprintf(buf, len, "no permission to read %s (run as root)", dir);
	else
		snprintf(buf, len, "no permission to %s %s (run as root)", mode == W_OK ? "write" : "read", path);
	return buf;
}

/* A perf_event_open error, with the sysctl that decides it for non-root. */
static const char *check_perf_why(int e, char *buf, size_t len)
{
	FILE *f;
	int paranoid;

	if (e != -EACCES && e != -EPERM)
		return strerror(-e);
	f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
	if (f && fscanf(f, "%d", &paranoid) == 1)
		snprintf(buf, len, "no permission (kernel.perf_event_paranoid is %d: run as root)", paranoid);
	else
		snprintf(buf, len, "no permission (run as root)");
	if (f)
		fclose(f);
	return buf;
}

static int cmd_check(void)
{
	const char *dir = ltap_tracefs_dir();
	const char *tp = "no";
	char why[4400];
	int e;

	printf("%-22s %s\n", "version", ltap_version_string());
	printf("%-22s %s\n", "tracefs", dir ? dir : "no");
	if (dir) {
		tp = check_path(dir, "events/sched/sched_switch", F_OK, "no", why, sizeof why);
		printf("%-22s %s\n", "tracepoints", tp);
		printf("%-22s %s\n", "tracefs instances", check_path(dir, "instances", W_OK, "no", why, sizeof why));
		printf("%-22s %s\n", "uprobes", check_path(dir, "uprobe_events", F_OK, "no", why, sizeof why));
		printf("%-22s %s\n", "kprobes",
		       check_path(dir, "kprobe_events", F_OK, "no (kernel has no kprobe_events)", why, sizeof why));
	}
	e = check_perf(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, 0);
	printf("%-22s %s\n", "software counters", e ? check_perf_why(e, why, sizeof why) : "yes");
	e = check_perf(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, 0);
	printf("%-22s %s\n", "hardware counters", e ? "not supported" : "yes");
	e = check_perf(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, PERF_SAMPLE_CALLCHAIN);
	printf("%-22s %s\n", "callchains", e ? check_perf_why(e, why, sizeof why) : "yes");
	/* ltap cannot trace here: say so in the exit status too */
	return dir && strcmp(tp, "yes") == 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"help", no_argument, NULL, 'h'},
		{"check", no_argument, NULL, 'C'},
		{"unordered", no_argument, NULL, 'U'},
		{"format", required_argument, NULL, 'F'},
		{"input", required_argument, NULL, 'I'},
		{"record", required_argument, NULL, 'R'},
		{"max-memory", required_argument, NULL, 'M'},
		{"max-drain", required_argument, NULL, 'D'},
		{"serve", required_argument, NULL, 'S'},
		{"export-all", no_argument, NULL, 'X'},
		{"check-script", no_argument, NULL, 'L'},
		{"version", no_argument, NULL, 'V'},
		{NULL, 0, NULL, 0},
	};
	struct ltap_options opt = {.ordered = 1, .buffer_kb = 8192, .max_drain = LTAP_MAX_DRAIN};
	const char *code = NULL, *name = NULL;
	struct ltap_chunk script = {0};
	int c, rc, load_only = 0;
	struct ltap_ctx *ctx;
	char chunk[4200], why[4200];
	uint64_t v;

	if (argc > 1 && strcmp(argv[1], "list") == 0)
		return cmd_list(argc - 1, argv + 1);
	if (argc > 1 && strcmp(argv[1], "scripts") == 0)
		return cmd_scripts();
	while ((c = getopt_long(argc, argv, "+e:p:c:d:ab:vh", longopts, NULL)) != -1) {
		switch (c) {
		case 'e': code = optarg; break;
		case 'c': {
			/* a bad command is a bad option (exit 2), found before anything starts */
			struct ltap_cmd cmd;
			if (ltap_targetopt_command(optarg, &cmd, why, sizeof why)) {
				ltap_err("%s", why);
				return 2;
			}
			ltap_cmd_free(&cmd);
		}
			/* fall through */
		case 'p':
		case 'd':
		case 'a':
		case 'R':
			if (ltap_targetopt_set(&opt, c, optarg, why, sizeof why)) {
				ltap_err("%s", why);
				return 2;
			}
			break;
		case 'b':
			if (ltap_parse_size(optarg, &v) || v < 4096) {
				ltap_err("-b: bad size '%s' (try 8M)", optarg);
				return 2;
			}
			opt.buffer_kb = (size_t)(v / 1024);
			break;
		case 'v':
			opt.verbose = 1;
			ltap_log_set_verbosity(LTAP_LOG_DEBUG);
			break;
		case 'U': opt.ordered = 0; break;
		case 'I': opt.input = optarg; break;
		case 'L': load_only = 1; break;
		case 'M':
			if (ltap_parse_size(optarg, &opt.max_memory) || opt.max_memory < (16u << 20)) {
				ltap_err("--max-memory: bad size '%s' (at least 16M; try 2G)", optarg);
				return 2;
			}
			break;
		case 'D':
			if (ltap_parse_duration(optarg, &opt.max_drain)) {
				ltap_err("--max-drain: bad duration '%s' (try 2s, 500ms; 0: no drain)", optarg);
				return 2;
			}
			break;
		case 'S': opt.serve = optarg; break;
		case 'X': opt.export_all = 1; break;
		case 'F':
			if (strcmp(optarg, "json") == 0)
				opt.json = 1;
			else if (strcmp(optarg, "text") != 0) {
				ltap_err("--format: unknown format '%s' (text, json)", optarg);
				return 2;
			}
			break;
		case 'C': return cmd_check();
		case 'V': printf("%s\n", ltap_version_string()); return 0;
		case 'h': return usage(stdout, 0);
		default: return usage(stderr, 2);
		}
	}
	if (argc > 2 && optind == 1 && strcmp(argv[1], "replay") == 0) {
		/* ltap replay FILE SCRIPT [ARGS...] */
		opt.input = argv[2];
		optind = 3;
	}
	/* long work shows how far it is on a terminal; JSON output never has it */
	opt.progress = !opt.json;
	if (ltap_targetopt_check(&opt, why, sizeof why)) {
		ltap_err("%s", why);
		return 2;
	}
	if (opt.serve && opt.input) {
		ltap_err("--serve serves a live run, not a replay (--input)");
		return 2;
	}
	if (!code) {
		if (optind >= argc)
			return usage(stderr, 2);
		name = argv[optind++];
		/* a script file is named as a path; a bare name is a bundled script,
		 * never a file of the current directory (ltap runs as root) */
		if (strchr(name, '/') || (strlen(name) > 4 && strcmp(name + strlen(name) - 4, ".lua") == 0)) {
			if (!(script.src = ltap_file_read(name, LTAP_SCRIPT_MAX, &script.len))) {
				ltap_err("cannot read script %s: %s", name, strerror(errno));
				return 2;
			}
			script.owned = 1;
			snprintf(chunk, sizeof chunk, "@%s", name);
		} else {
			if (ltap_embedded_get(LTAP_EMBED_SCRIPT, name, &script)) {
				ltap_err("no bundled script named '%s' (see: ltap scripts; a script file is "
					 "named as a path: ltap ./%s)", name, name);
				return 2;
			}
			snprintf(chunk, sizeof chunk, "@scripts/%s.lua", name);
		}
	} else {
		script.src = code;
		script.len = strlen(code);
		snprintf(chunk, sizeof chunk, "=-e");
		name = "-e";
	}
	ctx = ltap_ctx_new(&opt);
	if (!ctx) {
		ltap_chunk_free(&script);
		return 1;
	}
	rc = ltap_ctx_load(ctx, &script, chunk, argc - optind, argv + optind, name);
	ltap_chunk_free(&script);
	if (rc == 0)
		rc = load_only ? 0 : ltap_ctx_run(ctx);
	else if (ctx->usage)
		rc = 2; /* the script's command line, as a bad option of ltap's own */
	else
		rc = ctx->exit_called ? ctx->exit_code : 1; /* os.exit() while loading */
	ltap_ctx_free(ctx);
	return rc;
}
