/* elffile.c: an ELF file through elfutils' libelf: its loadable segments and
 * build id read when it is opened, its SDT notes when asked. Its symbols
 * are symtab.c's (through dwfile.h). */
#include "elffile.h"

#include "elfscn.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define ELF_MAX_LOADS 16

struct elf_load {
	uint64_t off, vaddr, filesz, memsz;
};

struct ltap_elf {
	int fd; /* -1 once taken */
	Elf *elf;
	struct elf_load loads[ELF_MAX_LOADS];
	int nloads;
	const unsigned char *build_id;
	size_t build_id_len;
	struct ltap_sdt *sdts;
	int nsdts;
};

/* The loadable segments, once: every address <-> offset question uses them. */
static void elf_read_loads(struct ltap_elf *e)
{
	size_t n;

	if (elf_getphdrnum(e->elf, &n))
		return;
	for (size_t i = 0; i < n && e->nloads < ELF_MAX_LOADS; i++) {
		GElf_Phdr ph;
		if (gelf_getphdr(e->elf, (int)i, &ph) && ph.p_type == PT_LOAD)
			e->loads[e->nloads++] = (struct elf_load){ph.p_offset, ph.p_vaddr, ph.p_filesz, ph.p_memsz};
	}
}

/* The build id, from the notes the loader maps (PT_NOTE), as libdwfl finds it. */
static void elf_read_build_id(struct ltap_elf *e)
{
	size_t n;

	if (elf_getphdrnum(e->elf, &n))
		return;
	for (size_t i = 0; i < n && !e->build_id; i++) {
		GElf_Phdr ph;
		Elf_Data *data;
		GElf_Nhdr nh;
		size_t off = 0, name_off, desc_off;

		if (!gelf_getphdr(e->elf, (int)i, &ph) || ph.p_type != PT_NOTE ||
		    !(data = elf_getdata_rawchunk(e->elf, (int64_t)ph.p_offset, ph.p_filesz, ELF_T_NHDR)))
			continue;
		while ((off = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0)
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 && nh.n_descsz > 0 &&
			    memcmp((const char *)data->d_buf + name_off, "GNU", 4) == 0) {
				e->build_id = (const unsigned char *)data->d_buf + desc_off;
				e->build_id_len = nh.n_descsz;
				break;
			}
	}
}

struct ltap_elf *ltap_elf_open(const char *path)
{
	struct ltap_elf *e = calloc(1, sizeof *e);
	struct stat st;

	if (!e)
		return NULL;
	elf_version(EV_CURRENT);
	/* a path from a traced process's mappings may since name a FIFO: never wait on it */
	e->fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (e->fd < 0) {
		free(e);
		return NULL;
	}
	if (fstat(e->fd, &st) != 0 || !S_ISREG(st.st_mode) ||
	    !(e->elf = elf_begin(e->fd, ELF_C_READ_MMAP, NULL)) || elf_kind(e->elf) != ELF_K_ELF) {
		ltap_elf_close(e);
		errno = ENOEXEC;
		return NULL;
	}
	elf_read_loads(e);
	elf_read_build_id(e);
	return e;
}

void ltap_elf_close(struct ltap_elf *e)
{
	if (!e)
		return;
	if (e->elf)
		elf_end(e->elf);
	if (e->fd >= 0)
		close(e->fd);
	free(e->sdts);
	free(e);
}

Elf *ltap_elf_handle(struct ltap_elf *e)
{
	return e->elf;
}

int ltap_elf_take_fd(struct ltap_elf *e)
{
	int fd = e->fd;

	/* the whole file is mapped (ELF_C_READ_MMAP): libelf needs the descriptor no more */
	if (fd >= 0 && elf_cntl(e->elf, ELF_C_FDDONE) != 0)
		return -1;
	e->fd = -1;
	return fd;
}

uint32_t ltap_elf_crc32(struct ltap_elf *e)
{
	size_t size = 0;
	const unsigned char *p = (const unsigned char *)elf_rawfile(e->elf, &size);
	uint32_t crc = 0xffffffffu;

	/* the CRC-32 of zlib and of .gnu_debuglink, a bit at a time: only files
	 * without a build id get here */
	for (size_t i = 0; p && i < size; i++) {
		crc ^= p[i];
		for (int k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1)));
	}
	return crc ^ 0xffffffffu;
}

size_t ltap_elf_build_id(struct ltap_elf *e, const unsigned char **id)
{
	*id = e->build_id;
	return e->build_id_len;
}

int ltap_elf_addr_offset(struct ltap_elf *e, uint64_t addr, uint64_t *offset)
{
	for (int i = 0; i < e->nloads; i++)
		if (addr >= e->loads[i].vaddr && addr - e->loads[i].vaddr < e->loads[i].memsz) {
			*offset = addr - e->loads[i].vaddr + e->loads[i].off;
			return 0;
		}
	return -1;
}

int ltap_elf_offset_addr(struct ltap_elf *e, uint64_t offset, uint64_t *addr)
{
	for (int i = 0; i < e->nloads; i++)
		if (offset >= e->loads[i].off && offset - e->loads[i].off < e->loads[i].filesz) {
			*addr = offset - e->loads[i].off + e->loads[i].vaddr;
			return 0;
		}
	return -1;
}

static void elf_add_sdt(struct ltap_elf *e, const char *desc, size_t len, uint64_t base_now, int cap)
{
	uint64_t pc, base, sem;
	const char *prov, *name, *args, *end = desc + len;
	struct ltap_sdt *s;

	if (e->nsdts >= cap || len < 24)
		return;
	memcpy(&pc, desc, 8);
	memcpy(&base, desc + 8, 8);
	memcpy(&sem, desc + 16, 8);
	prov = desc + 24;
	name = memchr(prov, 0, (size_t)(end - prov));
	if (!name++ || name >= end)
		return;
	args = memchr(name, 0, (size_t)(end - name));
	if (!args++ || args > end)
		return;
	if (base && base_now) {
		pc += base_now - base;
		if (sem)
			sem += base_now - base;
	}
	s = &e->sdts[e->nsdts];
	memset(s, 0, sizeof *s);
	snprintf(s->provider, sizeof s->provider, "%s", prov);
	snprintf(s->name, sizeof s->name, "%s", name);
	snprintf(s->args, sizeof s->args, "%.*s", (int)strnlen(args, (size_t)(end - args)), args);
	if (ltap_elf_addr_offset(e, pc, &s->pc_offset))
		return;
	if (sem && ltap_elf_addr_offset(e, sem, &s->sem_offset))
		return;
	e->nsdts++;
}

/* The notes of .note.stapsdt. Their addresses are link-time ones; when the
 * file was prelinked they moved with .stapsdt.base, whose address the note
 * also records. */
int ltap_elf_sdts(struct ltap_elf *e, const struct ltap_sdt **sdts)
{
	const struct ltap_scn *base;
	struct ltap_scns *scns;
	uint64_t base_now;
	int cap = 4096;

	if (e->sdts || e->nsdts) {
		*sdts = e->sdts;
		return e->nsdts;
	}
	e->sdts = calloc((size_t)cap, sizeof *e->sdts);
	if (!e->sdts || !(scns = ltap_scns_new(e->elf)))
		return -ENOMEM;
	base = ltap_scns_named(scns, ".stapsdt.base");
	base_now = base ? base->sh.sh_addr : 0;
	for (size_t i = 0; i < scns->n; i++) {
		Elf_Data *data;
		GElf_Nhdr nh;
		size_t off = 0, name_off, desc_off;

		if (scns->v[i].sh.sh_type != SHT_NOTE)
			continue;
		data = elf_getdata(scns->v[i].scn, NULL);
		while (data && (off = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
			const char *nm = (const char *)data->d_buf + name_off;
			if (nh.n_type == 3 && nh.n_namesz == 8 && strcmp(nm, "stapsdt") == 0)
				elf_add_sdt(e, (const char *)data->d_buf + desc_off, nh.n_descsz, base_now, cap);
		}
	}
	ltap_scns_free(scns);
	*sdts = e->sdts;
	return e->nsdts;
}
