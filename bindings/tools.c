/* tools.c: the ltap command's tools that need no host (ltap.h): ltap list,
 * ltap scripts, ltap --check. They write to the FILE they are given and
 * say what went wrong through the log. */
#include "catalog.h"
#include "dwfile.h"
#include "embedded.h"
#include "guardian.h"
#include "log.h"
#include "symtab.h"
#include "tracefs_dir.h"
#include "undo.h"

#include <errno.h>
#include <fnmatch.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* ltap list 'usdt:PATH:*' or 'u:PATH:GLOB': markers or functions of a file */
static int cmd_list_user(FILE *out, const char *glob, int verbose)
{
	int usdt = strncmp(glob, "usdt:", 5) == 0, n = 0;
	char path[4096];
	const char *rest = glob + (usdt ? 5 : strncmp(glob, "uprobe:", 7) == 0 ? 7 : 2), *pat;
	struct ltap_dwfile file;
	int rc;

	pat = strrchr(rest, ':');
	if (!pat || pat == rest) {
		ltap_err("list: '%s' needs PATH:GLOB ('usdt:/usr/bin/python3:*')", glob);
		return -EINVAL;
	}
	snprintf(path, sizeof path, "%.*s", (int)(pat - rest), rest);
	pat++;
	if ((rc = ltap_dwfile_open(&file, path)) != 0) {
		ltap_err("list: %s: %s", path, rc == -ENOEXEC ? "not an ELF file" : strerror(-rc));
		return rc;
	}
	if (usdt) {
		const struct ltap_sdt *s;
		int ns = ltap_elf_sdts(file.elf, &s);
		for (int i = 0; i < ns; i++) {
			char full[160];
			snprintf(full, sizeof full, "%s:%s", s[i].provider, s[i].name);
			if (fnmatch(pat, full, 0) && fnmatch(pat, s[i].name, 0))
				continue;
			fprintf(out, "usdt:%s:%s%s%s%s\n", path, full, s[i].sem_offset ? " (semaphore)" : "",
			       verbose ? "  " : "", verbose ? s[i].args : "");
			n++;
		}
	} else {
		struct ltap_symtab *t = ltap_dwfile_symtab(&file);
		const struct ltap_symtab_sym *const *f;
		size_t nf = t ? ltap_symtab_funcs(t, &f) : 0;
		for (size_t i = 0; i < nf; i++)
			if (fnmatch(pat, f[i]->name, 0) == 0) {
				fprintf(out, "u:%s:%s\n", path, f[i]->name);
				n++;
			}
	}
	ltap_dwfile_close(&file);
	if (!n)
		ltap_err("list: nothing in %s matches '%s'", path, pat);
	return n ? n : -ENOENT;
}

/* ltap list [-v] [GLOB] */
int ltap_list(FILE *out, const char *glob, int verbose)
{
	struct ltap_catalog *cat;
	int n;

	if (glob && (strncmp(glob, "usdt:", 5) == 0 || strncmp(glob, "u:", 2) == 0 || strncmp(glob, "uprobe:", 7) == 0))
		return cmd_list_user(out, glob, verbose);
	ltap_guardian_reap_stale(ltap_undo_table);
	cat = ltap_catalog_open();
	if (!cat)
		return -EACCES;
	n = ltap_catalog_list(cat, glob, verbose, out);
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
	return n > 0 ? n : n < 0 ? n : -ENOENT;
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

int ltap_list_scripts(FILE *out)
{
	int n = 0;

	for (const struct ltap_embedded *e = ltap_embedded; e->name; e++) {
		char summary[256] = "";
		if (e->kind != LTAP_EMBED_SCRIPT)
			continue;
		header_field(e->src, "summary", summary, sizeof summary);
		fprintf(out, "%-22s %s\n", e->name, summary);
		n++;
	}
	return n;
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

int ltap_check(FILE *out)
{
	const char *dir = ltap_tracefs_dir();
	const char *tp = "no";
	char why[4400];
	int e;

	fprintf(out, "%-22s ltap %s\n", "version", ltap_version());
	fprintf(out, "%-22s %s\n", "tracefs", dir ? dir : "no");
	if (dir) {
		tp = check_path(dir, "events/sched/sched_switch", F_OK, "no", why, sizeof why);
		fprintf(out, "%-22s %s\n", "tracepoints", tp);
		fprintf(out, "%-22s %s\n", "tracefs instances", check_path(dir, "instances", W_OK, "no", why, sizeof why));
		fprintf(out, "%-22s %s\n", "uprobes", check_path(dir, "uprobe_events", F_OK, "no", why, sizeof why));
		fprintf(out, "%-22s %s\n", "kprobes",
		       check_path(dir, "kprobe_events", F_OK, "no (kernel has no kprobe_events)", why, sizeof why));
	}
	e = check_perf(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, 0);
	fprintf(out, "%-22s %s\n", "software counters", e ? check_perf_why(e, why, sizeof why) : "yes");
	e = check_perf(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, 0);
	fprintf(out, "%-22s %s\n", "hardware counters", e ? "not supported" : "yes");
	e = check_perf(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, PERF_SAMPLE_CALLCHAIN);
	fprintf(out, "%-22s %s\n", "callchains", e ? check_perf_why(e, why, sizeof why) : "yes");
	/* ltap cannot trace here: say so in the return too */
	return dir && strcmp(tp, "yes") == 0 ? 0 : -ENOTSUP;
}
