/* symbols.c: kernel symbols from /proc/kallsyms or its cache (ksymcache.c),
 * user symbols through libdwfl with one Dwfl per ELF file (libc is opened
 * once for every process that maps it) and symtab.c's choice of name,
 * per-process mappings from the perf ring or /proc/PID/maps, JIT names from
 * perfmap.c, and a cache of (module, address) results, the kernel's too. */
#include "symbols.h"

#include "dwfile.h"
#include "elffile.h"
#include "ksymcache.h"
#include "perfmap.h"
#include "symtab.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <gelf.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PROC_BUCKETS 4096
#define MOD_BUCKETS 512

struct module {
	struct module *next;
	char *path;
	struct ltap_symtab *tab;
	int opened, failed;
	int anon; /* no file: JIT code is named by /tmp/perf-PID.map */
	struct ltap_dwfile file; /* once opened */
};

struct map {
	uint64_t start, end, pgoff;
	struct module *mod;
};

struct proc {
	struct proc *next;
	int pid;
	struct map *maps; /* sorted by start, not overlapping */
	int n, cap;
	int read_proc;    /* /proc/PID/maps was read (or an exec made it moot) */
	struct ltap_perfmap *jit;
};

struct cached {
	struct module *mod; /* NULL: empty slot */
	uint64_t addr;
	const char *name, *file, *module;
	uint64_t off;
	int line, lines_done;
};

/* Source paths made absolute (DW_AT_comp_dir + name), each stored once. */
struct paths {
	char **tab;
	size_t used, cap;
};

struct ltap_symbols {
	struct module kernel; /* the owner of kernel addresses in the cache */
	struct ltap_ksyms *ksyms;
	struct proc *procs[PROC_BUCKETS];
	struct module *mods[MOD_BUCKETS];
	struct cached *cache;
	size_t cache_cap, cache_used;
	struct paths paths;
};

struct ltap_symbols *ltap_symbols_new(void)
{
	return calloc(1, sizeof(struct ltap_symbols));
}

static void proc_free(struct proc *p)
{
	ltap_perfmap_free(p->jit);
	free(p->maps);
	free(p);
}

void ltap_symbols_free(struct ltap_symbols *s)
{
	if (!s)
		return;
	for (int i = 0; i < PROC_BUCKETS; i++)
		for (struct proc *p = s->procs[i], *n; p; p = n) {
			n = p->next;
			proc_free(p);
		}
	for (int i = 0; i < MOD_BUCKETS; i++)
		for (struct module *m = s->mods[i], *n; m; m = n) {
			n = m->next;
			ltap_symtab_free(m->tab);
			ltap_dwfile_close(&m->file);
			free(m->path);
			free(m);
		}
	for (size_t i = 0; i < s->paths.cap; i++)
		free(s->paths.tab[i]);
	free(s->paths.tab);
	free(s->cache);
	ltap_ksyms_free(s->ksyms);
	free(s);
}

/* ---- kernel ---- */

/* The kernel symbol at or below addr into c; name and module NULL when
 * none is. */
static void kernel_find(struct ltap_symbols *s, uint64_t addr, struct cached *c)
{
	if (!s->ksyms) {
		struct ltap_ksyms_src src = ltap_ksyms_src_default();
		s->ksyms = ltap_ksyms_new(&src);
	}
	if (!s->ksyms || ltap_ksyms_find(s->ksyms, addr, &c->name, &c->off, &c->module))
		c->name = c->module = NULL;
}

/* ---- modules (ELF files) ---- */

static unsigned str_hash(const char *p)
{
	unsigned h = 5381;
	while (*p)
		h = h * 33 + (unsigned char)*p++;
	return h;
}

/* Memory no file backs, where a JIT puts code: perf's anonymous kinds
 * (//anon, /dev/zero, /anon_hugepage), memfd and named anonymous memory. */
static int module_anon(const char *path)
{
	static const char *const prefixes[] = {"//anon", "/dev/zero", "/anon_hugepage", "/memfd:", "[anon:"};

	for (size_t i = 0; i < sizeof prefixes / sizeof *prefixes; i++)
		if (strncmp(path, prefixes[i], strlen(prefixes[i])) == 0)
			return 1;
	return 0;
}

static struct module *module_get(struct ltap_symbols *s, const char *path)
{
	unsigned b = str_hash(path) % MOD_BUCKETS;
	struct module *m;

	for (m = s->mods[b]; m; m = m->next)
		if (strcmp(m->path, path) == 0)
			return m;
	m = calloc(1, sizeof *m);
	if (!m || !(m->path = strdup(path))) {
		free(m);
		return NULL;
	}
	m->anon = module_anon(path);
	m->next = s->mods[b];
	s->mods[b] = m;
	return m;
}

/* Opens the ELF file of a mapping (dwfile.h: the path is what the kernel
 * reported when it was mapped, and a user may since have put something
 * else there), for symbols and lines. */
static void module_open(struct module *m)
{
	m->opened = 1;
	m->failed = 1;
	if (m->anon || m->path[0] != '/')
		return; /* [vdso], //anon, [heap]: no file to read */
	if (ltap_dwfile_open(&m->file, m->path) != 0)
		return;
	m->tab = ltap_symtab_new(m->file.mod);
	m->failed = !m->tab;
}

/* File offset (what a mapping gives) -> the ELF's own address. */
static uint64_t module_vaddr(struct module *m, uint64_t fileoff)
{
	uint64_t vaddr;
	return ltap_elf_offset_addr(m->file.elf, fileoff, &vaddr) == 0 ? vaddr : fileoff;
}

/* ---- the result cache ---- */

static size_t cache_slot(const struct ltap_symbols *s, const struct module *m, uint64_t a)
{
	uint64_t h = (a ^ (uintptr_t)m) * 0x9e3779b97f4a7c15ull;
	size_t i = (size_t)(h >> 20) & (s->cache_cap - 1);
	while (s->cache[i].mod && (s->cache[i].mod != m || s->cache[i].addr != a))
		i = (i + 1) & (s->cache_cap - 1);
	return i;
}

static struct cached *cache_get(struct ltap_symbols *s, struct module *m, uint64_t a)
{
	size_t i;

	if (s->cache_used * 2 >= s->cache_cap) {
		struct cached *old = s->cache;
		size_t oldcap = s->cache_cap, ncap = oldcap ? oldcap * 2 : 4096;
		struct cached *nc = calloc(ncap, sizeof *nc);
		if (!nc)
			return NULL;
		s->cache = nc;
		s->cache_cap = ncap;
		for (size_t j = 0; j < oldcap; j++)
			if (old[j].mod)
				s->cache[cache_slot(s, old[j].mod, old[j].addr)] = old[j];
		free(old);
	}
	i = cache_slot(s, m, a);
	if (!s->cache[i].mod) {
		struct cached *c = &s->cache[i];
		c->mod = m;
		c->addr = a;
		if (m == &s->kernel) {
			kernel_find(s, a, c);
		} else {
			c->name = ltap_symtab_find(m->tab, a + m->file.bias, &c->off);
			c->module = m->path;
		}
		s->cache_used++;
	}
	return &s->cache[i];
}

/* ---- source paths ---- */

static char *paths_add(struct paths *ps, const char *dir, const char *src)
{
	size_t dl = strlen(dir), sl = strlen(src), i;
	char *p = malloc(dl + sl + 2);

	if (!p)
		return NULL;
	memcpy(p, dir, dl);
	p[dl] = '/';
	memcpy(p + dl + 1, src, sl + 1);
	if (ps->used * 2 >= ps->cap) {
		size_t ncap = ps->cap ? ps->cap * 2 : 256;
		char **nt = calloc(ncap, sizeof *nt);
		if (!nt) {
			free(p);
			return NULL;
		}
		for (size_t j = 0; j < ps->cap; j++)
			if (ps->tab[j]) {
				for (i = str_hash(ps->tab[j]) & (ncap - 1); nt[i]; i = (i + 1) & (ncap - 1))
					;
				nt[i] = ps->tab[j];
			}
		free(ps->tab);
		ps->tab = nt;
		ps->cap = ncap;
	}
	for (i = str_hash(p) & (ps->cap - 1); ps->tab[i]; i = (i + 1) & (ps->cap - 1))
		if (strcmp(ps->tab[i], p) == 0) {
			free(p);
			return ps->tab[i];
		}
	ps->used++;
	return ps->tab[i] = p;
}

/* A source file as eu-addr2line names it: a relative name follows its
 * compilation unit's DW_AT_comp_dir. Joined names are stored once. */
static const char *source_path(struct paths *ps, Dwfl_Line *l, const char *src)
{
	Dwarf_Die *cu = dwfl_linecu(l);
	Dwarf_Attribute attr;
	const char *dir, *joined;

	if (src[0] == '/' || !cu || !(dir = dwarf_formstring(dwarf_attr(cu, DW_AT_comp_dir, &attr))))
		return src;
	joined = paths_add(ps, dir, src);
	return joined ? joined : src;
}

/* ---- processes ---- */

static struct proc *proc_get(struct ltap_symbols *s, int pid)
{
	unsigned b = (unsigned)pid % PROC_BUCKETS;
	struct proc *p;

	for (p = s->procs[b]; p; p = p->next)
		if (p->pid == pid)
			return p;
	p = calloc(1, sizeof *p);
	if (!p)
		return NULL;
	p->pid = pid;
	p->next = s->procs[b];
	s->procs[b] = p;
	return p;
}

static int proc_reserve(struct proc *p, int more)
{
	if (p->n + more <= p->cap)
		return 0;
	int ncap = p->cap ? p->cap * 2 : 16;
	while (ncap < p->n + more)
		ncap *= 2;
	struct map *nm = realloc(p->maps, (size_t)ncap * sizeof *nm);
	if (!nm)
		return -ENOMEM;
	p->maps = nm;
	p->cap = ncap;
	return 0;
}

/* Inserts [start, end), cutting what it covers out of older mappings. */
static void proc_map(struct proc *p, uint64_t start, uint64_t end, uint64_t pgoff, struct module *m)
{
	struct map add = {start, end, pgoff, m}, *nm;
	int k = 0, done = 0;

	if (start >= end || !(nm = malloc((size_t)(p->n + 2) * sizeof *nm)))
		return;
	for (int j = 0; j < p->n; j++) {
		struct map o = p->maps[j];
		if (o.end <= start) {
			nm[k++] = o;
			continue;
		}
		if (o.start < start) {
			struct map head = o;
			head.end = start;
			nm[k++] = head;
		}
		if (!done) {
			nm[k++] = add;
			done = 1;
		}
		if (o.end > end) {
			struct map tail = o;
			if (o.start < end) {
				tail.pgoff += end - o.start;
				tail.start = end;
			}
			nm[k++] = tail;
		}
	}
	if (!done)
		nm[k++] = add;
	free(p->maps);
	p->maps = nm;
	p->n = k;
	p->cap = k;
}

static struct map *proc_find(struct proc *p, uint64_t addr)
{
	int lo = 0, hi = p->n;
	while (lo < hi) {
		int mid = (lo + hi) / 2;
		if (p->maps[mid].end <= addr)
			lo = mid + 1;
		else if (p->maps[mid].start > addr)
			hi = mid;
		else
			return &p->maps[mid];
	}
	return NULL;
}

static void proc_read_maps(struct ltap_symbols *s, struct proc *p)
{
	char path[64], line[4352], perms[8], file[4096];
	unsigned long long start, end, off;
	FILE *f;

	p->read_proc = 1;
	snprintf(path, sizeof path, "/proc/%d/maps", p->pid);
	if (!(f = fopen(path, "r")))
		return;
	while (fgets(line, sizeof line, f)) {
		file[0] = 0;
		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %4095[^\n]", &start, &end, perms, &off, file) < 4 ||
		    perms[2] != 'x')
			continue;
		if (!proc_find(p, start))
			proc_map(p, start, end, off, module_get(s, file[0] ? file : "//anon"));
	}
	fclose(f);
}

static int jit_lookup(struct proc *p, uint64_t addr, struct ltap_sym *out)
{
	if (!p->jit && !(p->jit = ltap_perfmap_new(p->pid)))
		return -ENOMEM;
	if (ltap_perfmap_lookup(p->jit, addr, &out->name, &out->off) != 0)
		return -ENOENT;
	out->module = ltap_perfmap_path(p->jit);
	return 0;
}

void ltap_symbols_mmap(struct ltap_symbols *s, int pid, uint64_t start, uint64_t len,
		       uint64_t pgoff, const char *path)
{
	struct proc *p = proc_get(s, pid);
	struct module *m = module_get(s, path);
	if (p && m)
		proc_map(p, start, start + len, pgoff, m);
}

void ltap_symbols_fork(struct ltap_symbols *s, int ppid, int pid)
{
	struct proc *parent = proc_get(s, ppid), *child = proc_get(s, pid);

	if (!parent || !child || parent == child || proc_reserve(child, parent->n))
		return;
	if (parent->n) /* else both may be NULL, which memcpy may not be given */
		memcpy(child->maps, parent->maps, (size_t)parent->n * sizeof *child->maps);
	child->n = parent->n;
	child->read_proc = parent->read_proc;
}

void ltap_symbols_exec(struct ltap_symbols *s, int pid)
{
	struct proc *p = proc_get(s, pid);
	if (p) {
		p->n = 0;
		p->read_proc = 1; /* the new image's mappings come as MMAP2 records */
	}
}

/* The frame of user address addr in p: 1 when a mapping covers it (an
 * anonymous one's names are the JIT map's). A file's frame is its file offset, the same in every process
 * that maps the file; anonymous memory stays an address of p. */
static int proc_frame(struct ltap_symbols *s, struct proc *p, uint64_t addr, struct ltap_frame *f)
{
	struct ltap_sym unused;
	struct map *mp = proc_find(p, addr);

	if (!mp && !p->read_proc) {
		proc_read_maps(s, p);
		mp = proc_find(p, addr);
	}
	f->addr = addr;
	if (mp && !mp->mod->anon) {
		/* opened when first sampled, while the file is most likely the
		 * one mapped (a frame may be named much later) */
		if (!mp->mod->opened)
			module_open(mp->mod);
		f->module = mp->mod;
		f->addr = addr - mp->start + mp->pgoff;
		return 1;
	}
	/* an address in no mapping is no code (a frame pointer walk gone
	 * astray): /tmp/perf-PID.map names anonymous executable memory only,
	 * as perf's map__new reads it for those alone */
	if (!mp)
		return 0;
	/* the JIT map is read now, while the process that writes it (and may
	 * remove it when it exits) still runs; its names stay for later */
	jit_lookup(p, addr, &unused);
	f->module = mp->mod;
	f->proc = p;
	return 1;
}

int ltap_symbols_chain(struct ltap_symbols *s, int pid, const uint64_t *chain, int nr, struct ltap_frame *out,
		       uint64_t *raw, int max)
{
	struct proc *p = NULL;
	int kernel = 0, n = 0, looked = 0;

	for (int i = 0; i < nr && n < max; i++) {
		uint64_t a = chain[i];
		struct ltap_frame *f = &out[n];

		if (a >= (uint64_t)PERF_CONTEXT_MAX) {
			kernel = a == (uint64_t)PERF_CONTEXT_KERNEL;
			continue;
		}
		memset(f, 0, sizeof *f);
		f->kernel = kernel;
		f->addr = a;
		if (raw)
			raw[n] = a;
		n++;
		/* a kernel address under PERF_CONTEXT_USER is stack garbage: no
		 * mapping of the process holds it, so it ends the chain below */
		if (a >= LTAP_KERNEL_ADDR && kernel) {
			f->module = &s->kernel;
			continue;
		}
		if (!looked) {
			p = pid > 0 ? proc_get(s, pid) : NULL;
			looked = 1;
		}
		if ((!p || !proc_frame(s, p, a, f)) && !kernel)
			break;
	}
	return n;
}

int ltap_symbols_frame_sym(struct ltap_symbols *s, const struct ltap_frame *f, int lines, struct ltap_sym *out)
{
	struct module *m = (struct module *)f->module;
	struct cached *c;

	memset(out, 0, sizeof *out);
	if (m == &s->kernel) {
		out->kernel = 1;
		if (!(c = cache_get(s, m, f->addr)) || !c->module)
			return -ENOENT;
		out->name = c->name;
		out->off = c->off;
		out->module = c->module;
		return 0;
	}
	if (f->proc && (!m || m->anon) && jit_lookup((struct proc *)f->proc, f->addr, out) == 0)
		return 0;
	if (!m)
		return -ENOENT;
	out->module = m->path;
	if (!m->opened)
		module_open(m);
	if (m->failed)
		return 0;
	c = cache_get(s, m, module_vaddr(m, f->addr));
	if (!c)
		return 0;
	if (lines && !c->lines_done) {
		Dwfl_Line *l = dwfl_module_getsrc(m->file.mod, c->addr + m->file.bias);
		const char *src = l ? dwfl_lineinfo(l, NULL, &c->line, NULL, NULL, NULL) : NULL;
		c->lines_done = 1;
		if (src)
			c->file = source_path(&s->paths, l, src);
	}
	out->name = c->name;
	out->off = c->off;
	if (lines) {
		out->file = c->file;
		out->line = c->line;
	}
	return 0;
}

int ltap_symbols_mapped(struct ltap_symbols *s, int pid, uint64_t addr)
{
	struct ltap_frame f = {0};
	struct proc *p;

	if (addr >= LTAP_KERNEL_ADDR)
		return 1;
	return pid > 0 && (p = proc_get(s, pid)) && proc_frame(s, p, addr, &f);
}

int ltap_symbols_lookup(struct ltap_symbols *s, int pid, uint64_t addr, int lines, struct ltap_sym *out)
{
	struct ltap_frame f = {0};
	struct proc *p;

	f.addr = addr;
	if (addr >= LTAP_KERNEL_ADDR)
		f.module = &s->kernel;
	else if (pid > 0 && (p = proc_get(s, pid)))
		proc_frame(s, p, addr, &f);
	return ltap_symbols_frame_sym(s, &f, lines, out);
}
