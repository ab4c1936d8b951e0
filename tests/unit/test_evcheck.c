/* test_evcheck.c: a saved trace's printk formats made safe for
 * libtraceevent's tep_parse_printk_formats (runtime/evcheck.h): the
 * kernel's lines kept as they are, the lines it would read out of bounds
 * (no " : ", a format shorter than three characters, no address) dropped,
 * the text's end kept as it was (a last line without its newline stays so). */
#include "check.h"
#include "evcheck.h"

#include <string.h>

static int kept(const char *in, const char *want)
{
	char buf[512];

	snprintf(buf, sizeof buf, "%s", in);
	return ltap_evcheck_printk(buf) == strlen(want) && strcmp(buf, want) == 0;
}

int main(void)
{
	/* the kernel's printk_formats */
	CHECK(kept("0xffffffff8234cf50 : \"Reserving %s\\n\"\n0xffffffff8234cf98 : \"cpu=%d\"\n",
		   "0xffffffff8234cf50 : \"Reserving %s\\n\"\n0xffffffff8234cf98 : \"cpu=%d\"\n"));
	CHECK(kept("ffffffff8234cf50 : \"abc\"", "ffffffff8234cf50 : \"abc\""));
	/* dropped: no " : " (read past the text), a short format (read before
	 * it), no address, an empty line, garbage */
	CHECK(kept("0xffffffff8234cf50\n0x10 : \"ok!\"\n", "0x10 : \"ok!\"\n"));
	CHECK(kept("0x10 : \"\"\n0x11 : \"a\"\n0x12 : \"ab\"\n", "0x12 : \"ab\"\n"));
	CHECK(kept(" : \"abcd\"\nxyz : \"abcd\"\n\n\xff\xfe\n", ""));
	CHECK(kept("0x10 :\"abcd\"\n0x11 : abcd\n", ""));
	CHECK(kept("", ""));
	printf("%d checks, %d failed\n", checks, failures);
	return failures != 0;
}
