/* badchain.c: spins with its frame pointer on a frame that points to itself
 * and "returns" to an address where nothing is mapped, as code built without
 * frame pointers can leave %rbp: the kernel's frame-pointer walk of a sample
 * then repeats that address up to its limit (127 frames), the junk a
 * profile must cut.
 *   badchain SECONDS [@FILE]  spins for SECONDS of wall time, after FILE
 *                             exists (gate.h) */
#include "gate.h"

#include <stdlib.h>
#include <time.h>

static unsigned long bad_frame[2]; /* next frame pointer, return address */

__attribute__((noinline)) void spin_on_bad_frame(unsigned long rounds)
{
#if defined(__x86_64__)
	/* %rbp is the frame pointer here (built with -fno-omit-frame-pointer), so
	 * no operand lives in it; %r11 keeps it meanwhile */
	__asm__ volatile("mov %%rbp, %%r11\n\t"
			 "mov %1, %%rbp\n"
			 "1:\tdec %0\n\t"
			 "jnz 1b\n\t"
			 "mov %%r11, %%rbp"
			 : "+r"(rounds)
			 : "r"(bad_frame)
			 : "r11", "memory", "cc");
#else
	for (volatile unsigned long i = 0; i < rounds; i++)
		;
#endif
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double end;

	if (argc > 2)
		gate_wait(argv[2]);
	end = now() + (argc > 1 ? atof(argv[1]) : 1.0);
	bad_frame[0] = (unsigned long)bad_frame;
	bad_frame[1] = 0x10;
	while (now() < end)
		spin_on_bad_frame(1000000);
	return 0;
}
