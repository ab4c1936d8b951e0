/* luadump.c: a Lua 5.4 function read from lua_dump (stripped), as
 * ldump.c writes it: a header (signature, version 0x54, format 0, the
 * check bytes, the sizes of an instruction, an integer and a float, an
 * integer and a float to check them), the main closure's upvalue count,
 * then the function: source, first and last line, parameters, vararg
 * flag, stack size, code, constants, upvalues, nested functions, debug
 * information. Sizes are big-endian base-128, the last byte marked by its
 * top bit. Anything else is refused: the reader never guesses. */
#include "luadump.h"

#include "grow.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define DUMP_VERSION 0x54
#define DUMP_FORMAT 0
#define DUMP_DATA "\x19\x93\r\n\x1a\n"
#define DUMP_INSN 4

/* ldump.c's tags: makevariant(type, variant) */
enum { TAG_NIL = 0, TAG_FALSE = 1, TAG_TRUE = 17, TAG_INT = 3, TAG_FLOAT = 19, TAG_SHRSTR = 4, TAG_LNGSTR = 20 };

struct dump_out {
	unsigned char *p;
	size_t len, cap, max;
	int failed;
};

static int dump_write(lua_State *L, const void *b, size_t sz, void *ud)
{
	struct dump_out *o = ud;
	(void)L;

	if (o->failed || sz > o->max - o->len) {
		o->failed = 1;
		return 1;
	}
	if (ltap_grow(&o->p, &o->cap, o->len + sz, 1, 256)) {
		o->failed = 1;
		return 1;
	}
	memcpy(o->p + o->len, b, sz);
	o->len += sz;
	return 0;
}

struct rd {
	const unsigned char *p, *end;
	int bad;
};

static unsigned rd_byte(struct rd *r)
{
	if (r->p >= r->end) {
		r->bad = 1;
		return 0;
	}
	return *r->p++;
}

static const unsigned char *rd_skip(struct rd *r, size_t n)
{
	const unsigned char *at = r->p;

	if ((size_t)(r->end - r->p) < n) {
		r->bad = 1;
		return NULL;
	}
	r->p += n;
	return at;
}

static size_t rd_size(struct rd *r)
{
	size_t x = 0;
	unsigned b;

	do {
		if (x > (SIZE_MAX >> 7)) {
			r->bad = 1;
			return 0;
		}
		b = rd_byte(r);
		x = (x << 7) | (b & 0x7f);
	} while (!(b & 0x80) && !r->bad);
	return x;
}

/* a count that must fit what is read after it */
static int rd_count(struct rd *r, int max)
{
	size_t n = rd_size(r);

	if (n > (size_t)max)
		r->bad = 1;
	return r->bad ? 0 : (int)n;
}

static int rd_header(struct rd *r)
{
	const unsigned char *sig = rd_skip(r, 4);

	if (!sig || memcmp(sig, LUA_SIGNATURE, 4) != 0 || rd_byte(r) != DUMP_VERSION || rd_byte(r) != DUMP_FORMAT)
		return -1;
	sig = rd_skip(r, sizeof DUMP_DATA - 1);
	if (!sig || memcmp(sig, DUMP_DATA, sizeof DUMP_DATA - 1) != 0 || rd_byte(r) != DUMP_INSN ||
	    rd_byte(r) != sizeof(lua_Integer) || rd_byte(r) != sizeof(lua_Number))
		return -1;
	rd_skip(r, sizeof(lua_Integer) + sizeof(lua_Number)); /* the check numbers: the same Lua wrote them */
	rd_byte(r);                                            /* the main closure's upvalues */
	return r->bad ? -1 : 0;
}

static int rd_function(struct rd *r, struct ltap_luafn *fn)
{
	size_t n = rd_size(r); /* the source: none when stripped */

	if (n)
		rd_skip(r, n - 1);
	rd_size(r); /* first line */
	rd_size(r); /* last line */
	fn->numparams = (int)rd_byte(r);
	fn->is_vararg = (int)rd_byte(r);
	fn->maxstack = (int)rd_byte(r);
	fn->ncode = rd_count(r, 1 << 20);
	fn->code = rd_skip(r, (size_t)fn->ncode * DUMP_INSN);
	fn->nk = rd_count(r, LTAP_LUAFN_MAXK);
	for (int i = 0; i < fn->nk && !r->bad; i++) {
		unsigned tag = rd_byte(r);
		switch (tag) {
		case TAG_NIL: fn->k[i].kind = LTAP_LUAK_NIL; break;
		case TAG_FALSE:
		case TAG_TRUE:
			fn->k[i].kind = LTAP_LUAK_BOOL;
			fn->k[i].bytes = r->p - 1; /* the tag tells which */
			fn->k[i].len = 1;
			break;
		case TAG_INT:
		case TAG_FLOAT:
			fn->k[i].kind = tag == TAG_INT ? LTAP_LUAK_INT : LTAP_LUAK_FLOAT;
			fn->k[i].len = tag == TAG_INT ? sizeof(lua_Integer) : sizeof(lua_Number);
			fn->k[i].bytes = rd_skip(r, fn->k[i].len);
			break;
		case TAG_SHRSTR:
		case TAG_LNGSTR:
			fn->k[i].kind = LTAP_LUAK_STRING;
			if ((n = rd_size(r)) == 0) {
				r->bad = 1; /* a constant string is never absent */
				break;
			}
			fn->k[i].len = n - 1;
			fn->k[i].bytes = rd_skip(r, n - 1);
			break;
		default: r->bad = 1;
		}
	}
	fn->nupv = rd_count(r, LTAP_LUAFN_MAXUPV);
	for (int i = 0; i < fn->nupv && !r->bad; i++) {
		rd_byte(r); /* in the enclosing function's stack */
		rd_byte(r); /* its index there */
		fn->upv_kind[i] = (unsigned char)rd_byte(r);
	}
	fn->nprotos = rd_count(r, 1 << 20);
	return r->bad ? -1 : 0;
}

int ltap_luafn_read(lua_State *L, int idx, size_t max_bytes, struct ltap_luafn *fn)
{
	struct dump_out o = {.max = max_bytes};
	struct rd r;
	int st;

	memset(fn, 0, sizeof *fn);
	if (lua_type(L, idx) != LUA_TFUNCTION || lua_iscfunction(L, idx))
		return -1;
	lua_pushvalue(L, idx);
	st = lua_dump(L, dump_write, &o, 1);
	lua_pop(L, 1);
	if (st != 0 || o.failed) {
		free(o.p);
		return -1;
	}
	fn->bytes = o.p;
	r = (struct rd){o.p, o.p + o.len, 0};
	if (rd_header(&r) || rd_function(&r, fn)) {
		ltap_luafn_free(fn);
		return -1;
	}
	return 0;
}

void ltap_luafn_free(struct ltap_luafn *fn)
{
	free(fn->bytes);
	memset(fn, 0, sizeof *fn);
}
