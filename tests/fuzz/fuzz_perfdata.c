/* fuzz_perfdata.c: libFuzzer harness for the perf.data reader
 * (runtime/perfdata.c, what ltap annotate -i reads). The input goes to a
 * memfd, opened by path as ltap opens -i FILE; every record handed out is
 * touched (its strings read to the end). Any input must end in records or
 * one message, without a sanitizer report. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "fuzz_file.h"
#include "perfdata.h"

#include <stdint.h>
#include <string.h>
#include <unistd.h>

static size_t sink;

static void on_mmap(void *ud, int pid, uint64_t start, uint64_t len, uint64_t pgoff, const char *path)
{
	(void)ud;
	sink += (size_t)pid + start + len + pgoff + strlen(path);
}

static void on_comm(void *ud, int pid, int tid, const char *comm, int exec)
{
	(void)ud;
	sink += (size_t)pid + (size_t)tid + strlen(comm) + (size_t)exec;
}

static void on_fork(void *ud, int ppid, int pid)
{
	(void)ud;
	sink += (size_t)ppid + (size_t)pid;
}

static void on_sample(void *ud, const struct ltap_perfdata_sample *s)
{
	(void)ud;
	sink += s->ip + s->period + s->time + (size_t)s->pid;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ltap_perfdata_ops ops = {NULL, on_mmap, on_comm, on_fork, on_sample};
	struct ltap_perfdata_info info;
	char path[64], err[256];
	int fd = fuzz_file("perf.data", data, size, path, sizeof path);

	if (ltap_perfdata_read(path, &ops, &info, err, sizeof err) && !err[0])
		__builtin_trap(); /* a refusal always says why */
	close(fd);
	return 0;
}
