/* notself.c: a seven-step BPF program, built by hand (no compiler, no
 * libbpf), that leaves the caller's own samples out of system-wide profiles:
 * ltap reading its rings and symbolizing would otherwise profile itself.
 *
 * bpf_get_ns_current_pid_tgid() gives the tgid in ltap's pid namespace (the
 * same numbers as getpid()), so a containerized ltap drops its own samples,
 * not those of the host process that has its pid. Tasks outside that
 * namespace make the helper fail: they are kept. */
#include "notself.h"

#include <errno.h>
#include <linux/bpf.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define INSN(c, d, s, o, i) ((struct bpf_insn){.code = (c), .dst_reg = (d), .src_reg = (s), .off = (o), .imm = (i)})

int ltap_notself_open(void)
{
	struct stat ns;
	union bpf_attr a;
	int fd;

	if (stat("/proc/self/ns/pid", &ns) != 0)
		return -errno;
	struct bpf_insn prog[] = {
		/* r1 = dev, r2 = ino of ltap's pid namespace (64-bit immediates) */
		INSN(BPF_LD | BPF_DW | BPF_IMM, 1, 0, 0, (int32_t)(uint32_t)ns.st_dev),
		INSN(0, 0, 0, 0, (int32_t)(uint32_t)((uint64_t)ns.st_dev >> 32)),
		INSN(BPF_LD | BPF_DW | BPF_IMM, 2, 0, 0, (int32_t)(uint32_t)ns.st_ino),
		INSN(0, 0, 0, 0, (int32_t)(uint32_t)((uint64_t)ns.st_ino >> 32)),
		/* r3 = r10 - 8: a struct bpf_pidns_info on the stack; r4 = its size */
		INSN(BPF_ALU64 | BPF_MOV | BPF_X, 3, 10, 0, 0),
		INSN(BPF_ALU64 | BPF_ADD | BPF_K, 3, 0, 0, -8),
		INSN(BPF_ALU64 | BPF_MOV | BPF_K, 4, 0, 0, 8),
		INSN(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_get_ns_current_pid_tgid),
		/* not in ltap's namespace: keep */
		INSN(BPF_JMP | BPF_JNE | BPF_K, 0, 0, 4, 0),
		/* r0 = tgid; ltap's: drop (0), else keep (1) */
		INSN(BPF_LDX | BPF_MEM | BPF_W, 0, 10, -4, 0),
		INSN(BPF_JMP | BPF_JNE | BPF_K, 0, 0, 2, (int32_t)getpid()),
		INSN(BPF_ALU64 | BPF_MOV | BPF_K, 0, 0, 0, 0),
		INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0),
		INSN(BPF_ALU64 | BPF_MOV | BPF_K, 0, 0, 0, 1),
		INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0),
	};

	memset(&a, 0, sizeof a);
	a.prog_type = BPF_PROG_TYPE_PERF_EVENT;
	a.insns = (uint64_t)(uintptr_t)prog;
	a.insn_cnt = sizeof prog / sizeof prog[0];
	a.license = (uint64_t)(uintptr_t)"Dual MIT/GPL";
	fd = (int)syscall(SYS_bpf, BPF_PROG_LOAD, &a, sizeof a);
	return fd < 0 ? -errno : fd;
}
