/* ir.c - enum spellings, node constructors and searches for the IR (ir.h). */
#include "ptoopt/ir.h"

#include <string.h>

/* A 10 MB program has 100 000 statements: keep the layout ir.h describes. */
_Static_assert(sizeof(void *) != 8 || (sizeof(Stmt) == 168 && STMT_SIMPLE_SIZE == 56), "Stmt has padding");
_Static_assert(sizeof(void *) != 8 || (sizeof(Expr) == 96 && EXPR_VAR_SIZE == 32),
	       "Expr has padding");

static const char *const dtype_names[DT_COUNT] = {
	"BOOL", "INT4", "INT8", "INT16", "INT32", "INDEX", "INT64",
	"UINT4", "UINT8", "UINT16", "UINT32", "UINT64", "FP4",
	"FP8E4M3FN", "FP8E5M2", "FP8E8M0", "FP16", "FP32", "BF16",
	"HF4", "HF8", "TASK_ID",
};
static const unsigned char dtype_bits[DT_COUNT] = {
	1, 4, 8, 16, 32, 64, 64, 4, 8, 16, 32, 64, 4, 8, 8, 8, 16, 32, 16, 4, 8, 64,
};
static const char *const functype_names[FT_COUNT] = {
	"Opaque", "Orchestration", "InCore", "AIC", "AIV", "Group", "Spmd", "Inline", "Graph",
};
static const char *const level_names[LV_COUNT] = {
	"AIV", "AIC", "CORE_GROUP", "CHIP_DIE", "CHIP", "HOST",
	"CLUSTER_0", "CLUSTER_1", "CLUSTER_2", "GLOBAL",
};
static const char *const role_names[RL_COUNT] = { "Orchestrator", "SubWorker" };
static const char *const mem_names[MS_COUNT] = {
	"DDR", "Vec", "Mat", "Left", "Right", "Acc", "Bias", "ScalarLocal", "LeftScale", "RightScale",
};
static const char *const split_names[SPLIT_COUNT] = { "NONE", "UP_DOWN", "LEFT_RIGHT" };

static int lookup(const char *const *names, int n, const char *s)
{
	for (int i = 0; i < n; i++)
		if (names[i][0] == s[0] && strcmp(names[i], s) == 0) /* first byte: most names differ there */
			return i;
	return -1;
}

const char *ir_dtype_name(DType t) { return dtype_names[t]; }
int ir_dtype_parse(const char *s) { return lookup(dtype_names, DT_COUNT, s); }
int ir_dtype_bits(DType t) { return dtype_bits[t]; }

bool ir_dtype_is_float(DType t)
{
	return t >= DT_FP4 && t <= DT_HF8;
}

bool ir_dtype_is_int(DType t)
{
	return t >= DT_INT4 && t <= DT_UINT64;
}

const char *ir_functype_name(FuncType t) { return functype_names[t]; }
int ir_functype_parse(const char *s) { return lookup(functype_names, FT_COUNT, s); }
const char *ir_level_name(Level l) { return level_names[l]; }

int ir_level_parse(const char *s)
{
	static const struct { const char *alias; Level level; } aliases[] = {
		{ "L2CACHE", LV_CHIP_DIE }, { "PROCESSOR", LV_CHIP }, { "UMA", LV_CHIP },
		{ "NODE", LV_HOST }, { "POD", LV_CLUSTER_0 }, { "CLOS1", LV_CLUSTER_1 },
		{ "CLOS2", LV_CLUSTER_2 },
	};
	int l = lookup(level_names, LV_COUNT, s);
	for (size_t i = 0; l < 0 && i < sizeof aliases / sizeof aliases[0]; i++)
		if (strcmp(aliases[i].alias, s) == 0)
			l = aliases[i].level;
	return l;
}

const char *ir_role_name(Role r) { return role_names[r]; }
int ir_role_parse(const char *s) { return lookup(role_names, RL_COUNT, s); }
const char *ir_mem_name(MemSpace m) { return mem_names[m]; }
int ir_mem_parse(const char *s) { return lookup(mem_names, MS_COUNT, s); }
const char *ir_split_name(SplitMode m) { return split_names[m]; }
int ir_split_parse(const char *s) { return lookup(split_names, SPLIT_COUNT, s); }

Level ir_default_level(FuncType t)
{
	switch (t) {
	case FT_ORCHESTRATION: case FT_GRAPH: return LV_CHIP;
	case FT_INCORE: return LV_CHIP_DIE;
	case FT_AIC: return LV_AIC;
	case FT_AIV: return LV_AIV;
	case FT_GROUP: return LV_CORE_GROUP;
	default: return LV_NONE;
	}
}

Role ir_default_role(FuncType t)
{
	switch (t) {
	case FT_ORCHESTRATION: case FT_GRAPH: return RL_ORCHESTRATOR;
	case FT_INCORE: case FT_AIC: case FT_AIV: case FT_GROUP: return RL_SUBWORKER;
	default: return RL_NONE;
	}
}

Var *ir_var_new(Program *p, const char *name, Type *t, VarKind kind)
{
	Var *v = arena_alloc(p->arena, sizeof *v);
	v->name = name;
	v->type = t;
	v->kind = kind;
	v->id = p->next_var_id++;
	return v;
}

size_t ir_expr_size(ExprKind k) { return k == EX_VAR ? EXPR_VAR_SIZE : sizeof(Expr); }

Expr *ir_expr_new(Arena *a, ExprKind k, SrcPos pos)
{
	Expr *e = arena_alloc_part(a, sizeof *e, ir_expr_size(k));
	e->kind = k;
	e->pos = pos;
	return e;
}

Expr *ir_expr_copy(Arena *a, const Expr *e)
{
	size_t n = ir_expr_size((ExprKind)e->kind);
	Expr *c = arena_alloc_part(a, sizeof *c, n);
	memcpy(c, e, n);
	return c;
}

Expr *ir_int(Arena *a, int64_t v, DType dt)
{
	Expr *e = ir_expr_new(a, EX_INT, (SrcPos){ 0, 0 });
	e->ival = v;
	e->dtype = dt;
	e->type = ir_scalar_type(a, dt);
	return e;
}

Expr *ir_var_ref(Arena *a, Var *v)
{
	if (!v->ref) {
		v->ref = ir_expr_new(a, EX_VAR, v->pos);
		v->ref->var = v;
		v->ref->type = v->type;
	}
	return v->ref;
}

static size_t stmt_size(StmtKind k) { return ir_stmt_is_simple(k) ? STMT_SIMPLE_SIZE : sizeof(Stmt); }

Stmt *ir_stmt_new(Arena *a, StmtKind k, SrcPos pos)
{
	Stmt *s = arena_alloc_part(a, sizeof *s, stmt_size(k));
	s->kind = k;
	s->pos = pos;
	return s;
}

Stmt *ir_stmt_copy(Arena *a, const Stmt *s)
{
	size_t n = stmt_size(s->kind);
	Stmt *c = arena_alloc_part(a, sizeof *c, n);
	memcpy(c, s, n);
	return c;
}

Type *ir_type_new(Arena *a, TypeKind k)
{
	Type *t = arena_alloc(a, sizeof *t);
	t->kind = k;
	t->mem = MS_NONE;
	return t;
}

/* Types are immutable once built, so one pl.Scalar[dt] per arena serves all. */
Type *ir_scalar_type(Arena *a, DType dt)
{
	Type *t = a->scalar_types[dt];
	if (!t) {
		t = ir_type_new(a, TY_SCALAR);
		t->dtype = dt;
		a->scalar_types[dt] = t;
	}
	return t;
}

bool ir_is_int_const(const Expr *e, int64_t v, DType dt)
{
	return e && e->kind == EX_INT && e->ival == v && e->dtype == dt;
}

const Stmt *ir_find_scope_of(const Block *b, unsigned kinds)
{
	for (int i = 0; i < b->n; i++) {
		const Stmt *s = b->stmts[i];
		if (ir_stmt_is_simple(s->kind))
			continue;
		if (s->kind == ST_SCOPE && (kinds >> s->scope->kind & 1u))
			return s;
		const Stmt *in = ir_find_scope_of(&s->body, kinds);
		if (!in)
			in = ir_find_scope_of(&s->orelse, kinds);
		if (in)
			return in;
	}
	return NULL;
}

const Stmt *ir_find_scope(const Block *b, ScopeKind k) { return ir_find_scope_of(b, 1u << k); }

const Stmt *ir_find_stmt(const Block *b, StmtKind k)
{
	for (int i = 0; i < b->n; i++) {
		const Stmt *s = b->stmts[i];
		if (s->kind == k)
			return s;
		if (ir_stmt_is_simple(s->kind))
			continue;
		const Stmt *in = ir_find_stmt(&s->body, k);
		if (!in)
			in = ir_find_stmt(&s->orelse, k);
		if (in)
			return in;
	}
	return NULL;
}

static bool expr_calls(const Expr *e, const char *op)
{
	if (!e || e->kind == EX_VAR)
		return false;
	if (e->kind == EX_OP_CALL && strcmp(e->str, op) == 0)
		return true;
	if (expr_calls(e->lhs, op) || expr_calls(e->rhs, op))
		return true;
	for (int i = 0; i < e->nargs; i++)
		if (expr_calls(e->args[i], op))
			return true;
	for (int i = 0; i < e->nkw; i++)
		if (expr_calls(e->kw[i].value, op))
			return true;
	return false;
}

bool ir_block_calls(const Block *b, const char *op)
{
	for (int i = 0; i < b->n; i++) {
		const Stmt *s = b->stmts[i];
		if (expr_calls(s->value, op))
			return true;
		for (int j = 0; j < s->nvalues; j++)
			if (expr_calls(s->values[j], op))
				return true;
		if (!ir_stmt_is_simple(s->kind) && (ir_block_calls(&s->body, op) || ir_block_calls(&s->orelse, op)))
			return true;
	}
	return false;
}

Function *ir_find_function(Program *p, const char *name)
{
	if (p->indexed != p->funcs || p->nindexed > p->nfuncs) {
		pmap_release(&p->fn_index);
		p->indexed = p->funcs;
		p->nindexed = 0;
	}
	/* The same array grown at its end (outline_run_publish appends in
	 * place): index only the new entries, so publishing after every
	 * function stays linear. */
	if (p->nindexed < p->nfuncs)
		pmap_reserve(&p->fn_index, (size_t)p->nfuncs);
	for (; p->nindexed < p->nfuncs; p->nindexed++)
		pmap_put(&p->fn_index, p->funcs[p->nindexed]->name, p->funcs[p->nindexed]);
	return pmap_get(&p->fn_index, name);
}

void ir_program_release(Program *p)
{
	pmap_release(&p->fn_index);
	p->indexed = NULL;
	p->nindexed = 0;
}
