/* disasm.c: one function's instructions in objdump's words, with their
 * source lines.
 *
 * Capstone (libcapstone, Debian's 4.0) decodes; its own AT&T text differs
 * from objdump's (size suffixes everywhere, decimal immediates, ", ", bare
 * branch targets), so the operands are written here from capstone's
 * decoded detail, by objdump's rules: immediates in hex at their operand's
 * size, displacements signed hex (shown when encoded), "(base,index,scale)",
 * branch targets as "11c1 <cold_helper>", RIP-relative operands followed by
 * "        # 4050 <sink>", and an AT&T size suffix only where no register
 * operand of that size implies it (never for push, pop, call, jmp, ret,
 * whose 64-bit size is the default). docs/annotate.md says how often
 * the text equals objdump's over whole libraries.
 *
 * The ELF file is opened as symbols.c opens mappings (dwfile.h: no
 * blocking open, a regular file, ltap's own search for separate debug
 * info, never a debuginfod server), so its symbol table (symtab.c) names
 * branch targets (and finds the function by name, and objdump's labels of
 * what no symbol covers), its sections (read once there) hold the code,
 * and its DWARF line table gives each instruction's file:line. */
#include "disasm.h"
#include "dwfile.h"
#include "elfscn.h"
#include "lazylib.h"

#include "symtab.h"

#include <capstone/capstone.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <gelf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct pooled {
	struct pooled *next;
	char s[];
};

/* capstone, opened by the first ltap_disasm_open (lazylib.h) */
static struct {
	__typeof__(cs_open) *open;
	__typeof__(cs_close) *close;
	__typeof__(cs_option) *option;
	__typeof__(cs_reg_name) *reg_name;
	__typeof__(cs_insn_name) *insn_name;
	__typeof__(cs_malloc) *malloc;
	__typeof__(cs_free) *free;
	__typeof__(cs_disasm_iter) *disasm_iter;
} capstone;

static const struct ltap_lazysym cs_syms[] = {
	{"cs_open", &capstone.open},
	{"cs_close", &capstone.close},
	{"cs_option", &capstone.option},
	{"cs_reg_name", &capstone.reg_name},
	{"cs_insn_name", &capstone.insn_name},
	{"cs_malloc", &capstone.malloc},
	{"cs_free", &capstone.free},
	{"cs_disasm_iter", &capstone.disasm_iter},
	{0, 0},
};

/* the ABI of the header compiled against */
_Static_assert(CS_API_MAJOR == 4, "capstone's soname below is libcapstone.so.4");
static struct ltap_lazylib cs_lib = {.soname = "libcapstone.so.4", .syms = cs_syms};

struct ltap_disasm {
	char *path;
	struct ltap_dwfile file;
	Dwfl_Module *mod;
	Elf *elf;
	GElf_Addr bias;
	struct ltap_symtab *tab;
	csh cs;
	struct pooled *pool; /* joined source paths */
};

const char *ltap_disasm_unavailable(void)
{
	return ltap_lazylib_load(&cs_lib) ? cs_lib.why : NULL;
}

struct ltap_disasm *ltap_disasm_open(const char *path)
{
	struct ltap_disasm *d = calloc(1, sizeof *d);
	int e = ENOEXEC;

	if (!d)
		return NULL;
	if (ltap_disasm_unavailable()) {
		e = ELIBACC;
		goto fail;
	}
	if (!(d->path = strdup(path)) || (e = -ltap_dwfile_open(&d->file, d->path)) != 0)
		goto fail;
	e = ENOEXEC;
	d->mod = d->file.mod;
	d->elf = d->file.main;
	d->bias = d->file.bias;
	{
		GElf_Ehdr eh;
		if (!gelf_getehdr(d->elf, &eh) || eh.e_machine != EM_X86_64) {
			e = ENOTSUP;
			goto fail;
		}
	}
	d->tab = ltap_symtab_new(d->mod);
	if (!d->tab || capstone.open(CS_ARCH_X86, CS_MODE_64, &d->cs) != CS_ERR_OK) {
		e = ENOMEM;
		goto fail;
	}
	capstone.option(d->cs, CS_OPT_SYNTAX, CS_OPT_SYNTAX_ATT);
	capstone.option(d->cs, CS_OPT_DETAIL, CS_OPT_ON);
	return d;
fail:
	ltap_disasm_close(d);
	errno = e;
	return NULL;
}

void ltap_disasm_close(struct ltap_disasm *d)
{
	if (!d)
		return;
	if (d->cs)
		capstone.close(&d->cs);
	ltap_symtab_free(d->tab);
	ltap_dwfile_close(&d->file);
	free(d->path);
	for (struct pooled *p = d->pool, *n; p; p = n) {
		n = p->next;
		free(p);
	}
	free(d);
}

int ltap_disasm_find(struct ltap_disasm *d, const char *name, uint64_t *start, uint64_t *size)
{
	const struct ltap_symtab_sym *f = ltap_symtab_func(d->tab, name, 1);

	if (!f || !f->size)
		return -ENOENT;
	*start = f->addr - d->bias;
	*size = f->size;
	return 0;
}

/* The code bytes of [start, start + size): in one executable section. */
static const unsigned char *disasm_bytes(struct ltap_disasm *d, uint64_t start, uint64_t size)
{
	const struct ltap_scns *scns = ltap_symtab_scns(d->tab);

	for (size_t i = 0; scns && i < scns->n; i++) {
		const GElf_Shdr *sh = &scns->v[i].sh;
		Elf_Data *data;
		if (sh->sh_type != SHT_PROGBITS || !(sh->sh_flags & SHF_EXECINSTR))
			continue;
		if (start < sh->sh_addr || start - sh->sh_addr >= sh->sh_size || size > sh->sh_size - (start - sh->sh_addr))
			continue;
		data = elf_getdata(scns->v[i].scn, NULL);
		if (!data || !data->d_buf || data->d_size != sh->sh_size)
			return NULL;
		return (const unsigned char *)data->d_buf + (start - sh->sh_addr);
	}
	return NULL;
}

/* ---- objdump's text ---- */

struct out {
	char *p;
	size_t left;
};

static void put(struct out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(struct out *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(o->p, o->left, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= o->left)
		n = o->left ? (int)o->left - 1 : 0;
	o->p += n;
	o->left -= (size_t)n;
}

/* " <name+0xoff>" of an address of the file */
static void put_label(struct ltap_disasm *d, struct out *o, uint64_t a)
{
	uint64_t off;
	const char *name = ltap_symtab_find(d->tab, a + d->bias, &off);

	if (!name)
		name = ltap_symtab_label(d->tab, a + d->bias, &off);
	if (!name)
		return;
	if (off)
		put(o, " <%s+0x%llx>", name, (unsigned long long)off);
	else
		put(o, " <%s>", name);
}

static void put_signed(struct out *o, int64_t v)
{
	if (v < 0)
		put(o, "-0x%llx", (unsigned long long)(-(uint64_t)v));
	else
		put(o, "0x%llx", (unsigned long long)v);
}

/* Whether the memory operand's displacement is encoded (objdump shows
 * "0x0(%rax,%rax,1)" for a disp8 of 0, "(%rax)" for none). */
static int disasm_has_disp(const cs_x86 *x, const cs_x86_op *op)
{
	int mod = x->modrm >> 6;

	if (op->mem.base == X86_REG_INVALID || op->mem.base == X86_REG_RIP || op->mem.base == X86_REG_EIP)
		return 1;
	if (x->modrm == 0 && !x->sib)
		return op->mem.disp != 0; /* no ModRM (moffs forms) */
	return mod == 1 || mod == 2;
}

/* cs, ds, es and ss overrides do nothing in 64-bit mode: objdump shows
 * them as a prefix word ("cs nopw 0x0(%rax,%rax,1)"), fs and gs in the
 * operand ("%fs:0x28") */
static int disasm_prefix_segment(unsigned seg)
{
	return seg == X86_REG_CS || seg == X86_REG_DS || seg == X86_REG_ES || seg == X86_REG_SS;
}

/* movs, cmps, stos, lods, scas: objdump names their implicit segments */
static int disasm_string_op(const cs_x86 *x)
{
	uint8_t op = x->opcode[0];
	return x->opcode[1] == 0 && ((op >= 0xa4 && op <= 0xa7) || (op >= 0xaa && op <= 0xaf));
}

static const char *reg(csh cs, unsigned r)
{
	return capstone.reg_name(cs, r);
}

static void put_operand(struct ltap_disasm *d, struct out *o, const cs_insn *in, const cs_x86_op *op,
			int branch, uint64_t *rip_target)
{
	const cs_x86 *x = &in->detail->x86;

	switch (op->type) {
	case X86_OP_REG:
		put(o, "%%%s", reg(d->cs, op->reg));
		break;
	case X86_OP_IMM:
		if (branch) {
			put(o, "%llx", (unsigned long long)op->imm);
			put_label(d, o, (uint64_t)op->imm);
		} else {
			uint64_t v = (uint64_t)op->imm;
			if (op->size && op->size < 8)
				v &= (1ull << (op->size * 8)) - 1;
			put(o, "$0x%llx", (unsigned long long)v);
		}
		break;
	case X86_OP_MEM:
		if (disasm_string_op(x))
			put(o, "%%%s:", op->mem.segment != X86_REG_INVALID ? reg(d->cs, op->mem.segment)
					: op->mem.base == X86_REG_RDI || op->mem.base == X86_REG_EDI ? "es" : "ds");
		else if (op->mem.segment != X86_REG_INVALID && !disasm_prefix_segment(op->mem.segment))
			put(o, "%%%s:", reg(d->cs, op->mem.segment));
		if (op->mem.base == X86_REG_INVALID && op->mem.index == X86_REG_INVALID) {
			put(o, "0x%llx", (unsigned long long)op->mem.disp);
			break;
		}
		if (disasm_has_disp(x, op))
			put_signed(o, op->mem.disp);
		put(o, "(");
		if (op->mem.base != X86_REG_INVALID)
			put(o, "%%%s", reg(d->cs, op->mem.base));
		if (op->mem.index != X86_REG_INVALID)
			put(o, ",%%%s,%d", reg(d->cs, op->mem.index), op->mem.scale);
		put(o, ")");
		if (op->mem.base == X86_REG_RIP)
			*rip_target = in->address + in->size + (uint64_t)op->mem.disp;
		break;
	default:
		break;
	}
}

static int disasm_in_group(const cs_insn *in, int group)
{
	for (int i = 0; i < in->detail->groups_count; i++)
		if (in->detail->groups[i] == group)
			return 1;
	return 0;
}

/* a mnemonic and its prefix words ("notrack ", "lock ", "cs "), each of at
 * most half of this: the room put_mnemonic's caller gives it */
#define DISASM_MNEMONIC_LEN 128

/* The mnemonic as objdump writes it: without capstone's AT&T size suffix
 * where a register operand of that size implies it, or the instruction's
 * 64-bit size is its default; stos, lods and scas without one at all (their
 * register says it); movd of a 64-bit register is movq; repe, repne are
 * repz, repnz; a segment override that does nothing is a prefix word. */
static void put_mnemonic(struct ltap_disasm *d, const cs_insn *in, char *buf, size_t cap)
{
	static const char *const default64[] = {"push", "pop", "call", "jmp", "ret", "leave", "enter", "lcall", "ljmp", NULL};
	static const char sizes[] = "bwlq";
	const cs_x86 *x = &in->detail->x86;
	const char *last = strrchr(in->mnemonic, ' ');
	const char *name = capstone.insn_name(d->cs, in->id);
	size_t pre = last ? (size_t)(last - in->mnemonic + 1) : 0, n;
	char m[DISASM_MNEMONIC_LEN / 2], prefix[DISASM_MNEMONIC_LEN / 2] = "";

	last = in->mnemonic + pre;
	snprintf(m, sizeof m, "%s", last);
	n = strlen(m);
	if (name && n >= 2 && strlen(name) == n - 1 && strncmp(m, name, n - 1) == 0 && strchr(sizes, m[n - 1])) {
		int bytes = 1 << (strchr(sizes, m[n - 1]) - sizes), drop = 0;
		for (int i = 0; default64[i]; i++)
			drop |= m[n - 1] == 'q' && strcmp(name, default64[i]) == 0;
		for (int i = 0; i < x->op_count; i++)
			drop |= x->operands[i].type == X86_OP_REG && x->operands[i].size == bytes;
		if (drop)
			m[n - 1] = '\0';
	}
	if (disasm_string_op(x) && (strncmp(m, "stos", 4) == 0 || strncmp(m, "lods", 4) == 0 || strncmp(m, "scas", 4) == 0))
		m[4] = '\0';
	if (strcmp(m, "movd") == 0)
		for (int i = 0; i < x->op_count; i++)
			if (x->operands[i].type == X86_OP_REG && x->operands[i].size == 8 &&
			    x->operands[i].reg >= X86_REG_RAX && x->operands[i].reg <= X86_REG_R15)
				m[3] = 'q';
	for (size_t i = 0; i < pre;) { /* the prefix words, renamed */
		size_t w = strcspn(in->mnemonic + i, " ");
		const char *word = in->mnemonic + i;
		size_t used = strlen(prefix);
		if (w == 4 && strncmp(word, "repe", 4) == 0)
			snprintf(prefix + used, sizeof prefix - used, "repz ");
		else if (w == 5 && strncmp(word, "repne", 5) == 0)
			snprintf(prefix + used, sizeof prefix - used, "repnz ");
		else if (w == 3 && strncmp(word, "rep", 3) == 0 && !disasm_string_op(x) && x->opcode[0] != 0x6c &&
			 x->opcode[0] != 0x6d && x->opcode[0] != 0x6e && x->opcode[0] != 0x6f)
			snprintf(prefix + used, sizeof prefix - used, "repz ");
		else
			snprintf(prefix + used, sizeof prefix - used, "%.*s ", (int)w, word);
		i += w + 1;
	}
	/* 3E on an indirect jmp or call is CET's notrack, not a segment */
	if (x->prefix[1] == 0x3e && (disasm_in_group(in, CS_GRP_JUMP) || disasm_in_group(in, CS_GRP_CALL)) &&
	    x->op_count == 1 && x->operands[0].type != X86_OP_IMM) {
		size_t used = strlen(prefix);
		snprintf(prefix + used, sizeof prefix - used, "notrack ");
	} else for (int i = 0; i < x->op_count; i++)
		if (x->operands[i].type == X86_OP_MEM && disasm_prefix_segment(x->operands[i].mem.segment) &&
		    !disasm_string_op(x)) {
			size_t used = strlen(prefix);
			snprintf(prefix + used, sizeof prefix - used, "%s ", reg(d->cs, x->operands[i].mem.segment));
		}
	snprintf(buf, cap, "%s%s", prefix, m);
}

/* x87 register forms capstone gives one operand where objdump writes two:
 * "%st(1),%st" (D8, DA, DB, DF), "%st,%st(1)" (DC, DE) */
static const char *disasm_x87_pair(const cs_insn *in)
{
	const cs_x86 *x = &in->detail->x86;
	uint8_t op = x->opcode[0];

	if (x->op_count != 1 || x->operands[0].type != X86_OP_REG || x->operands[0].reg < X86_REG_ST0 ||
	    x->operands[0].reg > X86_REG_ST7 || in->size != 2)
		return NULL;
	if (op == 0xd8 || op == 0xda || op == 0xdb || op == 0xdf)
		return "%s,%%st";
	if (op == 0xdc || op == 0xde)
		return "%%st,%s";
	return NULL;
}

/* capstone's operand text split at the top-level ", " (into at most max) */
static int disasm_split_ops(const char *s, const char **starts, size_t *lens, int max)
{
	int n = 0, depth = 0;
	const char *b = s;

	if (!*s)
		return 0;
	for (const char *p = s;; p++) {
		if (*p == '(')
			depth++;
		else if (*p == ')')
			depth--;
		if (*p == '\0' || (depth == 0 && p[0] == ',' && p[1] == ' ')) {
			if (n == max)
				return -1;
			starts[n] = b;
			lens[n++] = (size_t)(p - b);
			if (!*p)
				return n;
			b = p + 2;
			p++;
		}
	}
}

static void disasm_text(struct ltap_disasm *d, const cs_insn *in, char *text, size_t cap)
{
	const cs_x86 *x = &in->detail->x86;
	struct out o = {text, cap};
	int branch = disasm_in_group(in, CS_GRP_JUMP) || disasm_in_group(in, CS_GRP_CALL);
	/* D0-D3 shift and rotate by one: objdump leaves out capstone's "$0x1" */
	int first = (x->opcode[0] == 0xd0 || x->opcode[0] == 0xd1) && x->op_count == 2 &&
		    x->operands[0].type == X86_OP_IMM;
	const char *starts[8], *pair = disasm_x87_pair(in);
	/* DC and DE register forms: objdump writes the implicit st(0) as %st */
	int x87_st = (x->opcode[0] == 0xdc || x->opcode[0] == 0xde) && in->size == 2 && x->op_count == 2 &&
		     x->operands[0].type == X86_OP_REG;
	size_t lens[8];
	int n = disasm_split_ops(in->op_str, starts, lens, 8);
	uint64_t rip = 0;
	char m[DISASM_MNEMONIC_LEN];

	if (in->size == 2 && in->bytes[0] == 0x66 && in->bytes[1] == 0x90) {
		put(&o, "xchg   %%ax,%%ax");
		return;
	}
	put_mnemonic(d, in, m, sizeof m);
	if (n <= 0) {
		put(&o, "%s", m);
		return;
	}
	put(&o, "%-6s ", m);
	if (pair) {
		char st[16];
		snprintf(st, sizeof st, "%%%s", reg(d->cs, x->operands[0].reg));
		put(&o, pair, st);
		return;
	}
	for (int i = first; i < n; i++) {
		if (i > first)
			put(&o, ",");
		if (starts[i][0] == '*')
			put(&o, "*");
		if (n == x->op_count && x87_st && i == 0 && x->operands[0].reg == X86_REG_ST0)
			put(&o, "%%st");
		else if (n == x->op_count)
			put_operand(d, &o, in, &x->operands[i], branch, &rip);
		else if (disasm_string_op(x) && starts[i][0] == '(') /* the implicit operands of movs, stos... */
			put(&o, "%%%s:%.*s", strncmp(starts[i], "(%rdi)", 6) && strncmp(starts[i], "(%edi)", 6) ? "ds" : "es",
			    (int)lens[i], starts[i]);
		else /* operands capstone prints but does not list, or the reverse */
			put(&o, "%.*s", (int)(lens[i] - (starts[i][0] == '*')), starts[i] + (starts[i][0] == '*'));
	}
	if (rip) {
		put(&o, "        # %llx", (unsigned long long)rip);
		put_label(d, &o, rip);
	}
}

/* Instructions capstone 4 does not know, by their bytes. */
static const char *disasm_unknown(const unsigned char *code, size_t left, int *size)
{
	static const struct { unsigned char b[3]; const char *text; } known[] = {
		{{0x0f, 0x01, 0xee}, "rdpkru"}, {{0x0f, 0x01, 0xef}, "wrpkru"},
	};
	for (size_t i = 0; i < sizeof known / sizeof *known; i++)
		if (left >= 3 && memcmp(code, known[i].b, 3) == 0) {
			*size = 3;
			return known[i].text;
		}
	*size = 1;
	return "(bad)";
}

/* ---- source lines ---- */

static const char *disasm_keep(struct ltap_disasm *d, const char *dir, const char *file)
{
	size_t n = strlen(dir) + strlen(file) + 2;
	struct pooled *p = malloc(sizeof *p + n);

	if (!p)
		return file;
	snprintf(p->s, n, "%s/%s", dir, file);
	p->next = d->pool;
	d->pool = p;
	return p->s;
}

static void disasm_line(struct ltap_disasm *d, struct ltap_insn *ins, const char **last_rel,
			const char **last_abs)
{
	Dwfl_Line *l = dwfl_module_getsrc(d->mod, ins->addr + d->bias);
	const char *src;
	int line = 0;
	Dwarf_Die *cu;
	Dwarf_Attribute attr;
	const char *dir;

	if (!l || !(src = dwfl_lineinfo(l, NULL, &line, NULL, NULL, NULL)))
		return;
	ins->line = line;
	if (src[0] == '/') {
		ins->file = src;
		return;
	}
	if (*last_rel == src) { /* one join per file, not per instruction */
		ins->file = *last_abs;
		return;
	}
	cu = dwfl_linecu(l);
	dir = cu ? dwarf_formstring(dwarf_attr(cu, DW_AT_comp_dir, &attr)) : NULL;
	ins->file = dir ? disasm_keep(d, dir, src) : src;
	*last_rel = src;
	*last_abs = ins->file;
}

int ltap_disasm_range(struct ltap_disasm *d, uint64_t start, uint64_t size, int max, struct ltap_insn **out)
{
	const unsigned char *code = disasm_bytes(d, start, size);
	const char *last_rel = NULL, *last_abs = NULL;
	struct ltap_insn *ins = NULL;
	cs_insn *in;
	uint64_t addr = start;
	size_t left = size;
	int n = 0, cap = 0;

	*out = NULL;
	if (!code)
		return -ERANGE;
	if (!(in = capstone.malloc(d->cs)))
		return -ENOMEM;
	while (left > 0 && n < max) {
		struct ltap_insn *t;
		if (n == cap) { /* grown as decoded: a function's bytes bound, not size it */
			int ncap = cap ? cap * 2 : 256;
			struct ltap_insn *more = realloc(ins, (size_t)ncap * sizeof *ins);
			if (!more) {
				free(ins);
				capstone.free(in, 1);
				return -ENOMEM;
			}
			ins = more;
			cap = ncap;
		}
		t = &ins[n];
		memset(t, 0, sizeof *t);
		if (!capstone.disasm_iter(d->cs, &code, &left, &addr, in)) {
			/* not an instruction capstone knows: objdump's "(bad)" takes one byte */
			snprintf(t->text, sizeof t->text, "%s", disasm_unknown(code, left, &t->size));
			t->addr = addr;
			addr += (uint64_t)t->size;
			code += t->size;
			left -= (size_t)t->size;
		} else {
			t->addr = in->address;
			t->size = in->size;
			disasm_text(d, in, t->text, sizeof t->text);
		}
		disasm_line(d, t, &last_rel, &last_abs);
		n++;
	}
	capstone.free(in, 1);
	*out = ins;
	return n;
}
