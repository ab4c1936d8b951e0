/* perfdata.h: the samples of a perf.data file (perf record, tools/perf's
 * Documentation/perf.data-file-format.txt) with the process records needed
 * to name their addresses: MMAP, MMAP2, COMM, FORK, SAMPLE, in time order.
 * The file is untrusted: every size, offset and string is checked against
 * the record and the file before it is read; a damaged file is refused
 * with one line saying where. */
#ifndef LTAP_PERFDATA_H
#define LTAP_PERFDATA_H

#include <stddef.h>
#include <stdint.h>

struct ltap_perfdata_sample {
	uint64_t time;
	uint64_t ip;       /* where it happened (PERF_SAMPLE_IP, else the chain's first frame) */
	uint64_t period;   /* 1 when the file has none */
	int pid, tid;
	int kernel;        /* ip is a kernel address */
};

struct ltap_perfdata_ops {
	void *ud;
	void (*mmap)(void *ud, int pid, uint64_t start, uint64_t len, uint64_t pgoff, const char *path);
	void (*comm)(void *ud, int pid, int tid, const char *comm, int exec);
	void (*fork)(void *ud, int ppid, int pid);
	void (*sample)(void *ud, const struct ltap_perfdata_sample *s);
};

/* What the file held besides the calls. */
struct ltap_perfdata_info {
	char event[64];       /* the first event's name: "cpu-clock", "cycles", "r1c2" */
	uint64_t samples;     /* of the first event, handed to sample() */
	uint64_t other;       /* samples of other events, left out */
};

/* At most this many records are kept to be put in time order (a perf.data
 * of a few GB); more is refused. */
#define LTAP_PERFDATA_MAX_RECORDS 20000000u

/* Reads path and calls ops in time order. 0, or -1 with a one-line reason
 * in err ("not a perf.data file", "damaged perf.data (record at offset N:
 * ...)"). */
int ltap_perfdata_read(const char *path, const struct ltap_perfdata_ops *ops, struct ltap_perfdata_info *info,
		       char *err, size_t errlen);

#endif
