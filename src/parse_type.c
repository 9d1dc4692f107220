/* parse_type.c - type annotations: pl.Tensor / pl.Tile / pl.Scalar /
 * pl.Tuple / pl.Array / named types, their views and memrefs, data types
 * and enum values, and the annotation cache that lets a repeated
 * annotation skip the lexer.  Also the source-text tables (SrcTable) that
 * cache and the integer-list cache (parse_expr.c) are built on.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptoopt/types.h"
#include "parse_int.h"

/* The entry for text s[0..n) with hash h, or the empty slot it would take. */
SrcKey *pp_src_slot(const SrcTable *t, const char *s, size_t n, uint64_t h)
{
	size_t j = h & (t->cap - 1);
	for (;;) {
		SrcKey *k = (SrcKey *)(void *)(t->slots + j * t->entry_size);
		if (!k->text || (k->hash == h && k->len == n && memcmp(k->text, s, n) == 0))
			return k;
		j = (j + 1) & (t->cap - 1);
	}
}

/* The entry for s[0..n), created (keyed, the rest zeroed) if absent. */
SrcKey *pp_src_claim(SrcTable *t, size_t entry_size, const char *s, size_t n, uint64_t h)
{
	if (2 * (t->n + 1) > t->cap) {
		size_t ncap = t->cap ? 2 * t->cap : 64;
		SrcTable old = *t;
		t->slots = xmalloc(ncap * entry_size);
		memset(t->slots, 0, ncap * entry_size);
		t->cap = ncap;
		t->entry_size = entry_size;
		for (size_t i = 0; i < old.cap; i++) {
			SrcKey *k = (SrcKey *)(void *)(old.slots + i * entry_size);
			if (k->text)
				memcpy(pp_src_slot(t, k->text, k->len, k->hash), k, entry_size);
		}
		free(old.slots);
	}
	SrcKey *k = pp_src_slot(t, s, n, h);
	if (!k->text) {
		t->n++;
		*k = (SrcKey){ s, (uint32_t)n, h };
	}
	return k;
}

/* A layout constant written as a Tensor annotation's element, pl.NZ or
 * pl.TensorLayout.NZ (x without its "pl."): the layout's name ("NZ"), or
 * NULL when x is none. */
static const char *layout_shorthand(const char *x)
{
	static const char *const layouts[] = { "ND", "DN", "NZ", "MX_A_ZZ", "MX_B_NN" };
	if (!strncmp(x, "TensorLayout.", 13))
		x += 13;
	for (size_t i = 0; i < sizeof layouts / sizeof *layouts; i++)
		if (!strcmp(x, layouts[i]))
			return x;
	return NULL;
}

/* Enum spelling -> value through a cache keyed by the interned spelling
 * (the spellings of different enums never collide: "FP32", "Mem.Vec"). */
static int cached_enum(Parser *p, const char *interned, const char *spelling, int (*fn)(const char *))
{
	uintptr_t v = (uintptr_t)pmap_get(&p->enum_cache, interned);
	if (v)
		return (int)v - 2;
	int r = fn(spelling);
	pmap_put(&p->enum_cache, interned, (void *)(uintptr_t)(r + 2));
	return r;
}

const char *pp_enum_did_you_mean(Parser *p, const char *word, int (*lookup_fn)(const char *), const char *prefix)
{
	const char *c[DT_COUNT + 1];
	int n = 0;
	if (lookup_fn == ir_dtype_parse)
		for (int i = 0; i < DT_COUNT; i++)
			c[n++] = ir_dtype_name((DType)i);
	else if (lookup_fn == ir_mem_parse)
		for (int i = 0; i < MS_COUNT; i++)
			c[n++] = ir_mem_name((MemSpace)i);
	else if (lookup_fn == ir_level_parse)
		for (int i = 0; i < LV_COUNT; i++)
			c[n++] = ir_level_name((Level)i);
	else if (lookup_fn == ir_role_parse)
		for (int i = 0; i < RL_COUNT; i++)
			c[n++] = ir_role_name((Role)i);
	else if (lookup_fn == ir_functype_parse)
		for (int i = 0; i < FT_COUNT; i++)
			c[n++] = ir_functype_name((FuncType)i);
	else if (lookup_fn == ir_split_parse)
		for (int i = 0; i < SPLIT_COUNT; i++)
			c[n++] = ir_split_name((SplitMode)i);
	c[n] = NULL;
	return pp_did_you_mean(p, word, c, prefix);
}

DType pp_dtype(Parser *p)
{
	const Token t = *peek(p);
	const char *d = dotted_after(p, "pl");
	int dt = d ? cached_enum(p, d, d, ir_dtype_parse) : -1;
	if (dt < 0 && d)
		PERR_AT(p, &t, "unknown data type pl.%s (expected one such as pl.FP32)%s", d,
			pp_enum_did_you_mean(p, d, ir_dtype_parse, "pl."));
	if (dt < 0)
		PERR_AT(p, &t, "expected a data type such as pl.FP32");
	return (DType)dt;
}

int pp_enum(Parser *p, const char *ns, int (*lookup_fn)(const char *), const char *what)
{
	const Token t = *peek(p);
	const char *d = dotted_after(p, "pl");
	size_t nl = strlen(ns);
	int v = -1;
	if (d && strncmp(d, ns, nl) == 0 && d[nl] == '.') {
		v = cached_enum(p, d, d + nl + 1, lookup_fn);
		if (v < 0)
			PERR_AT(p, &t, "Unknown %s value: %s (expected %s)%s", ns, d + nl + 1, what,
				pp_enum_did_you_mean(p, d + nl + 1, lookup_fn, arena_printf(p->a, "pl.%s.", ns)));
	}
	if (v < 0)
		PERR_AT(p, &t, "expected %s", what);
	return v;
}

/* `[e, ...]` or `(e, ...)` (trailing comma allowed) as an array of exprs;
 * `what` names the expected form in the error. */
Expr **pp_expr_list(Parser *p, int *n, const char *what)
{
	const Token *t = peek(p);
	if (!tok_is_op(t, "[") && !tok_is_op(t, "("))
		PERR_AT(p, t, "expected %s, found %s", what, pp_describe(t));
	const char *close = tok_is_op(t, "[") ? "]" : ")";
	skip(p);
	PtrVec v = ARENA_VEC(p->a);
	while (!at_op(p, close)) {
		vec_push(&v, pp_expr(p));
		if (!accept_op(p, ","))
			break;
	}
	expect_op(p, close);
	return (Expr **)vec_finish(p->a, &v, n);
}

static Expr **parse_shape(Parser *p, int *n) { return pp_expr_list(p, n, "a shape list '[...]'"); }

/* The Python constructors' parameters in order (what a positional argument
 * binds to when the reference's Python evaluates a signature's annotation). */
static const char *const tensor_view_python_order[] = { "stride", "layout", "valid_shape", "pad", NULL };
static const char *const tile_view_python_order[] = {
	"valid_shape", "stride", "start_offset", "blayout", "slayout", "fractal", "pad", "compact", NULL,
};

/* pl.TensorView(...) / pl.TileView(...) arguments (keywords), `call` the
 * token of the dotted name.  The reference reads the view of a body's
 * annotation with its own resolver (no positional arguments, its "Unknown
 * keyword" message, the layout defaulting to ND); in a signature Python has
 * called the constructor first, whose errors come first (an unexpected
 * keyword, a TensorView without layout). */
static ViewSpec *parse_view(Parser *p, const char *const *allowed, const char *what, const Token *call)
{
	bool tensor = !strcmp(what, "TensorView");
	const char *const *order = tensor ? tensor_view_python_order : tile_view_python_order;
	expect_op(p, "(");
	PtrVec names = ARENA_VEC(p->a), vals = ARENA_VEC(p->a);
	/* copies: peek()'s token is gone once the lexer moves on */
	Token unknown_tok, call_tok = *call;
	const Token *unknown = NULL;
	bool positional = false;
	int npos = 0;
	while (!at_op(p, ")")) {
		const Token *t = peek(p);
		const char *name = NULL;
		if (t->kind == TK_NAME && tok_is_op(peek_at(p, 1), "=")) {
			Token k = next(p);
			skip(p);
			name = k.text;
			bool ok = false;
			for (int i = 0; allowed[i]; i++)
				ok |= strcmp(allowed[i], name) == 0;
			if (!ok && !unknown) {
				unknown_tok = k;
				unknown = &unknown_tok;
			}
		} else {
			positional = true;
			name = order[npos] ? intern_cstr(p->a, order[npos]) : "";
			npos++;
		}
		vec_push(&names, (void *)name);
		vec_push(&vals, pp_kwval(p));
		if (!accept_op(p, ","))
			break;
	}
	const char *close_src = peek(p)->src;
	expect_op(p, ")");
	const char *err = NULL;
	const Token *err_at = &call_tok;
	if (unknown && p->in_signature) {
		err = arena_printf(p->a, "TypeError: _%sMeta.__call__() got an unexpected keyword argument '%s'", what,
				   unknown->text);
		err_at = unknown;
	} else if (p->in_signature && tensor) {
		bool layout = false, other = false;
		for (size_t j = 0; j < names.len; j++) {
			const char *n = names.items[j];
			layout |= !strcmp(n, "layout");
			other |= !strcmp(n, "stride") || !strcmp(n, "valid_shape") || !strcmp(n, "pad");
		}
		if (other && !layout)
			err = "ValueError: layout is required when stride, valid_shape, or pad is provided";
	}
	if (!err && positional)
		err = arena_printf(p->a, "pl.%s() does not accept positional arguments, got: %.*s", what,
				   (int)(close_src + 1 - call_tok.src), call_tok.src);
	else if (!err && unknown) {
		err = arena_printf(p->a, "Unknown %s keyword argument: '%s'", what, unknown->text);
		err_at = unknown;
	}
	if (err) {
		vec_release(&names);
		vec_release(&vals);
		PERR_AT(p, err_at, "%s", err);
	}
	ViewSpec *vs = arena_alloc(p->a, sizeof *vs);
	vs->nkw = (int)names.len;
	vs->kw = arena_alloc(p->a, (names.len + 1) * sizeof *vs->kw);
	/* store in the canonical order of `allowed` */
	int k = 0;
	for (int i = 0; allowed[i]; i++)
		for (size_t j = 0; j < names.len; j++)
			if (strcmp(names.items[j], allowed[i]) == 0) {
				vs->kw[k].name = intern_cstr(p->a, allowed[i]);
				vs->kw[k].value = vals.items[j];
				k++;
			}
	vs->nkw = k;
	vec_release(&names);
	vec_release(&vals);
	return vs;
}

/* A TileView's valid_shape equal to the tile's shape says nothing: the
 * reference stores the view without it (and prints none). */
static void drop_full_valid_shape(Type *t)
{
	ViewSpec *v = t->view;
	for (int i = 0; i < v->nkw; i++) {
		const Expr *x = v->kw[i].value;
		if (strcmp(v->kw[i].name, "valid_shape") || x->kind != EX_TUPLE || x->nargs != t->ndim)
			continue;
		bool same = true;
		for (int k = 0; k < t->ndim && same; k++)
			same = expr_equal(x->args[k], t->shape[k]);
		if (!same)
			return;
		memmove(&v->kw[i], &v->kw[i + 1], (size_t)(v->nkw - i - 1) * sizeof *v->kw);
		v->nkw--;
		return;
	}
}

static const char *const tensor_view_fields[] = { "valid_shape", "stride", "layout", "pad", NULL };
static const char *const tile_view_fields[] = {
	"valid_shape", "stride", "start_offset", "blayout", "slayout", "fractal", "pad", "compact", NULL,
};

/* A pl.TensorView(...) annotation as the reference stores it: a valid_shape
 * equal to the shape is none, a view of nothing but the default layout is
 * no view, and any other has its stride (default []) and layout. */
static ViewSpec *tensor_view_canonical(Parser *p, ViewSpec *vs, const Type *t, const Token *at)
{
	Expr *valid = NULL, *stride = NULL, *layout = NULL, *pad = NULL;
	for (int i = 0; i < vs->nkw; i++) {
		const char *k = vs->kw[i].name;
		Expr *v = vs->kw[i].value;
		if (!strcmp(k, "valid_shape"))
			valid = v;
		else if (!strcmp(k, "stride"))
			stride = v;
		else if (!strcmp(k, "layout"))
			layout = v;
		else
			pad = v;
	}
	if (valid && valid->kind == EX_TUPLE && valid->nargs == t->ndim) {
		bool same = true;
		for (int i = 0; i < t->ndim && same; i++)
			same = expr_equal(valid->args[i], t->shape[i]);
		if (same)
			valid = NULL;
	}
	if (stride && stride->kind == EX_TUPLE && stride->nargs == 0)
		stride = NULL;
	bool nd = !layout || (layout->kind == EX_SYMBOL && !strcmp(layout->str, "pl.TensorLayout.ND"));
	if (!valid && !stride && !pad && nd)
		return NULL;
	if (!layout) { /* a body's annotation: the resolver's default */
		layout = ir_expr_new(p->a, EX_SYMBOL, pos_of(at));
		layout->str = intern_cstr(p->a, "pl.TensorLayout.ND");
	}
	ViewSpec *n = arena_alloc(p->a, sizeof *n);
	n->kw = arena_alloc(p->a, 5 * sizeof *n->kw);
	n->nkw = 0;
	if (valid)
		n->kw[n->nkw++] = (Kwarg){ intern_cstr(p->a, "valid_shape"), valid };
	n->kw[n->nkw++] = (Kwarg){ intern_cstr(p->a, "stride"), stride ? stride : pp_list(p, NULL, 0, pos_of(at)) };
	n->kw[n->nkw++] = (Kwarg){ intern_cstr(p->a, "layout"), layout };
	if (pad)
		n->kw[n->nkw++] = (Kwarg){ intern_cstr(p->a, "pad"), pad };
	return n;
}

/* Types are immutable, so equal annotations share one Type: a duplicate is
 * dropped again (arena_reset) and the first one returned.  This keeps
 * memory proportional to the distinct types, not to the annotations. */
static bool eq_type(const void *a, const void *b) { return type_equal(a, b); }

static Type *unique_type(Parser *p, Type *t, ArenaMark m)
{
	if (t->kind == TY_SCALAR)
		return t;
	uint64_t h = type_hash(t);
	Type *old = htab_find(&p->types, h, eq_type, t);
	if (old) {
		arena_reset(p->a, m);
		return old;
	}
	htab_add(&p->types, h, t);
	return t;
}

static Type *parse_type_raw(Parser *p);

/* ------------------------------------------------ annotation cache
 *
 * Almost every assignment repeats an annotation seen before
 * (`pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec]`), and parsing it again only
 * finds the hash-consed Type built the first time.  So the text of each
 * annotation that parsed is remembered with its Type, and the next
 * occurrence of the same bytes skips the lexer past them.
 *
 * That is exact only when a new parse would build an equal Type, and
 * fail nowhere:
 * - the text is one line of names, decimal integers, `[ ] ( ) , . = + - * / %`
 *   and spaces: no comment or string (the lexer queues / decodes those),
 *   no call other than pl.TensorView(...) / pl.TileView(...), no `self.`;
 * - every free name (not after `.`, not a keyword argument) resolves as it
 *   did then: the same local Var and the same module-level Global (a
 *   parameter of another function is another Var, so that is a miss);
 * - the Type hash-conses (its dims compare equal when rebuilt: no calls,
 *   dicts or NaN), so unique_type would have returned the cached one.
 * An annotation that fails to parse is never stored, so its error is
 * reported from a real parse, at the same place. */

#define ANN_MAX_NAMES 8
#define ANN_MAX_DEPTH 32

typedef struct AnnEntry {
	SrcKey key;           /* first: a SrcTable entry */
	struct AnnEntry *next_same_prefix; /* chain of p->ann_by_prefix */
	uint64_t last8;       /* its last 8 bytes, to pass over others of the chain quickly */
	Type *type;
	bool lit;             /* parser state the parse left behind */
	int nops;
	int nnames;
	const char *names[ANN_MAX_NAMES]; /* interned free names ... */
	Var *vars[ANN_MAX_NAMES];         /* ... and what they resolved to */
	Global *globals[ANN_MAX_NAMES];
} AnnEntry;

typedef struct AnnScan {
	const char *start, *end;
	int nnames;
	const char *name_at[ANN_MAX_NAMES];
	uint32_t name_len[ANN_MAX_NAMES];
} AnnScan;

enum { AC_OTHER, AC_IDENT, AC_DIGIT, AC_SPACE, AC_OPEN, AC_CLOSE, AC_PUNCT };
/* ann_class of ASCII bytes as digits (the AC_ values above); bytes >= 0x80
 * are AC_OTHER. */
static const char ann_classes[129] =
	"00000000000000000000000000000000"
	"30000600456666662222222222000600"
	"01111111111111111111111111140501"
	"01111111111111111111111111100000";
static inline int ann_class_of(unsigned char c) { return c < 128 ? ann_classes[c] - '0' : AC_OTHER; }

static bool ann_ident_char(unsigned char c) { int k = ann_class_of(c); return k == AC_IDENT || k == AC_DIGIT; }

/* The extent of the annotation starting at s (`NAME(.NAME)*[ ... ]`) and
 * its free names; false when it is not of the cacheable form. */
static bool ann_scan(const char *s, const char *end, AnnScan *sc)
{
	const char *q = s;
	sc->start = s;
	sc->nnames = 0;
	/* prefix: pl.Tensor / pld.DistributedTensor / tuple, no spaces */
	for (;;) {
		if (q >= end || ann_class_of((unsigned char)*q) != AC_IDENT)
			return false;
		while (q < end && ann_ident_char((unsigned char)*q))
			q++;
		if (q < end && *q == '.') {
			q++;
			continue;
		}
		break;
	}
	if (q >= end || *q != '[')
		return false;
	q++;
	int depth = 1;
	char prev = '['; /* last non-space byte */
	while (q < end) {
		unsigned char c = (unsigned char)*q;
		switch (ann_class_of(c)) {
		case AC_SPACE:
			q++;
			continue;
		case AC_IDENT: {
			const char *n = q;
			while (q < end && ann_ident_char((unsigned char)*q))
				q++;
			size_t len = (size_t)(q - n);
			const char *r = q;
			while (r < end && *r == ' ')
				r++;
			char after = r < end ? *r : 0;
			if (prev == '.') {
				/* an attribute; a call only as pl.TensorView( / pl.TileView( */
				if (after == '(' && !(len == 10 && !memcmp(n, "TensorView", 10)) &&
				    !(len == 8 && !memcmp(n, "TileView", 8)))
					return false;
			} else if (after == '.') {
				if (!(len == 2 && !memcmp(n, "pl", 2)) && !(len == 3 && !memcmp(n, "pld", 3)))
					return false; /* self.f, x.shape, ... */
			} else if (after == '(') {
				return false; /* a call */
			} else if (after == '=' && prev != '=') {
				/* keyword argument name: not looked up */
			} else {
				if (sc->nnames == ANN_MAX_NAMES)
					return false;
				sc->name_at[sc->nnames] = n;
				sc->name_len[sc->nnames++] = (uint32_t)len;
			}
			prev = 'a';
			continue;
		}
		case AC_DIGIT:
			while (q < end && ann_class_of((unsigned char)*q) == AC_DIGIT)
				q++;
			/* 1.5, 1e3, 0x10, 1_000: left to the real lexer */
			if (q < end && (ann_ident_char((unsigned char)*q) || *q == '.'))
				return false;
			prev = '0';
			continue;
		case AC_OPEN:
			if (++depth > ANN_MAX_DEPTH)
				return false;
			break;
		case AC_CLOSE:
			if (--depth == 0) {
				sc->end = q + 1;
				return true;
			}
			break;
		case AC_PUNCT:
			if (c == '=' && (prev == '=' || (q + 1 < end && q[1] == '=')))
				return false; /* == */
			break;
		default:
			return false; /* newline, comment, string, tab, {, <, ... */
		}
		prev = (char)c;
		q++;
	}
	return false;
}

static bool expr_conses(const Expr *e)
{
	switch (e->kind) {
	case EX_VAR: case EX_INT: case EX_BOOL: case EX_STR: case EX_SYMBOL:
		return true;
	case EX_FLOAT:
		return e->fval == e->fval;
	case EX_BINARY:
		return expr_conses(e->lhs) && expr_conses(e->rhs);
	case EX_UNARY: case EX_CAST: case EX_GETITEM:
		return expr_conses(e->lhs);
	case EX_TUPLE:
		for (int i = 0; i < e->nargs; i++)
			if (!expr_conses(e->args[i]))
				return false;
		return true;
	default:
		return false;
	}
}

/* Whether a Type rebuilt from the same text compares equal to t (see
 * type_equal / expr_equal), so that unique_type would return t. */
static bool type_conses(const Type *t)
{
	for (int i = 0; i < t->ndim; i++)
		if (!expr_conses(t->shape[i]))
			return false;
	if (t->view)
		for (int i = 0; i < t->view->nkw; i++)
			if (!expr_conses(t->view->kw[i].value))
				return false;
	for (int i = 0; i < t->nelems; i++)
		if (!type_conses(t->elems[i]))
			return false;
	return t->memref == NULL;
}

static bool ann_same_resolution(Parser *p, const AnnEntry *e)
{
	for (int i = 0; i < e->nnames; i++)
		if (pp_lookup(p, e->names[i]) != e->vars[i] || pmap_get(&p->globals, e->names[i]) != e->globals[i])
			return false;
	return true;
}

/* Which p->ann_by_prefix bucket the text at s (ANN_PREFIX bytes readable) is in. */
static size_t ann_prefix_bucket(const char *s)
{
	uint64_t h = (load8(s) ^ (load8(s + 8) * 0x9e3779b97f4a7c15ull)) * 0xff51afd7ed558ccdull;
	return (size_t)(h >> 32) & (ANN_PREFIX_BUCKETS - 1);
}

/* Entries of ANN_PREFIX bytes or more go on the chains (those longer than
 * ann_extent looks stay off, so both lookups find the same entries). */
static bool ann_chained(const AnnEntry *e) { return e->key.len >= ANN_PREFIX && e->key.len <= 512; }

static void ann_chain(Parser *p, AnnEntry *e)
{
	e->last8 = load8(e->key.text + e->key.len - 8);
	AnnEntry **b = &p->ann_by_prefix[ann_prefix_bucket(e->key.text)];
	e->next_same_prefix = *b;
	*b = e;
}

/* The cached entry whose text starts at s, through the chains: the stored
 * texts are prefix-free (each ends where its first bracket closes), so an
 * entry whose bytes s starts with is the one the full lookup would find.
 * A hit moves to the front of its chain. */
static AnnEntry *ann_find_by_prefix(Parser *p, const char *s, const char *end)
{
	if (end - s < ANN_PREFIX)
		return NULL;
	AnnEntry **head = &p->ann_by_prefix[ann_prefix_bucket(s)], **link = head;
	for (AnnEntry *e = *link; e; link = &e->next_same_prefix, e = *link)
		if (e->key.len <= (size_t)(end - s) && load8(s + e->key.len - 8) == e->last8 &&
		    memcmp(e->key.text, s, e->key.len) == 0) {
			if (link != head) { /* (a hit at the front, the common one, stays) */
				*link = e->next_same_prefix;
				e->next_same_prefix = *head;
				*head = e;
			}
			return e;
		}
	return NULL;
}

static void ann_store(Parser *p, const AnnScan *sc, uint64_t h, Type *t)
{
	const char *slots = p->ann.slots;
	size_t n = p->ann.n;
	AnnEntry *e = (AnnEntry *)(void *)pp_src_claim(&p->ann, sizeof(AnnEntry), sc->start, (size_t)(sc->end - sc->start), h);
	if (p->ann.slots != slots) {
		/* the table grew and its entries moved: chain them again */
		memset(p->ann_by_prefix, 0, sizeof p->ann_by_prefix);
		for (size_t i = 0; i < p->ann.cap; i++) {
			AnnEntry *k = (AnnEntry *)(void *)(p->ann.slots + i * p->ann.entry_size);
			if (k->key.text && ann_chained(k))
				ann_chain(p, k);
		}
	} else if (p->ann.n != n && ann_chained(e)) {
		ann_chain(p, e);
	}
	e->type = t;
	e->lit = p->lit;
	e->nops = p->nops;
	e->nnames = sc->nnames;
	for (int i = 0; i < sc->nnames; i++) {
		const char *name = intern(p->a, sc->name_at[i], sc->name_len[i]);
		e->names[i] = name;
		e->vars[i] = pp_lookup(p, name);
		e->globals[i] = pmap_get(&p->globals, name);
	}
}

/* ann_extent: 1 opens a bracket, 2 closes one, 3 ends the search */
static const unsigned char ann_extent_class[256] = {
	['['] = 1, ['('] = 1, [']'] = 2, [')'] = 2,
	['\n'] = 3, ['\r'] = 3, ['#'] = 3, ['"'] = 3, ['\''] = 3, [0] = 3,
};

/* Where the first bracket opened at or after s closes again (counting
 * `[ (` against `] )`), or NULL at a line end, comment or string.  For
 * the lookup only: bytes equal to a stored annotation's have the extent
 * and free names ann_scan found for it, so they need no full scan. */
static const char *ann_extent(const char *s, const char *end)
{
	int depth = 0;
	if (end - s > 512)
		end = s + 512;
	const unsigned char *q = (const unsigned char *)s, *e = (const unsigned char *)end;
	for (;; q++) {
		while (q < e && !ann_extent_class[*q])
			q++;
		if (q >= e)
			return NULL;
		switch (ann_extent_class[*q]) {
		case 1:
			depth++;
			break;
		case 2:
			if (--depth <= 0)
				return depth == 0 ? (const char *)q + 1 : NULL;
			break;
		default:
			return NULL; /* line end, comment, string, NUL */
		}
	}
}

/* Where the next token starts while the lexer has not scanned it (no
 * lookahead, mid-line: it starts after spaces at the scan position, as in
 * lex_fill's common case), else NULL.  A cached annotation found there is
 * skipped without lexing its first token only to drop it again. */
static const char *unscanned_token_src(const Lexer *lx)
{
	if (lx->nla || lx->pending_dedents || lx->at_line_start)
		return NULL;
	const char *q = lx->p;
	while (q < lx->end && *q == ' ')
		q++;
	return q;
}

static Type *ann_hit(Parser *p, const AnnEntry *e, const char *at, int line)
{
	p->last_line = line;
	lex_skip_to(&p->lx, at + e->key.len);
	p->lit = e->lit;
	p->nops = e->nops;
	return e->type;
}

Type *pp_type(Parser *p)
{
	const char *src = p->ann.cap ? unscanned_token_src(&p->lx) : NULL;
	if (src) {
		AnnEntry *e = ann_find_by_prefix(p, src, p->lx.end);
		if (e && ann_same_resolution(p, e))
			return ann_hit(p, e, src, p->lx.line);
	}
	const Token *t0 = peek(p);
	if (t0->kind == TK_NAME && p->ann.cap) {
		/* the chains first: they compare the bytes once, where the table
		 * needs the extent found and hashed before it can compare them */
		AnnEntry *e = ann_find_by_prefix(p, t0->src, p->lx.end);
		if (!e) {
			const char *end = ann_extent(t0->src, p->lx.end);
			if (end) {
				size_t n = (size_t)(end - t0->src);
				e = (AnnEntry *)(void *)pp_src_slot(&p->ann, t0->src, n, hash_bytes(t0->src, n));
				if (!e->key.text)
					e = NULL;
			}
		}
		if (e && ann_same_resolution(p, e))
			return ann_hit(p, e, t0->src, t0->line);
	}
	AnnScan sc = { .nnames = 0 };
	bool cacheable = t0->kind == TK_NAME && ann_scan(t0->src, p->lx.end, &sc);
	uint64_t h = cacheable ? hash_bytes(sc.start, (size_t)(sc.end - sc.start)) : 0;
	ArenaMark m = arena_mark(p->a);
	Type *t = unique_type(p, parse_type_raw(p), m);
	if (cacheable && type_conses(t)) {
		/* the parse must have ended exactly at the scanned end */
		const Lexer *lx = &p->lx;
		const char *at = lx->nla ? lx->la[lx->la_head].src : lx->p;
		const char *q = sc.end;
		while (q < at && *q == ' ')
			q++;
		if (q == at)
			ann_store(p, &sc, h, t);
	}
	return t;
}

static Type *parse_type_raw(Parser *p)
{
	const Token *t0 = peek(p);
	Token first = *t0;
	if (tok_is_name(t0, "tuple")) {
		/* only in return annotations: tuple[T1, T2] */
		skip(p);
		Type *tt = ir_type_new(p->a, TY_TUPLE);
		expect_op(p, "[");
		PtrVec v = ARENA_VEC(p->a);
		while (!at_op(p, "]")) {
			vec_push(&v, pp_type(p));
			if (!accept_op(p, ","))
				break;
		}
		if (!at_op(p, "]"))
			vec_release(&v);
		expect_op(p, "]");
		tt->elems = (Type **)vec_finish(p->a, &v, &tt->nelems);
		return tt;
	}
	const char *d = dotted_after(p, "pl");
	bool dist = false;
	if (!d && (d = dotted_after(p, "pld")))
		dist = true;
	if (!d)
		PERR_AT(p, &first, "expected a type such as pl.Tensor[[...], pl.FP32], found %s", pp_describe(&first));
	if (!dist && strcmp(d, "Scalar") == 0) {
		expect_op(p, "[");
		Type *t = ir_scalar_type(p->a, pp_dtype(p));
		expect_op(p, "]");
		return t;
	}
	if ((!dist && (strcmp(d, "Tensor") == 0 || strcmp(d, "Tile") == 0)) ||
	    (dist && strcmp(d, "DistributedTensor") == 0)) {
		bool tile = !dist && d[1] == 'i';
		Type *t = ir_type_new(p->a, tile ? TY_TILE : dist ? TY_DIST_TENSOR : TY_TENSOR);
		expect_op(p, "[");
		t->shape = parse_shape(p, &t->ndim);
		expect_op(p, ",");
		t->dtype = pp_dtype(p);
		/* a Tile takes its memref, memory space and view in any order (a
		 * memref needs the memory space); a Tensor a view or layout and
		 * then a memref, or a memref alone */
		const char *tname = tile ? "Tile" : dist ? "DistributedTensor" : "Tensor";
		Token memref_at = first;
		bool have_mem = false;
		int extra = 0;
		while (accept_op(p, ",")) {
			if (at_op(p, "]"))
				break;
			const Token *e = peek(p);
			Token et = *e;
			const char *x = dotted_after(p, "pl");
			if (!x)
				PERR_AT(p, &et, "unexpected %s in a type", pp_describe(&et));
			if (++extra > (tile ? 3 : 2))
				PERR_AT(p, &et, tile ? "Tile subscript requires [shape, dtype], [shape, dtype, tileview_or_memory_space], "
					"[shape, dtype, memref, memory_space], or [shape, dtype, memref, memory_space, tileview]"
					: "%s subscript requires [shape, dtype], [shape, dtype, layout_or_memref], or "
					"[shape, dtype, layout, memref]", tname);
			if (!tile && t->memref)
				PERR_AT(p, &first, "%s 4th argument must be pl.MemRef(...)", tname);
			if (strcmp(x, "MemRef") == 0) {
				if (t->memref)
					PERR_AT(p, &et, "Tile annotation can contain at most one memref argument");
				memref_at = et;
				t->memref = pp_memref(p, &p->memref_bases, pos_of(&et));
				continue;
			}
			if (!tile && extra == 2)
				PERR_AT(p, &et, "%s 4th argument must be pl.MemRef(...)", tname);
			int ms = -1;
			if (tile && strncmp(x, "Mem.", 4) == 0)
				ms = ir_mem_parse(x + 4);
			else if (tile && strncmp(x, "MemorySpace.", 12) == 0)
				ms = ir_mem_parse(x + 12); /* the long spelling of pl.Mem.X */
			if (!tile && strcmp(x, "TensorView") == 0) {
				t->view = tensor_view_canonical(p, parse_view(p, tensor_view_fields, "TensorView", &et), t, &et);
			} else if (tile && strcmp(x, "TileView") == 0) {
				if (t->view)
					PERR_AT(p, &et, "Tile annotation can contain at most one pl.TileView(...)");
				t->view = parse_view(p, tile_view_fields, "TileView", &et);
				drop_full_valid_shape(t);
				if (!t->view->nkw)
					t->view = NULL; /* all defaults: the implicit view, which the IR stores as none */
			} else if (ms >= 0) {
				if (have_mem)
					PERR_AT(p, &et, "Tile annotation can contain at most one memory-space argument");
				have_mem = true;
				t->mem = (MemSpace)ms;
			} else if (!tile && layout_shorthand(x)) {
				/* layout shorthand: pl.Tensor[[64], pl.FP16, pl.NZ] (or
				 * pl.TensorLayout.NZ); ND is the default, no view; DN is
				 * refused, as the reference refuses it */
				const char *l = layout_shorthand(x);
				if (!strcmp(l, "DN"))
					PERR_AT(p, &et, "pl.Tensor[..., pl.%s] is not supported: the DN layout-only shorthand forces two "
						"coordinate systems (IR-logical post-view vs. runtime row-major) onto one annotation", x);
				if (strcmp(l, "ND"))
					t->view = type_tensor_view_layout(p->a, arena_printf(p->a, "pl.TensorLayout.%s", l));
			} else {
				static const char *const tile_elems[] = { "TileView", "MemRef", NULL };
				static const char *const tensor_elems[] = {
					"TensorView", "MemRef", "ND", "DN", "NZ", "MX_A_ZZ", "MX_B_NN", NULL,
				};
				const char *hint = tile && !strncmp(x, "Mem.", 4) ? pp_enum_did_you_mean(p, x + 4, ir_mem_parse, "pl.Mem.")
						   : pp_did_you_mean(p, x, tile ? tile_elems : tensor_elems, "pl.");
				PERR_AT(p, &et, "unexpected 'pl.%s' in a %s type%s", x, tname, hint);
			}
		}
		if (tile && t->memref && !have_mem)
			PERR_AT(p, &memref_at, "Tile annotation with a memref argument must also specify explicit memory space");
		expect_op(p, "]");
		return t;
	}
	if (!dist && strcmp(d, "Tuple") == 0) {
		Type *t = ir_type_new(p->a, TY_TUPLE);
		expect_op(p, "[");
		if (at_op(p, "(") && tok_is_op(peek_at(p, 1), ")")) {
			skip(p);
			skip(p);
			expect_op(p, "]");
			return t;
		}
		PtrVec v = ARENA_VEC(p->a);
		while (!at_op(p, "]")) {
			vec_push(&v, pp_type(p));
			if (!accept_op(p, ","))
				break;
		}
		if (!at_op(p, "]"))
			vec_release(&v);
		expect_op(p, "]");
		t->elems = (Type **)vec_finish(p->a, &v, &t->nelems);
		return t;
	}
	if (!dist && strcmp(d, "Array") == 0) {
		Type *t = ir_type_new(p->a, TY_ARRAY);
		expect_op(p, "[");
		t->shape = arena_alloc(p->a, sizeof *t->shape);
		t->shape[0] = pp_expr(p);
		t->ndim = 1;
		expect_op(p, ",");
		t->dtype = pp_dtype(p);
		expect_op(p, "]");
		return t;
	}
	if (!dist && strcmp(d, "Ptr") == 0)
		return ir_type_new(p->a, TY_PTR);
	static const char *const named[] = {
		"MemRefType", "PrefetchAsyncContext", "AsyncEvent", "AsyncSession", "UnknownType", NULL,
	};
	if (dist && strcmp(d, "CommCtx") == 0) { /* the wrapper's spelling of pld.CommCtxType */
		Type *t = ir_type_new(p->a, TY_NAMED);
		t->name = intern_cstr(p->a, "pld.CommCtxType");
		return t;
	}
	static const char *const dnamed[] = { "WindowBufferType", "CommCtxType", NULL };
	const char *const *tab = dist ? dnamed : named;
	for (int i = 0; tab[i]; i++)
		if (strcmp(tab[i], d) == 0) {
			Type *t = ir_type_new(p->a, TY_NAMED);
			t->name = arena_printf(p->a, "%s.%s", dist ? "pld" : "pl", d);
			return t;
		}
	static const char *const all[] = {
		"Tensor", "Tile", "Scalar", "Tuple", "Array", "Ptr", "Out", "InOut",
		"MemRefType", "PrefetchAsyncContext", "AsyncEvent", "AsyncSession", "UnknownType", NULL,
	};
	static const char *const dall[] = { "DistributedTensor", "CommCtx", "WindowBufferType", "CommCtxType", NULL };
	PERR_AT(p, &first, "unknown type '%s.%s'%s", dist ? "pld" : "pl", d,
		pp_did_you_mean(p, d, dist ? dall : all, dist ? "pld." : "pl."));
}

