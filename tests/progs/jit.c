/* jit.c: a JIT in miniature, for the perf map tests. Copies a counting loop
 * into anonymous memory, makes it executable, names it "jit_spin" in
 * /tmp/perf-PID.map as JITs do (not with "nomap"), prints the loop's address
 * and "ready", then runs it for SECONDS and removes its map.
 *   jit SECONDS [nomap] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#if defined(__x86_64__)
/* loop: sub $1,%rdi; jnz loop; ret */
static const unsigned char code[] = {0x48, 0x83, 0xef, 0x01, 0x75, 0xfa, 0xc3};
#elif defined(__aarch64__)
/* loop: subs x0, x0, #1; b.ne loop; ret */
static const unsigned int code[] = {0xf1000400, 0x54ffffe1, 0xd65f03c0};
#else
#error "jit.c: no machine code for this architecture"
#endif

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double end = now() + (argc > 1 ? atof(argv[1]) : 1.0);
	int map = argc < 3 || strcmp(argv[2], "nomap") != 0;
	char path[64];
	unsigned char *mem = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	void (*spin)(unsigned long);

	if (mem == MAP_FAILED)
		return 1;
	memcpy(mem + 0x100, code, sizeof code);
	if (mprotect(mem, 4096, PROT_READ | PROT_EXEC) != 0)
		return 1;
	__builtin___clear_cache((char *)mem, (char *)mem + 4096);
	spin = (void (*)(unsigned long))(void *)(mem + 0x100);
	snprintf(path, sizeof path, "/tmp/perf-%d.map", (int)getpid());
	if (map) {
		FILE *f = fopen(path, "w");
		if (!f)
			return 1;
		fprintf(f, "%lx %zx jit_spin\n", (unsigned long)(mem + 0x100), sizeof code);
		fclose(f);
	}
	printf("%lx\nready\n", (unsigned long)(mem + 0x100));
	fflush(stdout);
	while (now() < end)
		spin(1000000);
	if (map)
		unlink(path);
	return 0;
}
