/* test_term.c: the key names of ltap top (runtime/term.c ltap_term_key)
 * from the bytes terminals send: xterm and VT220 cursor and editing keys
 * (CSI and SS3 forms, with modifiers), a lone Esc, controls, UTF-8. */
#include "term.h"
#include "check.h"

#include <string.h>

/* the keys of bytes s, one name a word */
static const char *keys(const char *s)
{
	static char out[256];
	const unsigned char *b = (const unsigned char *)s;
	size_t len = strlen(s), used = 0;

	out[0] = '\0';
	while (len > 0) {
		char name[16];
		size_t n = ltap_term_key(b, len, name, sizeof name);
		if (n == 0 || n > len)
			return "BAD LENGTH";
		used = strlen(out);
		snprintf(out + used, sizeof out - used, "%s%s", used ? " " : "", name[0] ? name : "?");
		b += n;
		len -= n;
	}
	return out;
}

int main(void)
{
	CHECK(strcmp(keys("q"), "q") == 0);
	CHECK(strcmp(keys("sS/z"), "s S / z") == 0);
	CHECK(strcmp(keys("\033[A\033[B\033[C\033[D"), "up down right left") == 0);
	CHECK(strcmp(keys("\033OA\033OB\033OH\033OF"), "up down home end") == 0);  /* application mode */
	CHECK(strcmp(keys("\033[5~\033[6~\033[1~\033[4~\033[3~\033[2~"), "pgup pgdn home end delete insert") == 0);
	CHECK(strcmp(keys("\033[H\033[F\033[7~\033[8~"), "home end home end") == 0);
	CHECK(strcmp(keys("\033[1;5A\033[1;2B"), "up down") == 0);               /* ctrl-up, shift-down */
	CHECK(strcmp(keys("\033"), "esc") == 0);                                  /* alone in its read */
	CHECK(strcmp(keys("\033x"), "esc x") == 0);                               /* alt-x: esc, then x */
	CHECK(strcmp(keys("\033[99~"), "?") == 0);                                /* names no key */
	CHECK(strcmp(keys("\033[1;5"), "?") == 0);                                /* cut short: dropped */
	CHECK(strcmp(keys("\r\n\t\177\010"), "enter enter tab backspace backspace") == 0);
	CHECK(strcmp(keys("\003\032"), "^C ^Z") == 0);
	CHECK(strcmp(keys("\303\251t\342\202\254"), "\303\251 t \342\202\254") == 0); /* é t € */
	CHECK(strcmp(keys("\303"), "\303") == 0);                                 /* a cut sequence: its byte */
	{
		char small[2];
		CHECK(ltap_term_key((const unsigned char *)"\033[A", 3, small, sizeof small) == 3 && small[1] == '\0');
	}
	printf("%d checks, %d failed\n", checks, failures);
	return failures != 0;
}
