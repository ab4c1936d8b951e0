/* kallsyms.c: /proc/kallsyms read with one read loop and parsed in place:
 * no stdio, addresses read 8 digits at a time, and no sort of what the
 * kernel already sorted (its own symbols; those of modules and BPF programs
 * come after, unsorted). The text is what a 64-bit kernel prints: 16 digits
 * of address; other lines are skipped. */
#include "kallsyms.h"

#include "merge.h"
#include "readfile.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* every KSYM_STRIDE-th address: a lookup searches these few (in cache)
 * before one stride of the table, not the whole table of 3 MB */
#define KSYM_STRIDE 64

struct ltap_kallsyms {
	char *text; /* the strings, owned (NULL for a view) */
	const char *strings;
	struct ltap_ksym *syms; /* owned unless a view */
	size_t n;
	uint64_t *stride; /* syms[i * KSYM_STRIDE].addr */
	size_t nstride;
};

static int ksym_cmp(const void *a, const void *b)
{
	const struct ltap_ksym *x = a, *y = b;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

#define BYTES(b) (0x0101010101010101ull * (b))

/* The value of the 8 hexadecimal digits at p into *v, all at once (each
 * byte checked and made its digit's value, then pairs, quads and octets
 * joined); -1 when one is not a digit. */
static int kallsyms_hex8(const char *p, uint64_t *v)
{
	uint64_t x, low, digit, letter;

	memcpy(&x, p, sizeof x);
	low = x | BYTES(0x20);
	/* with every byte below 0x80, byte + k sets its top bit when byte >= 0x80 - k */
	digit = (x + BYTES(0x50)) & ~(x + BYTES(0x46));       /* 0x30 <= byte < 0x3a */
	letter = (low + BYTES(0x1f)) & ~(low + BYTES(0x19)); /* 0x61 <= (byte | 0x20) < 0x67 */
	if ((x & BYTES(0x80)) || ((digit | letter) & BYTES(0x80)) != BYTES(0x80))
		return -1;
	x = (x & BYTES(0x0f)) + ((x & BYTES(0x40)) >> 6) * 9;
	x = ((x << 4) | (x >> 8)) & 0x00ff00ff00ff00ffull;
	x = ((x << 8) | (x >> 16)) & 0x0000ffff0000ffffull;
	*v = ((x << 16) | (x >> 32)) & 0xffffffffull;
	return 0;
}

/* The address at the start of line (len bytes): 16 hexadecimal digits and a
 * blank, as a 64-bit kernel prints it; 0 for anything else. */
static uint64_t kallsyms_addr(const char *line, size_t len)
{
	uint64_t hi, lo;

	if (len < 20 || line[16] != ' ' || kallsyms_hex8(line, &hi) || kallsyms_hex8(line + 8, &lo))
		return 0;
	return hi << 32 | lo;
}

/* the stride index of k->syms; -1 without memory */
static int kallsyms_index(struct ltap_kallsyms *k)
{
	k->nstride = (k->n + KSYM_STRIDE - 1) / KSYM_STRIDE;
	if (k->nstride && !(k->stride = malloc(k->nstride * sizeof *k->stride)))
		return -1;
	for (size_t i = 0; i < k->nstride; i++)
		k->stride[i] = k->syms[i * KSYM_STRIDE].addr;
	return 0;
}

struct ltap_kallsyms *ltap_kallsyms_parse(char *text, size_t len)
{
	struct ltap_kallsyms *k = calloc(1, sizeof *k);
	size_t cap = 0;
	char *line, *end = text + len;

	if (!k) {
		free(text);
		return NULL;
	}
	k->strings = k->text = text;
	/* every line ends in '\n', which becomes its name's end */
	if (len && text[len - 1] != '\n') {
		char *t = realloc(text, len + 1);
		if (!t)
			goto fail;
		k->strings = k->text = text = t;
		text[len++] = '\n';
		end = text + len;
	}
	for (line = text; line < end;) {
		char *nl = memchr(line, '\n', (size_t)(end - line)), *name, *tab;
		uint64_t addr = kallsyms_addr(line, (size_t)(nl - line));

		/* "ADDR T NAME": code only (t, T, w, W); zeros under kptr_restrict
		 * are no use. The type is read only on a line with an address (20
		 * bytes or more): a shorter last line may end the buffer. */
		if (addr && line[18] == ' ' && ((line[17] | 0x20) == 't' || (line[17] | 0x20) == 'w')) {
			if (k->n == cap) {
				struct ltap_ksym *ns = realloc(k->syms, (cap = cap ? cap * 2 : 65536) * sizeof *ns);
				if (!ns)
					goto fail;
				k->syms = ns;
			}
			*nl = 0;
			name = line + 19;
			tab = memchr(name, '\t', (size_t)(nl - name));
			if (tab)
				*tab = 0;
			k->syms[k->n++] = (struct ltap_ksym){addr, (uint32_t)(name - text),
							     tab ? (uint32_t)(tab + 1 - text) : LTAP_KSYM_KERNEL};
		}
		line = nl + 1;
	}
	/* the kernel's own symbols come sorted, those of modules and BPF after */
	if (ltap_merge_tail(k->syms, ltap_sorted_head(k->syms, k->n, sizeof *k->syms, ksym_cmp), k->n,
			    sizeof *k->syms, ksym_cmp))
		goto fail;
	if (kallsyms_index(k))
		goto fail;
	return k;
fail:
	ltap_kallsyms_free(k);
	errno = ENOMEM;
	return NULL;
}

struct ltap_kallsyms *ltap_kallsyms_load(const char *path)
{
	size_t len;
	/* read to the end: the file has no size */
	char *text = ltap_file_read(path, LTAP_KALLSYMS_MAX, &len);

	return text ? ltap_kallsyms_parse(text, len) : NULL;
}

void ltap_kallsyms_free(struct ltap_kallsyms *k)
{
	if (!k)
		return;
	if (k->text)
		free(k->syms);
	free(k->stride);
	free(k->text);
	free(k);
}

int ltap_kallsyms_find(const struct ltap_kallsyms *k, uint64_t addr, const char **name, uint64_t *off,
		       const char **module)
{
	size_t lo = 0, hi = k->nstride;

	if (!k->n || addr < k->syms[0].addr)
		return -ENOENT;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (k->stride[mid] <= addr)
			lo = mid;
		else
			hi = mid;
	}
	lo *= KSYM_STRIDE;
	hi = lo + KSYM_STRIDE < k->n ? lo + KSYM_STRIDE : k->n;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (k->syms[mid].addr <= addr)
			lo = mid;
		else
			hi = mid;
	}
	*name = k->strings + k->syms[lo].name;
	*off = addr - k->syms[lo].addr;
	*module = k->syms[lo].module == LTAP_KSYM_KERNEL ? "[kernel.kallsyms]" : k->strings + k->syms[lo].module;
	return 0;
}

struct ltap_kallsyms *ltap_kallsyms_view(const struct ltap_ksym *syms, size_t n, const char *strings)
{
	struct ltap_kallsyms *k = calloc(1, sizeof *k);

	if (!k)
		return NULL;
	k->syms = (struct ltap_ksym *)syms; /* only read: k->text is NULL */
	k->n = n;
	k->strings = strings;
	if (kallsyms_index(k)) {
		free(k);
		return NULL;
	}
	return k;
}

const struct ltap_ksym *ltap_kallsyms_records(const struct ltap_kallsyms *k, size_t *n, const char **strings)
{
	*n = k->n;
	*strings = k->strings;
	return k->syms;
}

size_t ltap_kallsyms_count(const struct ltap_kallsyms *k)
{
	return k->n;
}
