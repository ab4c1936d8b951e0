/* counter.c: perf_event_open in counting mode, one fd per CPU system-wide or
 * one inherited fd for a process, summed at read. */
#include "counter.h"

#include "parse.h"
#include "tracefs_dir.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

struct ltap_counter {
	int n;
	struct { int fd, cpu; } fds[]; /* cpu -1 for a process counter */
};

static const struct { const char *name; uint32_t type; uint64_t config; } named[] = {
	{"cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK},
	{"task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK},
	{"page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS},
	{"faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS},
	{"context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES},
	{"cs", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES},
	{"cpu-migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS},
	{"migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS},
	{"minor-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN},
	{"major-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ},
	{"alignment-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_ALIGNMENT_FAULTS},
	{"emulation-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_EMULATION_FAULTS},
	{"cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES},
	{"cpu-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES},
	{"instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS},
	{"cache-references", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES},
	{"cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES},
	{"branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS},
	{"branch-instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS},
	{"branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES},
	{"bus-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BUS_CYCLES},
	{"stalled-cycles-frontend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND},
	{"stalled-cycles-backend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND},
	{"ref-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES},
};

int ltap_counter_resolve(const char *name, uint32_t *type, uint64_t *config, char *err, size_t errlen)
{
	const char *colon = strchr(name, ':');
	char best[64] = "";
	int bestd = 1000;

	for (size_t i = 0; i < sizeof named / sizeof named[0]; i++)
		if (strcmp(name, named[i].name) == 0) {
			*type = named[i].type;
			*config = named[i].config;
			return 0;
		}
	if (name[0] == 'r' && name[1] && strspn(name + 1, "0123456789abcdefABCDEF") == strlen(name + 1)) {
		*type = PERF_TYPE_RAW;
		*config = strtoull(name + 1, NULL, 16);
		return 0;
	}
	if (colon && colon != name && !strchr(colon + 1, ':') && !strchr(name, '.')) {
		char rel[512], *id;
		snprintf(rel, sizeof rel, "events/%.*s/%s/id", (int)(colon - name), name, colon + 1);
		if ((id = ltap_tracefs_read(rel, NULL)) != NULL) {
			*type = PERF_TYPE_TRACEPOINT;
			*config = strtoull(id, NULL, 10);
			free(id);
			return 0;
		}
		snprintf(err, errlen, "unknown counter '%s' (no such tracepoint; see: ltap list)", name);
		return -ENOENT;
	}
	for (size_t i = 0; i < sizeof named / sizeof named[0]; i++) {
		int d = ltap_edit_distance(name, named[i].name);
		if (d < bestd) {
			bestd = d;
			snprintf(best, sizeof best, "%s", named[i].name);
		}
	}
	if (bestd <= 3)
		snprintf(err, errlen, "unknown counter '%s' (did you mean %s?)", name, best);
	else
		snprintf(err, errlen, "unknown counter '%s' (a software or hardware event, rNNN, or SYS:EVENT)", name);
	return -ENOENT;
}

static int counter_fd(uint32_t type, uint64_t config, pid_t pid, int cpu, int on_exec)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof a);
	a.size = sizeof a;
	a.type = type;
	a.config = config;
	a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	a.inherit = pid > 0;
	a.disabled = on_exec;
	a.enable_on_exec = on_exec;
	return (int)syscall(SYS_perf_event_open, &a, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

struct ltap_counter *ltap_counter_open(uint32_t type, uint64_t config, pid_t pid, int on_exec)
{
	int ncpu = pid > 0 ? 1 : (int)sysconf(_SC_NPROCESSORS_CONF);
	struct ltap_counter *c = calloc(1, sizeof *c + (size_t)ncpu * sizeof c->fds[0]);

	if (!c)
		return NULL;
	for (int cpu = 0; cpu < ncpu; cpu++) {
		int fd = counter_fd(type, config, pid > 0 ? pid : -1, pid > 0 ? -1 : cpu, on_exec);
		if (fd < 0) {
			int e = errno;
			if (pid <= 0 && e == ENODEV)
				continue; /* an offline CPU */
			ltap_counter_close(c);
			errno = e;
			return NULL;
		}
		c->fds[c->n].cpu = pid > 0 ? -1 : cpu;
		c->fds[c->n++].fd = fd;
	}
	if (!c->n) {
		free(c);
		errno = ENODEV;
		return NULL;
	}
	return c;
}

void ltap_counter_close(struct ltap_counter *c)
{
	if (!c)
		return;
	for (int i = 0; i < c->n; i++)
		close(c->fds[i].fd);
	free(c);
}

/* what perf stat prints as <not supported> */
int ltap_counter_unsupported(int err)
{
	return err == ENOENT || err == EOPNOTSUPP || err == ENODEV || err == EINVAL || err == ENOSYS;
}

static void counter_scale(struct ltap_counter_value *v)
{
	v->scaled = v->running && v->running < v->enabled ? (double)v->raw * (double)v->enabled / (double)v->running
							   : (double)v->raw;
}

static int counter_add(int fd, struct ltap_counter_value *v)
{
	uint64_t b[3];
	if (read(fd, b, sizeof b) != (ssize_t)sizeof b)
		return -errno;
	v->raw += b[0];
	v->enabled += b[1];
	v->running += b[2];
	return 0;
}

int ltap_counter_read(struct ltap_counter *c, struct ltap_counter_value *v)
{
	memset(v, 0, sizeof *v);
	for (int i = 0; i < c->n; i++)
		if (counter_add(c->fds[i].fd, v))
			return -errno;
	counter_scale(v);
	return 0;
}

int ltap_counter_read_one(struct ltap_counter *c, int n, int *cpu, struct ltap_counter_value *v)
{
	memset(v, 0, sizeof *v);
	if (n < 0 || n >= c->n)
		return -1;
	*cpu = c->fds[n].cpu;
	if (counter_add(c->fds[n].fd, v))
		return -errno;
	counter_scale(v);
	return 0;
}
