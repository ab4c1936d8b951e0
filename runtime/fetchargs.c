/* fetchargs.c: x86-64 register tables and SDT argument specs, turned into
 * the kernel's fetcharg syntax. */
#include "fetchargs.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* the System V ABI's integer argument registers, in pt_regs names */
static const char *const abi_args[] = {"%di", "%si", "%dx", "%cx", "%r8", "%r9"};

/* the names an SDT operand may give a legacy register, by width */
static const struct {
	const char *names[4];
	const char *reg;
} sdt_regs[] = {
	{{"rax", "eax", "ax", "al"}, "%ax"}, {{"rbx", "ebx", "bx", "bl"}, "%bx"},
	{{"rcx", "ecx", "cx", "cl"}, "%cx"}, {{"rdx", "edx", "dx", "dl"}, "%dx"},
	{{"rsi", "esi", "si", "sil"}, "%si"}, {{"rdi", "edi", "di", "dil"}, "%di"},
	{{"rbp", "ebp", "bp", "bpl"}, "%bp"}, {{"rsp", "esp", "sp", "spl"}, "%sp"},
};

static void append(char *buf, size_t len, const char *s)
{
	size_t n = strlen(buf);
	snprintf(buf + n, len - n, "%s%s", n ? " " : "", s);
}

int ltap_fetchargs_func(int ret, const char *mods, char *out, size_t len, char *bad, size_t badlen)
{
	int strings[7] = {0}, ret_string = 0;
	char mod[64], one[96];

	while (mods && *mods) {
		int n = 0, a, end = -1;
		mods += strspn(mods, " ");
		if (sscanf(mods, "%63s%n", mod, &n) != 1)
			break;
		mods += n;
		/* %n: the whole word matched, not only "argN" */
		if (!ret && sscanf(mod, "arg%d:string%n", &a, &end) == 1 && end == (int)strlen(mod) &&
		    a >= 1 && a <= 6)
			strings[a] = 1;
		else if (ret && strcmp(mod, "ret:string") == 0)
			ret_string = 1;
		else {
			snprintf(bad, badlen, "%s", mod);
			return -EINVAL;
		}
	}
	out[0] = 0;
	if (ret) {
		append(out, len, ret_string ? "ret=+0($retval):string" : "ret=$retval:s64");
		return 0;
	}
	for (int i = 1; i <= 6; i++) {
		if (strings[i])
			snprintf(one, sizeof one, "arg%d=+0(%s):string", i, abi_args[i - 1]);
		else
			snprintf(one, sizeof one, "arg%d=%s:u64", i, abi_args[i - 1]);
		append(out, len, one);
	}
	return 0;
}

/* "%edi" -> "%di", "%r12d" -> "%r12"; NULL for what pt_regs has no name of */
static const char *sdt_reg(const char *operand, char *buf, size_t len)
{
	char *end;
	long r;

	if (operand[0] != '%')
		return NULL;
	for (size_t i = 0; i < sizeof sdt_regs / sizeof sdt_regs[0]; i++)
		for (int k = 0; k < 4; k++)
			if (strcmp(operand + 1, sdt_regs[i].names[k]) == 0)
				return sdt_regs[i].reg;
	/* %r8 .. %r15 and their %r8d, %r8w, %r8b */
	if (operand[1] != 'r' || operand[2] < '0' || operand[2] > '9')
		return NULL;
	r = strtol(operand + 2, &end, 10);
	if (r < 8 || r > 15 || (*end && (!strchr("dwb", *end) || end[1])))
		return NULL;
	snprintf(buf, len, "%%r%ld", r);
	return buf;
}

int ltap_fetchargs_sdt_one(const char *spec, int n, char *out, size_t len)
{
	/* the fetcharg type of a signed or unsigned argument of 1, 2, 4, 8 bytes */
	static const char *const types[2][9] = {{[1] = "u8", [2] = "u16", [4] = "u32", [8] = "u64"},
						{[1] = "s8", [2] = "s16", [4] = "s32", [8] = "s64"}};
	char operand[64], regbuf[8];
	const char *at = strchr(spec, '@'), *op, *reg, *paren, *type;
	char *end;
	long size = strtol(spec, &end, 10), off = 0;
	int sign = size < 0;

	if (!at || end != at)
		return -EINVAL;
	size = labs(size);
	if (size != 1 && size != 2 && size != 4 && size != 8)
		return -EINVAL;
	type = types[sign][size];
	op = at + 1;
	if (*op == '$') {
		strtol(op + 1, &end, 0);
		if (end == op + 1 || *end)
			return -EINVAL; /* $symbol: an address ltap does not know */
		snprintf(out, len, "arg%d=\\%s:%s", n, op + 1, type);
		return 0;
	}
	paren = strchr(op, '(');
	if (paren) {
		off = strtol(op, &end, 0);
		if (end != paren)
			return -EINVAL; /* sym(%rip), sym+8(%rbx): needs the symbol's address */
		snprintf(operand, sizeof operand, "%s", paren + 1);
		if (operand[strcspn(operand, ")")] != ')' || strchr(operand, ','))
			return -EINVAL; /* indexed addressing: no fetcharg for it */
		operand[strcspn(operand, ")")] = 0;
	} else {
		snprintf(operand, sizeof operand, "%s", op);
	}
	/* %rip is not in uprobe fetchargs: rip-relative data is the probe's */
	if (!(reg = sdt_reg(operand, regbuf, sizeof regbuf)))
		return -EINVAL;
	if (paren)
		snprintf(out, len, "arg%d=%+ld(%s):%s", n, off, reg, type);
	else
		snprintf(out, len, "arg%d=%s:%s", n, reg, type);
	return 0;
}

int ltap_fetchargs_sdt(const char *args, char *out, size_t len)
{
	char one[160], spec[128];
	int n = 0, k;

	out[0] = 0;
	while (sscanf(args, " %127s%n", spec, &k) == 1) {
		args += k;
		if (ltap_fetchargs_sdt_one(spec, ++n, one, sizeof one))
			return n;
		append(out, len, one);
	}
	return 0;
}
