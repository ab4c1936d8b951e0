/* notself.h: a BPF filter that drops the perf samples of one process (ltap
 * itself) in the kernel, before they reach a ring. */
#ifndef LTAP_NOTSELF_H
#define LTAP_NOTSELF_H

/* A BPF_PROG_TYPE_PERF_EVENT program, for PERF_EVENT_IOC_SET_BPF, that keeps
 * every sample but those of the calling process, as its own pid namespace
 * sees it. Its fd, or -errno (no BPF, not allowed: the caller keeps the
 * samples and drops them itself). */
int ltap_notself_open(void);

#endif
