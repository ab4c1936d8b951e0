/* proc.c: open-addressing hash of tasks, grown on new tasks only. */
#include "proc.h"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Any int is a tid: a replayed trace may name INT_MAX or -1, so a slot's
 * use is its own flag, not a reserved key value. */
struct proc_entry {
	int tid;
	int tgid;
	char comm[16];
	unsigned char used;
	unsigned char known;    /* tgid and comm read or told (not a mark's entry) */
	unsigned char followed; /* ltap_proc_follow */
};

struct ltap_proc {
	struct proc_entry *tab;
	uint32_t mask, used;
	/* replay: names come from the saved trace, never from this machine's /proc */
	const char *(*lookup)(void *ud, int tid);
	void *lookup_ud;
	unsigned gen; /* changes when a known task's name or process changes */
};

struct ltap_proc *ltap_proc_new(void)
{
	struct ltap_proc *p = calloc(1, sizeof *p);
	if (!p)
		return NULL;
	p->mask = 4095;
	p->tab = calloc(p->mask + 1, sizeof *p->tab);
	if (!p->tab) {
		free(p);
		return NULL;
	}
	return p;
}

void ltap_proc_free(struct ltap_proc *p)
{
	if (!p)
		return;
	free(p->tab);
	free(p);
}

/* Blocks of 16 consecutive tids share 16 consecutive slots, the blocks
 * scattered: the children a shell forks one after another (new tids in
 * order) land on the same few cache lines and page, where each would be a
 * cache and TLB miss of its own; scattered blocks keep runs of tids from
 * forming one long cluster of probes. */
static uint32_t proc_hash(int tid)
{
	return ((uint32_t)tid >> 4) * 2654435761u << 4 | ((uint32_t)tid & 15);
}

static struct proc_entry *proc_slot(struct proc_entry *tab, uint32_t mask, int tid)
{
	uint32_t i = proc_hash(tid) & mask;
	while (tab[i].used && tab[i].tid != tid)
		i = (i + 1) & mask;
	return &tab[i];
}

static int proc_grow(struct ltap_proc *p)
{
	uint32_t nmask = p->mask * 2 + 1;
	struct proc_entry *nt = calloc(nmask + 1, sizeof *nt);
	if (!nt)
		return -1;
	for (uint32_t i = 0; i <= p->mask; i++)
		if (p->tab[i].used)
			*proc_slot(nt, nmask, p->tab[i].tid) = p->tab[i];
	free(p->tab);
	p->tab = nt;
	p->mask = nmask;
	return 0;
}

static void proc_read(struct ltap_proc *p, int tid, struct proc_entry *e)
{
	char path[64], line[256];
	FILE *f;

	e->tgid = tid;
	snprintf(e->comm, sizeof e->comm, "%s", tid == 0 ? "swapper" : "<...>");
	if (tid == 0)
		return;
	if (p->lookup) {
		const char *c = p->lookup(p->lookup_ud, tid);
		if (c)
			snprintf(e->comm, sizeof e->comm, "%.15s", c);
		return;
	}
	snprintf(path, sizeof path, "/proc/%d/status", tid);
	f = fopen(path, "r");
	if (!f)
		return;
	while (fgets(line, sizeof line, f)) {
		if (strncmp(line, "Name:\t", 6) == 0) {
			line[strcspn(line, "\n")] = 0;
			snprintf(e->comm, sizeof e->comm, "%.15s", line + 6);
		} else if (strncmp(line, "Tgid:\t", 6) == 0) {
			e->tgid = atoi(line + 6);
			break;
		}
	}
	fclose(f);
}

static struct proc_entry *proc_get(struct ltap_proc *p, int tid, int load)
{
	struct proc_entry *e = proc_slot(p->tab, p->mask, tid);

	if (e->used) {
		if (load && !e->known) { /* made by a mark: the task is read now */
			proc_read(p, tid, e);
			p->gen++;
		}
		e->known |= (unsigned char)load;
		return e;
	}
	if ((p->used + 1) * 2 > p->mask + 1) {
		if (proc_grow(p) < 0)
			return NULL;
		e = proc_slot(p->tab, p->mask, tid);
	}
	e->used = 1;
	e->tid = tid;
	e->known = (unsigned char)load;
	p->used++;
	if (load)
		proc_read(p, tid, e);
	else {
		e->tgid = tid;
		strcpy(e->comm, "<...>");
	}
	return e;
}

const char *ltap_proc_comm(struct ltap_proc *p, int tid)
{
	struct proc_entry *e = proc_get(p, tid, 1);
	return e ? e->comm : "<...>";
}

unsigned ltap_proc_generation(const struct ltap_proc *p)
{
	return p->gen;
}

const unsigned *ltap_proc_generation_ref(const struct ltap_proc *p)
{
	return &p->gen;
}

int ltap_proc_tgid(struct ltap_proc *p, int tid)
{
	struct proc_entry *e = proc_get(p, tid, 1);
	return e ? e->tgid : tid;
}

void ltap_proc_update(struct ltap_proc *p, int tid, int tgid, const char *comm)
{
	struct proc_entry *e = proc_get(p, tid, tgid < 0);
	if (!e)
		return;
	e->known = 1;
	p->gen++;
	if (tgid >= 0)
		e->tgid = tgid;
	if (comm) { /* per task event: no printf */
		size_t n = strnlen(comm, sizeof e->comm - 1);
		memcpy(e->comm, comm, n);
		e->comm[n] = 0;
	}
}

static int proc_is_number(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return 0;
	return 1;
}

int ltap_proc_seed(struct ltap_proc *p)
{
	DIR *d = opendir("/proc"), *td;
	struct dirent *de, *te;
	int n = 0;

	if (!d)
		return 0;
	while ((de = readdir(d)) != NULL) {
		char path[600];
		if (!proc_is_number(de->d_name))
			continue;
		snprintf(path, sizeof path, "/proc/%s/task", de->d_name);
		td = opendir(path);
		if (!td)
			continue;
		while ((te = readdir(td)) != NULL) {
			char comm[32];
			ssize_t r;
			int fd;
			if (!proc_is_number(te->d_name))
				continue;
			snprintf(path, sizeof path, "/proc/%s/task/%s/comm", de->d_name, te->d_name);
			fd = open(path, O_RDONLY | O_CLOEXEC);
			if (fd < 0)
				continue;
			r = read(fd, comm, sizeof comm - 1);
			close(fd);
			if (r <= 0)
				continue;
			comm[r] = 0;
			comm[strcspn(comm, "\n")] = 0;
			ltap_proc_update(p, atoi(te->d_name), atoi(de->d_name), comm);
			n++;
		}
		closedir(td);
	}
	closedir(d);
	return n;
}

void ltap_proc_follow(struct ltap_proc *p, int tid, int on)
{
	struct proc_entry *e = proc_get(p, tid, 0); /* the name is read when asked for */

	if (e)
		e->followed = (unsigned char)(on != 0);
}

int ltap_proc_followed(struct ltap_proc *p, int tid)
{
	struct proc_entry *e = proc_slot(p->tab, p->mask, tid);
	return e->used && e->followed;
}

void ltap_proc_set_lookup(struct ltap_proc *p, const char *(*lookup)(void *ud, int tid), void *ud)
{
	p->lookup = lookup;
	p->lookup_ud = ud;
}

char *ltap_proc_cmdlines(struct ltap_proc *p)
{
	size_t cap = 4096, len = 0;
	char *out = malloc(cap);

	if (!out)
		return NULL;
	out[0] = 0;
	for (uint32_t i = 0; i <= p->mask; i++) {
		if (!p->tab[i].used || !p->tab[i].known || p->tab[i].tid == 0)
			continue;
		if (len + 64 > cap) {
			char *n = realloc(out, cap *= 2);
			if (!n) {
				free(out);
				return NULL;
			}
			out = n;
		}
		len += (size_t)snprintf(out + len, cap - len, "%d %s\n", p->tab[i].tid, p->tab[i].comm);
	}
	return out;
}
