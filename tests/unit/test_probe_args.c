/* test_probe_args.c: what a uprobe spec turns into before the kernel sees
 * it: fetchargs (x86-64 registers, SDT argument specs) and the binary or
 * library a name stands for on this machine. No root. */
#include "fetchargs.h"
#include "libpath.h"

#include "check.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int sdt_is(const char *spec, const char *want)
{
	char out[160] = "";
	int e = ltap_fetchargs_sdt_one(spec, 1, out, sizeof out);
	if (e || strcmp(out, want) != 0)
		fprintf(stderr, "sdt '%s': %d '%s', expected '%s'\n", spec, e, out, want);
	return e == 0 && strcmp(out, want) == 0;
}

static int sdt_refused(const char *spec)
{
	char out[160] = "";
	int e = ltap_fetchargs_sdt_one(spec, 1, out, sizeof out);
	if (e != -EINVAL)
		fprintf(stderr, "sdt '%s': %d '%s', expected -EINVAL\n", spec, e, out);
	return e == -EINVAL;
}

/* The operand forms gas writes into .note.stapsdt (sys/sdt.h), and the ones
 * no fetcharg can read. */
static void test_sdt(void)
{
	char out[512];

	CHECK(sdt_is("-4@%edi", "arg1=%di:s32"));
	CHECK(sdt_is("8@%rax", "arg1=%ax:u64"));
	CHECK(sdt_is("1@%al", "arg1=%ax:u8"));
	CHECK(sdt_is("-1@%sil", "arg1=%si:s8"));
	CHECK(sdt_is("2@%bp", "arg1=%bp:u16"));
	CHECK(sdt_is("8@%r9", "arg1=%r9:u64"));
	CHECK(sdt_is("-4@%r12d", "arg1=%r12:s32"));
	CHECK(sdt_is("-2@%r15w", "arg1=%r15:s16"));
	CHECK(sdt_is("1@%r8b", "arg1=%r8:u8"));
	CHECK(sdt_is("8@-8(%rbp)", "arg1=-8(%bp):u64"));
	CHECK(sdt_is("-4@16(%rsp)", "arg1=+16(%sp):s32"));
	CHECK(sdt_is("8@(%rax)", "arg1=+0(%ax):u64"));
	CHECK(sdt_is("8@0x18(%rbx)", "arg1=+24(%bx):u64"));
	CHECK(sdt_is("-4@$5", "arg1=\\5:s32"));
	CHECK(sdt_is("-4@$-7", "arg1=\\-7:s32"));
	CHECK(sdt_is("8@$0x10", "arg1=\\0x10:u64"));

	CHECK(sdt_refused("8@%rip"));              /* not a pt_regs fetcharg */
	CHECK(sdt_refused("8@foo(%rip)"));         /* rip-relative: the probe's address */
	CHECK(sdt_refused("-4@counter+4(%rip)"));
	CHECK(sdt_refused("8@sym(%rbx)"));         /* a symbol's address ltap does not know */
	CHECK(sdt_refused("4@8(%rsp,%rax,4)"));    /* indexed */
	CHECK(sdt_refused("8@$sym"));
	CHECK(sdt_refused("8@%fs:0x28"));
	CHECK(sdt_refused("8@%xmm0"));
	CHECK(sdt_refused("8@%r16"));
	CHECK(sdt_refused("8@-8(%rbp"));
	CHECK(sdt_refused("3@%eax"));              /* no such size */
	CHECK(sdt_refused("%edi"));                /* v1 notes: no size */
	CHECK(sdt_refused("4 @%edi"));

	/* a note's argument list, numbered from 1 */
	CHECK(ltap_fetchargs_sdt("-8@%rax -4@$42 -4@$-7", out, sizeof out) == 0 &&
	      strcmp(out, "arg1=%ax:s64 arg2=\\42:s32 arg3=\\-7:s32") == 0);
	CHECK(ltap_fetchargs_sdt("", out, sizeof out) == 0 && out[0] == 0);
	CHECK(ltap_fetchargs_sdt("8@%rdi 8@8(%rsp,%rax,8) 4@%esi", out, sizeof out) == 2);
}

static void test_func(void)
{
	char out[512], bad[64] = "";

	CHECK(ltap_fetchargs_func(0, NULL, out, sizeof out, bad, sizeof bad) == 0 &&
	      strcmp(out, "arg1=%di:u64 arg2=%si:u64 arg3=%dx:u64 arg4=%cx:u64 arg5=%r8:u64 arg6=%r9:u64") == 0);
	CHECK(ltap_fetchargs_func(0, " arg2:string  arg6:string", out, sizeof out, bad, sizeof bad) == 0 &&
	      strcmp(out, "arg1=%di:u64 arg2=+0(%si):string arg3=%dx:u64 arg4=%cx:u64 arg5=%r8:u64 "
			  "arg6=+0(%r9):string") == 0);
	CHECK(ltap_fetchargs_func(1, "", out, sizeof out, bad, sizeof bad) == 0 &&
	      strcmp(out, "ret=$retval:s64") == 0);
	CHECK(ltap_fetchargs_func(1, " ret:string", out, sizeof out, bad, sizeof bad) == 0 &&
	      strcmp(out, "ret=+0($retval):string") == 0);
	CHECK(ltap_fetchargs_func(0, " ret:string", out, sizeof out, bad, sizeof bad) == -EINVAL &&
	      strcmp(bad, "ret:string") == 0);
	CHECK(ltap_fetchargs_func(1, " arg1:string", out, sizeof out, bad, sizeof bad) == -EINVAL &&
	      strcmp(bad, "arg1:string") == 0);
	CHECK(ltap_fetchargs_func(0, " arg7:string", out, sizeof out, bad, sizeof bad) == -EINVAL);
	/* the whole word, not only its "argN" (" arg1:strin" used to read arg1 as a string) */
	CHECK(ltap_fetchargs_func(0, " arg1:strin", out, sizeof out, bad, sizeof bad) == -EINVAL);
	CHECK(ltap_fetchargs_func(0, " arg1", out, sizeof out, bad, sizeof bad) == -EINVAL);
}

static int is_elf(const char *path)
{
	char magic[4] = "";
	FILE *f = fopen(path, "rb");
	int ok = f && fread(magic, 1, 4, f) == 4 && memcmp(magic, "\177ELF", 4) == 0;
	if (f)
		fclose(f);
	return ok;
}

/* the libc this process runs with, from its own maps */
static int mapped_libc(char *out, size_t len)
{
	char line[4400];
	FILE *f = fopen("/proc/self/maps", "r");
	int found = 0;

	while (f && !found && fgets(line, sizeof line, f)) {
		char *file = strchr(line, '/');
		if (file && strstr(file, "/libc.so.6")) {
			file[strcspn(file, "\n")] = 0;
			found = realpath(file, out) != NULL;
		}
	}
	if (f)
		fclose(f);
	(void)len;
	return found;
}

static void copy_file(const char *from, const char *to)
{
	char buf[65536];
	FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
	size_t n;
	while (in && out && (n = fread(buf, 1, sizeof buf, in)) > 0)
		fwrite(buf, 1, n, out);
	if (in)
		fclose(in);
	if (out)
		fclose(out);
}

static void test_libpath(void)
{
	char libc[PATH_MAX], out[PATH_MAX], dir[] = "/tmp/ltap-libpath.XXXXXX", path[PATH_MAX + 64], want[PATH_MAX];
	static const char *const scripts[] = {"libfoo.so", "foo.so", "foo", "libfoo.so.0"};
	char real_sh[PATH_MAX];

	CHECK(mapped_libc(libc, sizeof libc));
	/* in the library directories, by the names people use */
	CHECK(ltap_libpath_find("libc", 0, out, sizeof out) == 0 && strcmp(out, libc) == 0);
	CHECK(ltap_libpath_find("c", 0, out, sizeof out) == 0 && strcmp(out, libc) == 0);
	CHECK(ltap_libpath_find("libc.so.6", 0, out, sizeof out) == 0 && strcmp(out, libc) == 0);
	/* libm.so is a linker script beside libm.so.6 */
	CHECK(ltap_libpath_find("m", 0, out, sizeof out) == 0 && is_elf(out) && strstr(out, "/libm.so.6"));
	/* in the target's maps first */
	CHECK(ltap_libpath_find("libc", (int)getpid(), out, sizeof out) == 0 && strcmp(out, libc) == 0);
	/* a command in $PATH, a path as it is */
	CHECK(realpath("/bin/sh", real_sh) != NULL);
	CHECK(ltap_libpath_search("sh", 0, "/nonexistent:/bin", "", out, sizeof out) == 0 &&
	      strcmp(out, real_sh) == 0);
	CHECK(ltap_libpath_find("/bin/sh", 0, out, sizeof out) == 0 && strcmp(out, real_sh) == 0);
	CHECK(ltap_libpath_find("no-such-library-anywhere", 0, out, sizeof out) == -ENOENT && out[0] == 0);
	CHECK(ltap_libpath_find("/no/such/file", 0, out, sizeof out) == -ENOENT &&
	      strcmp(out, "/no/such/file") == 0);

	/* a directory where every name "foo" may stand for but one is a text
	 * file: the ELF one is found, whatever order readdir gives */
	CHECK(mkdtemp(dir) != NULL);
	for (size_t i = 0; i < sizeof scripts / sizeof scripts[0]; i++) {
		FILE *f;
		snprintf(path, sizeof path, "%s/%s", dir, scripts[i]);
		if ((f = fopen(path, "w")) != NULL) {
			fputs("/* GNU ld script */\nGROUP ( libfoo.so.1 )\n", f);
			fclose(f);
		}
	}
	snprintf(path, sizeof path, "%s/libfoo.so.1", dir);
	copy_file(libc, path);
	CHECK(realpath(path, want) != NULL);
	CHECK(ltap_libpath_search("foo", 0, "", dir, out, sizeof out) == 0 && strcmp(out, want) == 0);
	CHECK(ltap_libpath_search("libfoo", 0, "", dir, out, sizeof out) == 0 && strcmp(out, want) == 0);
	CHECK(ltap_libpath_search("bar", 0, "", dir, out, sizeof out) == -ENOENT);
	unlink(path);
	for (size_t i = 0; i < sizeof scripts / sizeof scripts[0]; i++) {
		snprintf(path, sizeof path, "%s/%s", dir, scripts[i]);
		unlink(path);
	}
	rmdir(dir);
}

int main(void)
{
	test_sdt();
	test_func();
	test_libpath();
	printf("%d checks, %d failed\n", checks, failures);
	return failures != 0;
}
