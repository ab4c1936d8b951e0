/* test_flame.c: flame graph inputs and frames in C: the folded-line rule,
 * lines read across a prefix and blocks of a file, perf script samples
 * folded with their numbers and periods, frames merged and laid out (x,
 * width, depth, levels above, minimum width, differential changes), and one
 * frame's SVG line to the byte (what stdlib/flamegraph.lua wrote before). */
#include "check.h"
#include "flame.h"
#include "folded.h"
#include "lines.h"
#include "perfscript.h"

#include <stdlib.h>
#include <string.h>

static int parsed(const char *line, const char *stack, const char *count, const char *before)
{
	struct ltap_folded_line f;
	int k = ltap_folded_parse(line, strlen(line), &f);

	if (!stack)
		return k == (count ? 0 : -1);
	return k == 1 && f.stacklen == strlen(stack) && memcmp(f.stack, stack, f.stacklen) == 0 &&
	       f.countlen == strlen(count) && memcmp(f.count, count, f.countlen) == 0 &&
	       (before ? f.before && f.beforelen == strlen(before) && memcmp(f.before, before, f.beforelen) == 0
		       : !f.before);
}

static void test_folded(void)
{
	CHECK(parsed("a;b;c 12", "a;b;c", "12", NULL));
	/* one blank before the count, as flamegraph.pl's "^(.*)\s+?(\d+...)$":
	 * the stack's own blanks stay (a frame named " "); \r after */
	CHECK(parsed("a;b c\t 3 \r", "a;b c\t", "3", NULL));
	CHECK(parsed("a;b;  3", "a;b; ", "3", NULL));
	CHECK(parsed("a;b 3  5", "a;b 3 ", "5", NULL));      /* not two columns then, as in the Perl */
	CHECK(parsed("a;;b 2.5", "a;;b", "2.5", NULL));
	CHECK(parsed("x 12.", "x", "12.", NULL));
	CHECK(parsed(" 7", "", "7", NULL));                 /* an empty stack */
	CHECK(parsed("  7", " ", "7", NULL));
	CHECK(parsed("a;b 3 5", "a;b", "5", "3"));          /* difffolded.pl: before, after */
	CHECK(parsed("a 1 2 3", "a 1", "3", "2"));
	CHECK(parsed("   \t ", NULL, "blank", NULL));
	CHECK(parsed("", NULL, "blank", NULL));
	CHECK(parsed("7", NULL, NULL, NULL));               /* no blank before the count */
	CHECK(parsed("a .5", NULL, NULL, NULL));
	CHECK(parsed("a 1.2.3", NULL, NULL, NULL));
	CHECK(parsed("a x5", NULL, NULL, NULL));
	CHECK(parsed("a;b 5x", NULL, NULL, NULL));
}

static void test_lines(void)
{
	FILE *f = tmpfile();
	struct ltap_lines r;
	const char *l;
	size_t len, n = 0, total = 0;
	char *big = malloc(3 << 20);
	int ok = 1, got;

	/* the prefix ends in the middle of a line; a line of 3 MiB spans blocks; no '\n' at the end */
	memset(big, 'x', 3 << 20);
	fputs("ine one\nline two\r\n", f);
	fwrite(big, 1, 3 << 20, f);
	fputs("\n\nlast", f);
	rewind(f);
	ltap_lines_init(&r, "first\nl", 7, f);
	while ((got = ltap_lines_next(&r, &l, &len)) > 0) {
		static const char *const want[] = {"first", "line one", "line two\r", NULL, "", "last"};
		if (n == 3)
			ok &= len == 3u << 20 && l[0] == 'x' && l[len - 1] == 'x';
		else
			ok &= n < 6 && len == strlen(want[n]) && memcmp(l, want[n], len) == 0;
		n++;
		total += len;
	}
	CHECK(got == 0 && ok && n == 6 && total == strlen("first" "line one" "line two\r" "last") + (3u << 20));
	ltap_lines_free(&r);
	fclose(f);
	free(big);
	/* a text alone */
	ltap_lines_init(&r, "a\nb", 3, NULL);
	CHECK(ltap_lines_next(&r, &l, &len) == 1 && len == 1 && l[0] == 'a');
	CHECK(ltap_lines_next(&r, &l, &len) == 1 && len == 1 && l[0] == 'b');
	CHECK(ltap_lines_next(&r, &l, &len) == 0);
	ltap_lines_free(&r);
}

struct samples {
	char text[2048];
	size_t n;
};

static int sample(void *ud, size_t id, const char *stack, size_t len, const char *period, size_t plen)
{
	struct samples *s = ud;
	size_t at = strlen(s->text);

	snprintf(s->text + at, sizeof s->text - at, "%zu %.*s %.*s|", id, stack ? (int)len : 1, stack ? stack : "=",
		 period ? (int)plen : 1, period ? period : "1");
	s->n++;
	return 0;
}

static void test_perfscript(void)
{
	static const char text[] = "# header\n"
				   "hot 10/11 [000] 1.0: 250000 cpu-clock:pppH: \n"
				   "\t5555 hot_spin+0x10 (/x/hot)\n"
				   "\t5556 main (/x/hot)\n"
				   "\t7777 [unknown] ([unknown])\n"
				   "\n"
				   "hot 10/11 [000] 1.1: 250000 cpu-clock:pppH: \n"
				   "\t5555 hot_spin+0x22 (/x/hot)\n"
				   "\t5556 main (/x/hot)\n"
				   "\t7777 [unknown] ([unknown])\n"
				   "\n"
				   "k thr 5 [001] 1.2: 0 cpu-clock:pppH: \n"
				   "\tffff a->b (/x/k)\n"
				   "this is no perf script\n"
				   "\n"
				   "xx 1 [000] 1.3: 10 instructions: \n"
				   "\t1 f (/x/f)\n";
	struct ltap_lines r;
	struct ltap_perfscript_opts o = {0};
	struct ltap_perfscript_info info;
	struct samples s = {"", 0};

	ltap_lines_init(&r, text, strlen(text), NULL);
	CHECK(ltap_perfscript_fold(&r, &o, sample, &s, &info) == 0);
	/* stacks root first, offsets gone, "[unknown]" kept, the inline chain
	 * split with "_[i]", a period of 0 counted 1, the second event left out */
	CHECK(strcmp(s.text, "0 hot;[unknown];main;hot_spin 250000|0 = 250000|1 k_thr;a;b_[i] 1|") == 0);
	CHECK(info.unrecognized == 1 && info.first_unrecognized == 14 && strcmp(info.event, "cpu-clock:pppH") == 0 &&
	      strcmp(info.left_out, "instructions") == 0);
	ltap_lines_free(&r);

	s.text[0] = 0;
	o.tid = 1;
	o.kernel = 1;
	o.event = "instructions";
	ltap_lines_init(&r, text, strlen(text), NULL);
	CHECK(ltap_perfscript_fold(&r, &o, sample, &s, &info) == 0);
	CHECK(strcmp(s.text, "0 xx-?/1;f 10|") == 0 && !info.left_out[0]);
	ltap_lines_free(&r);
}

static void test_layout(void)
{
	const char *keys[] = {"a;b;c", "a;b;d", "a;e", "f"};
	size_t lens[4];
	double cnt[] = {3, 1, 2, 4}, cnt0[] = {1, 1, 4, 4};
	struct ltap_flame fl = {0};
	struct ltap_strbuf svg = {0};
	struct ltap_flame_style st = {10, 2, 7.08, 16, 100, 10.5, 0, -1, LTAP_FLAME_PALETTE, "hot", 0, 0, "samples"};
	const struct ltap_flame_frame *f;
	char want[1024];

	for (int i = 0; i < 4; i++)
		lens[i] = strlen(keys[i]);
	CHECK(ltap_flame_layout(&fl, keys, lens, cnt, NULL, 4, 0) == 0);
	/* children close before parents: c d b e a f, then the root */
	CHECK(fl.n == 7 && fl.total == 10 && fl.dmax == 3);
	f = &fl.f[0];
	CHECK(f->len == 1 && f->name[0] == 'c' && f->depth == 3 && f->x == 0 && f->w == 3 && f->h == 0);
	f = &fl.f[2];
	CHECK(f->name[0] == 'b' && f->depth == 2 && f->x == 0 && f->w == 4 && f->h == 1);
	f = &fl.f[4];
	CHECK(f->name[0] == 'a' && f->depth == 1 && f->w == 6 && f->h == 2);
	f = &fl.f[5];
	CHECK(f->name[0] == 'f' && f->x == 6 && f->w == 4 && f->h == 0);
	f = &fl.f[6];
	CHECK(f->len == 3 && memcmp(f->name, "all", 3) == 0 && f->depth == 0 && f->w == 10 && f->h == 3);
	/* frames below the minimum width left out, their height not passed up */
	CHECK(ltap_flame_layout(&fl, keys, lens, cnt, NULL, 4, 2) == 0);
	CHECK(fl.n == 6 && fl.f[1].name[0] == 'b' && fl.f[1].h == 1);
	/* differential: a frame's own change, the largest one */
	CHECK(ltap_flame_layout(&fl, keys, lens, cnt, cnt0, 4, 0) == 0);
	CHECK(fl.f[0].delta == 2 && fl.f[3].name[0] == 'e' && fl.f[3].delta == -2 && fl.f[4].delta == 0 &&
	      fl.maxdelta == 2 && fl.total_before == 10 && fl.f[3].before == 4);

	/* one frame's line, as flamegraph.lua formatted it */
	CHECK(ltap_flame_layout(&fl, keys, lens, cnt, NULL, 4, 0) == 0);
	fl.n = 1;
	CHECK(ltap_flame_svg(&fl, &st, &svg) == 0);
	snprintf(want, sizeof want,
		 "<g data-name=\"c\" data-x=\"0\" data-w=\"3\" data-depth=\"3\" data-fill=\"rgb(%d,%d,%d)\"><title>c (3 "
		 "samples, 30.00%%)</title><rect x=\"10.0\" y=\"37\" width=\"6.0\" height=\"15.0\" fill=\"rgb(%d,%d,%d)\" "
		 "rx=\"2\" ry=\"2\"/><text x=\"13.00\" y=\"47.5\"></text></g>",
		 205 + 50 * 99 / 1000003, 230 * 99 / 1000003, 55 * 99 / 1000003, 205 + 50 * 99 / 1000003,
		 230 * 99 / 1000003, 55 * 99 / 1000003);
	CHECK(svg.p && strcmp(svg.p, want) == 0);
	if (svg.p && strcmp(svg.p, want) != 0)
		fprintf(stderr, "got  %s\nwant %s\n", svg.p, want);
	ltap_strbuf_free(&svg);
	ltap_flame_free(&fl);
}

int main(void)
{
	test_folded();
	test_lines();
	test_perfscript();
	test_layout();
	printf("%d checks, %d failed\n", checks, failures);
	return failures != 0;
}
