/* types.c - type equality, annotation merging and scalar expression typing. */
#include "ptoopt/types.h"

#include <stdio.h>
#include <string.h>

#include "ptoopt/print.h"
#include "ptoopt/strbuf.h"
#include "ptoopt/typerule.h"

/* deep: calls, dicts and tuples compared in full (op name, arguments,
 * keywords, attrs), as the arith analyzer matches patterns; else as dims,
 * where a call or dict is never equal to anything but itself. */
static bool equal(const Expr *a, const Expr *b, bool deep)
{
	if (a == b)
		return true;
	if (!a || !b || a->kind != b->kind)
		return false;
	switch (a->kind) {
	case EX_VAR: return a->var == b->var;
	case EX_INT: case EX_BOOL: return a->ival == b->ival && a->dtype == b->dtype;
	case EX_FLOAT: return a->fval == b->fval && a->dtype == b->dtype;
	case EX_STR: case EX_SYMBOL: return strcmp(a->str, b->str) == 0;
	case EX_BINARY: return a->op == b->op && equal(a->lhs, b->lhs, deep) && equal(a->rhs, b->rhs, deep);
	case EX_UNARY: return a->op == b->op && equal(a->lhs, b->lhs, deep);
	case EX_CAST: return a->dtype == b->dtype && equal(a->lhs, b->lhs, deep);
	case EX_GETITEM: return a->ival == b->ival && equal(a->lhs, b->lhs, deep);
	default:
		break;
	}
	if (!deep && a->kind != EX_TUPLE)
		return false;
	if (a->nargs != b->nargs)
		return false;
	for (int i = 0; i < a->nargs; i++)
		if (!equal(a->args[i], b->args[i], deep))
			return false;
	if (!deep)
		return true;
	if (a->nkw != b->nkw || a->spmd != b->spmd)
		return false;
	if ((a->str || b->str) && (!a->str || !b->str || strcmp(a->str, b->str)))
		return false;
	for (int i = 0; i < a->nkw; i++)
		if (strcmp(a->kw[i].name, b->kw[i].name) || !equal(a->kw[i].value, b->kw[i].value, deep))
			return false;
	if ((a->attrs != NULL) != (b->attrs != NULL))
		return false;
	return !a->attrs || equal(a->attrs, b->attrs, deep);
}

bool expr_equal(const Expr *a, const Expr *b) { return equal(a, b, false); }
bool expr_equal_deep(const Expr *a, const Expr *b) { return equal(a, b, true); }

static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
	return h;
}

static uint64_t str_hash(const char *s)
{
	uint64_t h = 1469598103934665603ull;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

uint64_t expr_hash(const Expr *e)
{
	if (!e)
		return 7;
	uint64_t h = mix(e->kind, e->op);
	switch (e->kind) {
	case EX_VAR: return mix(h, (uint64_t)(uintptr_t)e->var);
	case EX_INT: case EX_BOOL: case EX_GETITEM: h = mix(h, (uint64_t)e->ival); break;
	case EX_FLOAT: { uint64_t bits; memcpy(&bits, &e->fval, sizeof bits); h = mix(h, bits); break; }
	case EX_STR: case EX_SYMBOL: return mix(h, str_hash(e->str));
	default: break;
	}
	h = mix(h, e->dtype);
	h = mix(h, expr_hash(e->lhs));
	if (e->rhs)
		h = mix(h, expr_hash(e->rhs));
	for (int i = 0; i < e->nargs; i++)
		h = mix(h, expr_hash(e->args[i]));
	return h;
}

uint64_t type_hash(const Type *t)
{
	if (!t)
		return 3;
	uint64_t h = mix(t->kind, t->dtype);
	h = mix(h, (uint64_t)(t->mem + 1));
	for (int i = 0; i < t->ndim; i++)
		h = mix(h, expr_hash(t->shape[i]));
	if (t->view)
		for (int i = 0; i < t->view->nkw; i++)
			h = mix(mix(h, (uint64_t)(uintptr_t)t->view->kw[i].name), expr_hash(t->view->kw[i].value));
	for (int i = 0; i < t->nelems; i++)
		h = mix(h, type_hash(t->elems[i]));
	if (t->name)
		h = mix(h, str_hash(t->name));
	if (t->memref) {
		const MemRef *m = t->memref;
		h = mix(mix(h, (uint64_t)(uintptr_t)m->base), (uint64_t)m->size ^ (uint64_t)m->slots << 32);
		h = mix(mix(h, expr_hash(m->offset)), expr_hash(m->index));
	}
	return h;
}

static bool memref_equal(const MemRef *a, const MemRef *b)
{
	if (a == b)
		return true;
	if (!a || !b)
		return false;
	return a->base == b->base && a->pinned == b->pinned && a->size == b->size && a->slots == b->slots &&
	       expr_equal(a->offset, b->offset) && expr_equal(a->index, b->index);
}

static bool view_equal(const ViewSpec *a, const ViewSpec *b)
{
	if (!a || !b)
		return a == b;
	if (a->nkw != b->nkw)
		return false;
	for (int i = 0; i < a->nkw; i++)
		if (a->kw[i].name != b->kw[i].name || !expr_equal(a->kw[i].value, b->kw[i].value))
			return false;
	return true;
}

bool type_equal(const Type *a, const Type *b)
{
	if (a == b)
		return true;
	if (!a || !b || a->kind != b->kind)
		return false;
	switch (a->kind) {
	case TY_SCALAR:
		return a->dtype == b->dtype;
	case TY_TENSOR: case TY_DIST_TENSOR: case TY_TILE: case TY_ARRAY:
		/* (equal pointers first: views and dims are mostly shared) */
		if (a->dtype != b->dtype || a->ndim != b->ndim || a->mem != b->mem ||
		    (a->view != b->view && !view_equal(a->view, b->view)) || !memref_equal(a->memref, b->memref))
			return false;
		for (int i = 0; i < a->ndim; i++)
			if (a->shape[i] != b->shape[i] && !expr_equal(a->shape[i], b->shape[i]))
				return false;
		return true;
	case TY_TUPLE:
		if (a->nelems != b->nelems)
			return false;
		for (int i = 0; i < a->nelems; i++)
			if (!type_equal(a->elems[i], b->elems[i]))
				return false;
		return true;
	case TY_NAMED:
		return strcmp(a->name, b->name) == 0;
	default:
		return a->memref == b->memref;
	}
}

/* Reassignment: what the reference's _types_match lets through (its
 * structural equality, memrefs aside; symbolic dims are not compared). */
bool type_reassignable(const Type *a, const Type *b)
{
	if (!a || !b || a->kind == TY_UNKNOWN || b->kind == TY_UNKNOWN)
		return true;
	if (a->kind != b->kind)
		return false;
	if (a->kind == TY_TUPLE)
		return a->nelems == b->nelems;
	if (a->kind == TY_SCALAR)
		return a->dtype == b->dtype;
	if (a->kind != TY_TENSOR && a->kind != TY_TILE && a->kind != TY_DIST_TENSOR)
		return true;
	if (a->dtype != b->dtype || a->ndim != b->ndim || a->mem != b->mem ||
	    (a->view != b->view && !view_equal(a->view, b->view)))
		return false;
	for (int i = 0; i < a->ndim; i++)
		if (a->shape[i]->kind == EX_INT && b->shape[i]->kind == EX_INT && a->shape[i]->ival != b->shape[i]->ival)
			return false;
	return true;
}

void type_to_string(const Type *t, char *buf, size_t n)
{
	StrBuf b = { 0 };
	print_type(&b, t);
	size_t k = b.len < n - 1 ? b.len : n - 1;
	memcpy(buf, b.data ? b.data : "", k);
	buf[k] = 0;
	sb_release(&b);
}

static bool is_tensorish(const Type *t) { return t->kind == TY_TENSOR || t->kind == TY_DIST_TENSOR; }

/* Shapes must agree in rank and in every dim that is a constant on both
 * sides; symbolic dims may differ (pl.Tensor[[N], ...] for a [64] value). */
static bool shapes_agree(const Type *a, const Type *b)
{
	if (a->ndim != b->ndim)
		return false;
	for (int i = 0; i < a->ndim; i++)
		if (a->shape[i]->kind == EX_INT && b->shape[i]->kind == EX_INT && a->shape[i]->ival != b->shape[i]->ival)
			return false;
	return true;
}

static bool same_shape(const Type *a, const Type *b)
{
	if (a->ndim != b->ndim)
		return false;
	for (int i = 0; i < a->ndim; i++)
		if (!expr_equal(a->shape[i], b->shape[i]))
			return false;
	return true;
}

/* The reference's kind names in its annotation messages (type_resolver.py's
 * _TYPE_KIND_NAMES, else the class name). */
static const char *kind_name(const Type *t)
{
	switch (t->kind) {
	case TY_TENSOR: return "Tensor";
	case TY_TILE: return "Tile";
	case TY_SCALAR: return "Scalar";
	case TY_ARRAY: return "Array";
	case TY_DIST_TENSOR: return "DistributedTensorType";
	case TY_TUPLE: return "TupleType";
	case TY_PTR: return "PtrType";
	default: return "Type";
	}
}

/* INDEX is compatible with every integer dtype, both ways (_dtypes_compatible). */
static bool dtypes_compatible(DType a, DType b)
{
	return a == b || (a == DT_INDEX && ir_dtype_is_int(b) && b != DT_BOOL) ||
	       (b == DT_INDEX && ir_dtype_is_int(a) && a != DT_BOOL);
}

/* The reference's validate_annotation_consistency: kind, dtype, rank and
 * static dims, each with its message and the hint naming the inferred type.
 * Returns NULL after writing err. */
static Type *contradiction(const Type *ann, const Type *vt, const char *name, char *err, size_t n)
{
	char b[256], what[300];
	type_to_string(vt, b, sizeof b);
	if (ann->kind != vt->kind) {
		snprintf(what, sizeof what, "is %s but expression has type %s", kind_name(ann), kind_name(vt));
	} else if ((ann->kind == TY_SCALAR || ann->kind == TY_TENSOR || ann->kind == TY_TILE || ann->kind == TY_DIST_TENSOR) &&
		   !dtypes_compatible(ann->dtype, vt->dtype)) {
		snprintf(what, sizeof what, "has dtype %s but expression has dtype %s", tr_dtype_str(ann->dtype),
			 tr_dtype_str(vt->dtype));
	} else if (ann->ndim != vt->ndim) {
		snprintf(what, sizeof what, "has rank %d but expression has rank %d", ann->ndim, vt->ndim);
	} else {
		int i = 0;
		while (i < ann->ndim && !(ann->shape[i]->kind == EX_INT && vt->shape[i]->kind == EX_INT &&
					  ann->shape[i]->ival != vt->shape[i]->ival))
			i++;
		if (i < ann->ndim)
			snprintf(what, sizeof what, "has shape dimension %d = %lld but expression has shape dimension %d = %lld", i,
				 (long long)ann->shape[i]->ival, i, (long long)vt->shape[i]->ival);
		else
			snprintf(what, sizeof what, "contradicts the expression's type");
	}
	snprintf(err, n, "Type annotation for '%s' %s; change the annotation to %s", name ? name : "?", what, b);
	return NULL;
}

/* Which type the reference gives the target (spec §6.2, notes §7): the
 * inferred one, except that a scalar annotation on an INDEX value wins, a
 * Tile annotation contributes its memory space / view / shape, a Tensor
 * annotation with a view or memref wins, and an unknown value takes the
 * annotation.  A kind, rank, static-dim or tensor-dtype conflict is an
 * error. */
/* The implicit block / scatter layouts and fractal of a tile shape in a
 * memory space (the reference's GetImplicitTileView). */
static void implicit_tile_layout(const Type *t, MemSpace mem, const char *out[2], int64_t *fractal)
{
	out[0] = t->ndim == 2 && t->shape[0]->kind == EX_INT && t->shape[1]->kind == EX_INT && t->shape[1]->ival == 1 &&
			 t->shape[0]->ival > 1 ? "col_major" : "row_major";
	out[1] = "none_box";
	*fractal = 512;
	switch (mem) {
	case MS_MAT: case MS_LEFT: out[0] = "col_major", out[1] = "row_major"; break;
	case MS_RIGHT: out[1] = "col_major"; break;
	case MS_LEFT_SCALE: out[0] = "row_major", out[1] = "row_major", *fractal = 32; break;
	case MS_RIGHT_SCALE: out[0] = "col_major", out[1] = "col_major", *fractal = 32; break;
	case MS_ACC: out[0] = "col_major", out[1] = "row_major", *fractal = 1024; break;
	default: break;
	}
}

/* vt's TileView stated for memory space `mem`: an annotation that moves an
 * inferred tile to another space keeps the inferred view's fields, and the
 * layout fields implicit in the new space drop out of the view while those
 * implicit only in the old one appear (NULL when nothing is left). */
static ViewSpec *tile_view_in_mem(Arena *a, const Type *vt, MemSpace mem)
{
	const char *old[2], *imp[2], *eff[2];
	int64_t old_fr, imp_fr, eff_fr;
	implicit_tile_layout(vt, vt->mem, old, &old_fr);
	implicit_tile_layout(vt, mem, imp, &imp_fr);
	eff[0] = old[0], eff[1] = old[1], eff_fr = old_fr;
	const ViewSpec *v = vt->view;
	for (int i = 0; i < v->nkw; i++) {
		const char *n = v->kw[i].name;
		const Expr *x = v->kw[i].value;
		int slot = !strcmp(n, "blayout") ? 0 : !strcmp(n, "slayout") ? 1 : -1;
		if (slot >= 0 && x->kind == EX_SYMBOL && !strncmp(x->str, "pl.TileLayout.", 14))
			eff[slot] = x->str + 14;
		else if (!strcmp(n, "fractal") && x->kind == EX_INT)
			eff_fr = x->ival;
	}
	ViewSpec *vs = arena_alloc(a, sizeof *vs);
	vs->kw = arena_alloc(a, (size_t)(v->nkw + 4) * sizeof *vs->kw);
	vs->nkw = 0;
	static const char *const head[] = { "valid_shape", "stride", "start_offset" };
	for (int h = 0; h < 3; h++)
		for (int i = 0; i < v->nkw; i++)
			if (!strcmp(v->kw[i].name, head[h]))
				vs->kw[vs->nkw++] = v->kw[i];
	static const char *const lay[] = { "blayout", "slayout" };
	for (int s = 0; s < 2; s++)
		if (strcmp(eff[s], imp[s])) {
			char buf[64];
			snprintf(buf, sizeof buf, "pl.TileLayout.%s", eff[s]);
			Expr *x = ir_expr_new(a, EX_SYMBOL, (SrcPos){ 0, 0 });
			x->str = intern_cstr(a, buf);
			vs->kw[vs->nkw++] = (Kwarg){ intern_cstr(a, lay[s]), x };
		}
	if (eff_fr != imp_fr) {
		Expr *x = ir_expr_new(a, EX_INT, (SrcPos){ 0, 0 });
		x->ival = eff_fr;
		x->dtype = DT_INDEX;
		x->type = ir_scalar_type(a, DT_INDEX);
		vs->kw[vs->nkw++] = (Kwarg){ intern_cstr(a, "fractal"), x };
	}
	for (int i = 0; i < v->nkw; i++) {
		const char *n = v->kw[i].name;
		if (strcmp(n, "valid_shape") && strcmp(n, "stride") && strcmp(n, "start_offset") && strcmp(n, "blayout") &&
		    strcmp(n, "slayout") && strcmp(n, "fractal"))
			vs->kw[vs->nkw++] = v->kw[i];
	}
	return vs->nkw ? vs : NULL;
}

Type *type_for_assign(Arena *a, Type *ann, Type *vt, const char *name, char *err, size_t nerr)
{
	if (vt && vt->kind == TY_UNKNOWN)
		vt = NULL;
	if (!ann)
		return vt;
	if (!vt || ann->kind == TY_UNKNOWN)
		return ann;
	if (ann->kind != vt->kind && !(is_tensorish(ann) && is_tensorish(vt)))
		return contradiction(ann, vt, name, err, nerr);
	switch (ann->kind) {
	case TY_SCALAR:
		if (!dtypes_compatible(ann->dtype, vt->dtype))
			return contradiction(ann, vt, name, err, nerr);
		return vt->dtype == DT_INDEX ? ann : vt;
	case TY_TENSOR: case TY_DIST_TENSOR:
		if (!shapes_agree(ann, vt) || ann->dtype != vt->dtype)
			return contradiction(ann, vt, name, err, nerr);
		return ann->view || ann->memref ? ann : vt;
	case TY_TILE: {
		if (!shapes_agree(ann, vt) || !dtypes_compatible(ann->dtype, vt->dtype))
			return contradiction(ann, vt, name, err, nerr);
		if ((ann->mem == MS_NONE || ann->mem == vt->mem) && (!ann->view || view_equal(ann->view, vt->view)) &&
		    !ann->memref && same_shape(ann, vt))
			return vt;
		Type *t = ir_type_new(a, TY_TILE);
		*t = *vt;
		if (ann->mem != MS_NONE)
			t->mem = ann->mem;
		if (ann->view)
			t->view = ann->view;
		else if (vt->view && t->mem != vt->mem)
			t->view = tile_view_in_mem(a, vt, t->mem);
		if (ann->memref)
			t->memref = ann->memref;
		if (!same_shape(ann, vt)) {
			t->shape = ann->shape;
			t->ndim = ann->ndim;
		}
		return t;
	}
	case TY_TUPLE: /* not checked by the reference: the value's type wins */
		return vt;
	default:
		return ann;
	}
}

ViewSpec *type_tensor_view_layout(Arena *a, const char *layout_symbol)
{
	ViewSpec *vs = arena_alloc(a, sizeof *vs);
	vs->kw = arena_alloc(a, 2 * sizeof *vs->kw);
	vs->nkw = 2;
	vs->kw[0].name = intern_cstr(a, "stride");
	vs->kw[0].value = ir_expr_new(a, EX_TUPLE, (SrcPos){ 0, 0 });
	vs->kw[1].name = intern_cstr(a, "layout");
	Expr *l = ir_expr_new(a, EX_SYMBOL, (SrcPos){ 0, 0 });
	l->str = intern_cstr(a, layout_symbol);
	vs->kw[1].value = l;
	return vs;
}

static int scalar_dtype(Expr *e)
{
	Type *t = ir_expr_type(e);
	if (!t || t->kind != TY_SCALAR)
		return -1;
	return (int)t->dtype;
}

static bool is_compare(BinOp op)
{
	return op >= OP_EQ && op <= OP_GE;
}

static Expr *make_cast(Arena *a, Expr *x, DType dt)
{
	Expr *c = ir_expr_new(a, EX_CAST, x->pos);
	c->lhs = x;
	c->dtype = (uint8_t)dt;
	c->type = ir_scalar_type(a, dt);
	return c;
}

Expr *type_make_binary(Arena *a, BinOp op, Expr *l, Expr *r, SrcPos pos, Diag *d)
{
	int lt = scalar_dtype(l), rt = scalar_dtype(r);
	Type *ltype = ir_expr_type(l), *rtype = ir_expr_type(r);
	bool lknown = ltype && ltype->kind != TY_UNKNOWN, rknown = rtype && rtype->kind != TY_UNKNOWN;
	if ((lknown && lt < 0) || (rknown && rt < 0)) {
		diag_error(d, pos.line, pos.col, "Expression must be ScalarExpr or Var with ScalarType "
			   "(operators on tensors and tiles are not supported; use pl.add, pl.mul, ...)");
		return NULL;
	}
	Expr *e = ir_expr_new(a, EX_BINARY, pos);
	e->op = (int)op;
	e->lhs = l;
	e->rhs = r;
	e->pos = l->pos.line ? l->pos : pos;
	DType res;
	bool logical = op == OP_AND || op == OP_OR || op == OP_XOR;
	if (logical || lt < 0 || rt < 0) {
		res = logical || is_compare(op) ? DT_BOOL : lt >= 0 ? (DType)lt : rt >= 0 ? (DType)rt : DT_INDEX;
	} else {
		bool lf = ir_dtype_is_float((DType)lt), rf = ir_dtype_is_float((DType)rt);
		if (!is_compare(op) && (lt == DT_BOOL || rt == DT_BOOL)) {
			diag_error(d, pos.line, pos.col, "pl.BOOL operands are not supported in arithmetic");
			return NULL;
		}
		if (lf != rf) {
			diag_error(d, pos.line, pos.col, "cannot combine pl.%s and pl.%s operands; cast one with pl.cast(value, pl.DT)",
				   ir_dtype_name((DType)lt), ir_dtype_name((DType)rt));
			return NULL;
		}
		/* wider dtype wins, ties go left; the other operand is converted with
		 * an explicit Cast (spec §5.2), except between INDEX and INT64, which
		 * the reference treats as one */
		res = ir_dtype_bits((DType)rt) > ir_dtype_bits((DType)lt) ? (DType)rt : (DType)lt;
		bool idx_pair = (lt == DT_INDEX && rt == DT_INT64) || (lt == DT_INT64 && rt == DT_INDEX);
		if (lt != rt && !idx_pair) {
			if (lt != (int)res)
				e->lhs = make_cast(a, l, res);
			else
				e->rhs = make_cast(a, r, res);
		}
		if (is_compare(op))
			res = DT_BOOL;
		else if (op == OP_DIV && lf)
			res = DT_FP32;
	}
	e->type = ir_scalar_type(a, res);
	return e;
}

Expr *type_make_unary(Arena *a, UnOp op, Expr *x, SrcPos pos, Diag *d)
{
	int xt = scalar_dtype(x);
	Type *t = ir_expr_type(x);
	if (t && t->kind != TY_UNKNOWN && xt < 0) {
		diag_error(d, pos.line, pos.col, "Expression must be ScalarExpr or Var with ScalarType");
		return NULL;
	}
	Expr *e = ir_expr_new(a, EX_UNARY, pos);
	e->op = (int)op;
	e->lhs = x;
	e->type = ir_scalar_type(a, op == UOP_NOT ? DT_BOOL : xt >= 0 ? (DType)xt : DT_INDEX);
	return e;
}
