/* memlimit.c: the memory this process may take: the machine's, its memory
 * cgroup's, its rlimits'. */
#include "memlimit.h"

#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

static uint64_t read_number(const char *path)
{
	unsigned long long v = 0;
	FILE *f = fopen(path, "re");

	/* "max" (v2, no limit) reads as 0 */
	if (f) {
		if (fscanf(f, "%llu", &v) != 1)
			v = 0;
		fclose(f);
	}
	return v;
}

static uint64_t meminfo_total(void)
{
	unsigned long long kb = 0;
	char line[256];
	FILE *f = fopen("/proc/meminfo", "re");

	if (!f)
		return 0;
	while (fgets(line, sizeof line, f))
		if (sscanf(line, "MemTotal: %llu kB", &kb) == 1)
			break;
	fclose(f);
	return (uint64_t)kb * 1024;
}

/* v2 "0::/path" gives memory.max; v1 "N:memory:/path" memory.limit_in_bytes
 * (which says a huge number when there is no limit) */
static uint64_t cgroup_limit(void)
{
	char line[4096], path[4200];
	uint64_t v2 = 0, v1 = 0;
	FILE *f = fopen("/proc/self/cgroup", "re");

	if (!f)
		return 0;
	while (fgets(line, sizeof line, f)) {
		char *rel = strchr(line, ':') ? strchr(strchr(line, ':') + 1, ':') : NULL;
		if (!rel)
			continue;
		rel[strcspn(rel, "\n")] = 0;
		if (strncmp(line, "0::", 3) == 0) {
			snprintf(path, sizeof path, "/sys/fs/cgroup%s/memory.max", rel + 1);
			v2 = read_number(path);
		} else if (strstr(line, ":memory:")) {
			snprintf(path, sizeof path, "/sys/fs/cgroup/memory%s/memory.limit_in_bytes", rel + 1);
			v1 = read_number(path);
		}
	}
	fclose(f);
	return v2 && (!v1 || v2 < v1) ? v2 : v1;
}

uint64_t ltap_memlimit_available(const char **what)
{
	struct rlimit rl;
	uint64_t best = meminfo_total(), v;

	*what = "MemTotal";
	if ((v = cgroup_limit()) && (!best || v < best)) {
		best = v;
		*what = "the cgroup's memory limit";
	}
	if (getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && (!best || rl.rlim_cur < best)) {
		best = rl.rlim_cur;
		*what = "RLIMIT_AS";
	}
	if (getrlimit(RLIMIT_DATA, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && (!best || rl.rlim_cur < best)) {
		best = rl.rlim_cur;
		*what = "RLIMIT_DATA";
	}
	return best;
}

void ltap_memlimit_format(uint64_t bytes, char *out, size_t len)
{
	if (bytes >= 1ull << 30)
		snprintf(out, len, "%.1f GiB", (double)bytes / (1ull << 30));
	else if (bytes >= 1ull << 20)
		snprintf(out, len, "%.1f MiB", (double)bytes / (1ull << 20));
	else
		snprintf(out, len, "%llu bytes", (unsigned long long)bytes);
}
