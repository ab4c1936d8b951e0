/* test_owner.c: the names of what ltap makes in the kernel (runtime/owner.c):
 * hosts' numbers taken and given back, names made and read back, and what
 * is not one of ltap's names (another program's instance, a cgroup name,
 * trailing text, numbers that do not fit). */
#include "owner.h"
#include "check.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void test_serials(void)
{
	int got[LTAP_OWNER_MAX];

	for (int i = 0; i < LTAP_OWNER_MAX; i++)
		got[i] = ltap_owner_take();
	for (int i = 0; i < LTAP_OWNER_MAX; i++)
		CHECK(got[i] == i + 1);
	CHECK(ltap_owner_take() == -EMFILE);
	ltap_owner_release(7);
	ltap_owner_release(3);
	CHECK(ltap_owner_take() == 3); /* the lowest free */
	CHECK(ltap_owner_take() == 7);
	CHECK(ltap_owner_take() == -EMFILE);
	for (int i = 1; i <= LTAP_OWNER_MAX; i++)
		ltap_owner_release(i);
	ltap_owner_release(0);  /* none taken: ignored */
	ltap_owner_release(65);
	CHECK(ltap_owner_take() == 1);
	ltap_owner_release(1);
}

static void test_names(void)
{
	char name[64], want[64];
	pid_t pid = 0;

	ltap_owner_name(name, sizeof name, '-', 1);
	snprintf(want, sizeof want, "ltap-%d", (int)getpid());
	CHECK(strcmp(name, want) == 0);
	CHECK(ltap_owner_parse(name, '-', &pid) == 1 && pid == getpid());
	ltap_owner_name(name, sizeof name, '_', 2);
	snprintf(want, sizeof want, "ltap_%d_2", (int)getpid());
	CHECK(strcmp(name, want) == 0);
	pid = 0;
	CHECK(ltap_owner_parse(name, '_', &pid) == 1 && pid == getpid());
	CHECK(ltap_owner_parse("ltap-12-64", '-', &pid) == 1 && pid == 12);
	CHECK(ltap_owner_parse("ltap-999999999", '-', &pid) == 1 && pid == 999999999);
	/* not ltap's */
	CHECK(ltap_owner_parse("ltap_12", '-', &pid) == 0);   /* the other separator */
	CHECK(ltap_owner_parse("ltap-12-1", '-', &pid) == 0); /* the first host has no number */
	CHECK(ltap_owner_parse("ltap-12-", '-', &pid) == 0);
	CHECK(ltap_owner_parse("ltap-12x", '-', &pid) == 0);
	CHECK(ltap_owner_parse("ltap-0", '-', &pid) == 0);
	CHECK(ltap_owner_parse("ltap-", '-', &pid) == 0);
	CHECK(ltap_owner_parse("ltap-4294967297", '-', &pid) == 0); /* would wrap to 1 */
	CHECK(ltap_owner_parse("ltap-99999999999", '-', &pid) == 0);
	CHECK(ltap_owner_parse("ltapx-12", '-', &pid) == 0);
	CHECK(ltap_owner_parse("perf-12", '-', &pid) == 0);
	CHECK(ltap_owner_parse("ltap-12-3-4", '-', &pid) == 0);
}

static void test_alive(void)
{
	CHECK(ltap_owner_alive(getpid()) == 1);
	CHECK(ltap_owner_alive(1) == 1);         /* init: someone else's, alive */
	CHECK(ltap_owner_alive(999999999) == 0); /* above pid_max: no process */
}

int main(void)
{
	test_serials();
	test_names();
	test_alive();
	printf("owner: %d checks, %d failed\n", checks, failures);
	return failures != 0;
}
