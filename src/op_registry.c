/* op_registry.c - load data/ops.yaml (and --ops files) into an OpRegistry.
 *
 * libyaml's document API gives every node its position, so a malformed
 * entry is reported at the offending field (FILE:LINE:COL) with its name.
 * Entries are validated completely when loaded: sugar.c may then trust
 * indices and names without re-checking.
 */
#include "ptoopt/op_registry.h"
#include "ptoopt/typerule.h"
#include "ptoopt/yaml_guard.h"

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "ptoopt/file_read.h"
#include "ptoopt/ir.h"
#include "ptoopt/strbuf.h"
#include "ptoopt/suggest.h"

typedef struct Loader {
	OpRegistry *r;
	Diag *d;
	yaml_document_t doc;
	jmp_buf fail;
	const char *file;
	int line_shift;    /* added to libyaml's lines: a built-in entry parsed alone */
	PtrMap seen;       /* names declared by this text: a second one is an error */
	PtrMap pnames;     /* check_op's: the parameter names of one entry */
} Loader;

static void lerr(Loader *L, yaml_node_t *n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4), noreturn));
static void lerr(Loader *L, yaml_node_t *n, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	diag_error(L->d, n ? (int)n->start_mark.line + 1 + L->line_shift : 0, n ? (int)n->start_mark.column + 1 : 0, "%s", buf);
	longjmp(L->fail, 1);
}

static yaml_node_t *node(Loader *L, int id) { return yaml_document_get_node(&L->doc, id); }

static const char *scalar(Loader *L, yaml_node_t *n, const char *field)
{
	if (!n || n->type != YAML_SCALAR_NODE)
		lerr(L, n, "field '%s' must be a plain value", field);
	return (const char *)n->data.scalar.value;
}

static const char *istr(Loader *L, const char *s) { return intern_cstr(&L->r->arena, s); }

static yaml_node_t *get(Loader *L, yaml_node_t *map, const char *key)
{
	for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
		yaml_node_t *k = node(L, p->key);
		if (k->type == YAML_SCALAR_NODE && strcmp((const char *)k->data.scalar.value, key) == 0)
			return node(L, p->value);
	}
	return NULL;
}

/* Reject keys outside `allowed` (a NULL-terminated list): a typo in a field
 * name would otherwise silently change the meaning of an entry. */
static void check_keys(Loader *L, yaml_node_t *map, const char *what, const char *const *allowed)
{
	if (map->type != YAML_MAPPING_NODE)
		lerr(L, map, "%s must be a mapping", what);
	for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
		yaml_node_t *k = node(L, p->key);
		const char *ks = scalar(L, k, "key");
		bool ok = false;
		for (int i = 0; allowed[i]; i++)
			ok |= strcmp(ks, allowed[i]) == 0;
		if (!ok)
			lerr(L, k, "unknown field '%s' in %s", ks, what);
	}
}

static int seq_len(yaml_node_t *n) { return (int)(n->data.sequence.items.top - n->data.sequence.items.start); }
static yaml_node_t *seq_at(Loader *L, yaml_node_t *n, int i) { return node(L, n->data.sequence.items.start[i]); }

static void need_seq(Loader *L, yaml_node_t *n, const char *field)
{
	if (!n || n->type != YAML_SEQUENCE_NODE)
		lerr(L, n, "field '%s' must be a list", field);
}

static int64_t to_int(Loader *L, yaml_node_t *n, const char *field)
{
	const char *s = scalar(L, n, field);
	char *end;
	errno = 0;
	long long v = strtoll(s, &end, 10);
	if (!*s || *end || errno)
		lerr(L, n, "field '%s' must be an integer, not '%s'", field, s);
	return v;
}

static bool to_bool(Loader *L, yaml_node_t *n, const char *field)
{
	const char *s = scalar(L, n, field);
	if (!strcmp(s, "true") || !strcmp(s, "True"))
		return true;
	if (!strcmp(s, "false") || !strcmp(s, "False"))
		return false;
	lerr(L, n, "field '%s' must be true or false, not '%s'", field, s);
}

/* A default / condition value: int, float, bool, [], pl.* symbol, 'string',
 * or @PARAM (resolved by the caller). */
static OpsConst to_const(Loader *L, yaml_node_t *n, const char *field)
{
	OpsConst c = { 0 };
	if (n->type == YAML_SEQUENCE_NODE) {
		if (seq_len(n))
			lerr(L, n, "field '%s': only the empty list [] is allowed as a list value", field);
		c.kind = OC_EMPTY_LIST;
		return c;
	}
	const char *s = scalar(L, n, field);
	char *end;
	if (n->data.scalar.style == YAML_SINGLE_QUOTED_SCALAR_STYLE) {
		c.kind = OC_STR; /* a quoted YAML string: 'fast' */
		c.s = istr(L, s);
		return c;
	}
	if (!strcmp(s, "true") || !strcmp(s, "false") || !strcmp(s, "True") || !strcmp(s, "False")) {
		c.kind = OC_BOOL;
		c.i = s[0] == 't' || s[0] == 'T';
		return c;
	}
	long long v = strtoll(s, &end, 10);
	if (*s && !*end) {
		c.kind = OC_INT;
		c.i = v;
		return c;
	}
	double f = strtod(s, &end);
	if (*s && !*end) {
		c.kind = OC_FLOAT;
		c.f = f;
		return c;
	}
	size_t len = strlen(s);
	if (len >= 2 && s[0] == '\'' && s[len - 1] == '\'') {
		c.kind = OC_STR;
		c.s = intern(&L->r->arena, s + 1, len - 2);
		return c;
	}
	if (s[0] == '@' && s[1]) {
		c.kind = OC_REF;
		c.s = istr(L, s + 1);
		return c;
	}
	if (!strncmp(s, "pl.", 3) || !strncmp(s, "pld.", 4)) {
		c.kind = OC_SYMBOL;
		c.s = istr(L, s);
		return c;
	}
	lerr(L, n, "field '%s': '%s' is not a value (int, float, true/false, [], 'string', pl.Symbol or @param)", field, s);
}

static OpsKind to_kind(Loader *L, yaml_node_t *n, const char *field)
{
	static const char *const names[] = { "any", "tensor", "tile", "scalar", "list", "dtype", "int", "number", "expr", "scalar-expr", NULL };
	const char *s = scalar(L, n, field);
	for (int i = 0; names[i]; i++)
		if (!strcmp(s, names[i]))
			return (OpsKind)i;
	lerr(L, n, "field '%s': unknown kind '%s' (expected any, tensor, tile, scalar, list, dtype, int, number, expr or scalar-expr)", field, s);
}

static OpsEffect to_effect(Loader *L, yaml_node_t *n, const char *field)
{
	const char *s = scalar(L, n, field);
	if (!strcmp(s, "read")) return EFF_READ;
	if (!strcmp(s, "write")) return EFF_WRITE;
	if (!strcmp(s, "readwrite") || !strcmp(s, "read-write")) return EFF_READWRITE;
	lerr(L, n, "field '%s': unknown effect '%s' (expected read, write or readwrite)", field, s);
}

static int to_dtype(Loader *L, yaml_node_t *n, const char *field)
{
	const char *s = scalar(L, n, field);
	if (!strncmp(s, "pl.", 3))
		s += 3;
	int dt = ir_dtype_parse(s);
	if (dt < 0)
		lerr(L, n, "field '%s': unknown dtype '%s'", field, s);
	return dt;
}

/* "elem-of-N", "list" or a dtype name */
static void to_coerce(Loader *L, yaml_node_t *n, OpsParam *p)
{
	const char *s = scalar(L, n, "coerce");
	if (!strcmp(s, "list")) {
		p->coerce_list = true;
		return;
	}
	if (!strncmp(s, "keyword ", 8)) {
		/* only a literal the DSL receives as a Python int: bound by
		 * keyword or defaulted (a positional one arrives as an expression) */
		p->coerce_keyword = true;
		s += 8;
	}
	if (!strncmp(s, "elem-of-", 8)) {
		char *end;
		long v = strtol(s + 8, &end, 10);
		if (!s[8] || *end || v < 0)
			lerr(L, n, "field 'coerce': expected elem-of-N with N an argument index");
		p->coerce_elem_of = (int)v;
		return;
	}
	if (!strncmp(s, "pl.", 3))
		s += 3;
	if ((p->coerce_dtype = ir_dtype_parse(s)) < 0)
		lerr(L, n, "field 'coerce': unknown dtype '%s'", s);
}

/* A YAML list of strings, interned, into an array (*n its length). */
static const char **str_list(Loader *L, yaml_node_t *v, const char *field, int *n)
{
	need_seq(L, v, field);
	*n = seq_len(v);
	const char **a = arena_alloc(&L->r->arena, (size_t)(*n + 1) * sizeof *a);
	for (int i = 0; i < *n; i++)
		a[i] = istr(L, scalar(L, seq_at(L, v, i), field));
	return a;
}

static void load_param(Loader *L, yaml_node_t *n, OpsParam *p, bool is_kwarg)
{
	static const char *const keys[] = { "name", "alias", "kind", "default", "omit", "coerce", "effect",
					    "effect_if", "values", "attr", "expect", "invalid", "int-elems", "index-elems",
					    "rank", "allow", "convert", "late", NULL };
	check_keys(L, n, is_kwarg ? "a kwarg" : "a parameter", keys);
	memset(p, 0, sizeof *p);
	p->coerce_elem_of = p->coerce_dtype = p->attr_kwarg = p->rank_as = -1;
	yaml_node_t *v = get(L, n, "name");
	if (!v)
		lerr(L, n, "%s without 'name'", is_kwarg ? "kwarg" : "parameter");
	p->name = istr(L, scalar(L, v, "name"));
	if ((v = get(L, n, "alias")))
		p->alias = str_list(L, v, "alias", &p->nalias);
	if ((v = get(L, n, "kind")))
		p->kind = to_kind(L, v, "kind");
	if ((v = get(L, n, "expect")))
		p->expect = istr(L, scalar(L, v, "expect"));
	if ((v = get(L, n, "invalid")))
		p->invalid = istr(L, scalar(L, v, "invalid"));
	if ((v = get(L, n, "int-elems")))
		p->int_elems = istr(L, scalar(L, v, "int-elems"));
	if ((v = get(L, n, "late")))
		p->late = to_bool(L, v, "late");
	if ((v = get(L, n, "convert"))) {
		static const char *const convs[] = { "none", "unwrap", "const-int", "float", "expr", NULL };
		const char *s = scalar(L, v, "convert");
		int m = 0;
		while (convs[m] && strcmp(convs[m], s))
			m++;
		if (!convs[m])
			lerr(L, v, "field 'convert': unknown value '%s' (expected unwrap, const-int, float or expr)", s);
		p->convert = (OpsConvert)m;
	}
	if ((v = get(L, n, "index-elems")))
		p->index_elems = istr(L, scalar(L, v, "index-elems"));
	if ((v = get(L, n, "rank"))) {
		static const char *const rk[] = { "as", "error", "empty", NULL };
		check_keys(L, v, "rank", rk);
		yaml_node_t *as = get(L, v, "as"), *er = get(L, v, "error"), *em = get(L, v, "empty");
		if (!as || !er)
			lerr(L, v, "rank needs 'as: PARAM' and 'error: MSG'");
		p->rank_as = -2; /* resolved by check_op */
		p->rank_name = istr(L, scalar(L, as, "as"));
		p->rank_error = istr(L, scalar(L, er, "error"));
		if (em) {
			const char *e = scalar(L, em, "empty");
			p->rank_empty_ok = !strcmp(e, "ok");
			p->rank_empty = p->rank_empty_ok ? NULL : istr(L, e);
		}
	}
	if ((v = get(L, n, "allow"))) {
		static const char *const ak[] = { "values", "error", NULL };
		check_keys(L, v, "allow", ak);
		yaml_node_t *vs = get(L, v, "values"), *er = get(L, v, "error");
		if (!vs || !er)
			lerr(L, v, "allow needs 'values: [SYMBOL, ...]' and 'error: MSG'");
		p->allow = str_list(L, vs, "values", &p->nallow);
		p->allow_error = istr(L, scalar(L, er, "error"));
	}
	if ((v = get(L, n, "default")))
		p->def = to_const(L, v, "default");
	if ((v = get(L, n, "omit"))) {
		const char *s = scalar(L, v, "omit");
		if (!strcmp(s, "never")) p->omit = OMIT_NEVER;
		else if (!strcmp(s, "absent")) p->omit = OMIT_ABSENT;
		else if (!strcmp(s, "default")) p->omit = OMIT_DEFAULT;
		else if (!strcmp(s, "always")) p->omit = OMIT_ALWAYS;
		else lerr(L, v, "field 'omit': unknown value '%s' (expected never, absent, default or always)", s);
		if (p->omit == OMIT_DEFAULT && p->def.kind == OC_NONE)
			lerr(L, v, "field 'omit': 'default' needs a 'default' value");
	}
	if ((v = get(L, n, "coerce")))
		to_coerce(L, v, p);
	if ((v = get(L, n, "attr"))) {
		const char *s = scalar(L, v, "attr");
		if (!strcmp(s, "keyword") && !is_kwarg)
			p->attr_kwarg = -2; /* resolved by check_op */
		else if (strcmp(s, "int") && strcmp(s, "bool") && strcmp(s, "truthy") && strcmp(s, "truthy-raw"))
			lerr(L, v, "field 'attr': expected int, bool, truthy or truthy-raw (of a kwarg), or keyword (of a parameter)");
		else {
			p->int_attr = !strcmp(s, "int");
			p->bool_attr = !strcmp(s, "bool");
			p->truth_raw = !strcmp(s, "truthy-raw");
			p->truth_attr = p->truth_raw || !strcmp(s, "truthy");
		}
	}
	if ((v = get(L, n, "effect")))
		p->effect = to_effect(L, v, "effect");
	if ((v = get(L, n, "effect_if"))) {
		static const char *const ek[] = { "kwarg", "nonzero", "equals", "then", NULL };
		check_keys(L, v, "effect_if", ek);
		yaml_node_t *k = get(L, v, "kwarg"), *nz = get(L, v, "nonzero"), *eq = get(L, v, "equals"),
			    *th = get(L, v, "then");
		if (!k)
			lerr(L, v, "effect_if without 'kwarg'");
		p->effect_kwarg = istr(L, scalar(L, k, "kwarg"));
		if (nz) {
			p->effect_nonzero = true;
			p->effect_then = to_effect(L, nz, "nonzero");
		} else if (eq && th) {
			p->effect_equals = to_const(L, eq, "equals");
			p->effect_then = to_effect(L, th, "then");
		} else {
			lerr(L, v, "effect_if needs 'nonzero: EFFECT' or 'equals: V' with 'then: EFFECT'");
		}
	}
	if ((v = get(L, n, "values"))) {
		if (v->type != YAML_MAPPING_NODE)
			lerr(L, v, "field 'values' must be a mapping from symbol to integer");
		int cnt = (int)(v->data.mapping.pairs.top - v->data.mapping.pairs.start);
		p->values = arena_alloc(&L->r->arena, (size_t)(cnt + 1) * sizeof *p->values);
		for (int i = 0; i < cnt; i++) {
			yaml_node_pair_t *pr = v->data.mapping.pairs.start + i;
			p->values[i].symbol = istr(L, scalar(L, node(L, pr->key), "values"));
			yaml_node_t *val = node(L, pr->value);
			if (val->type == YAML_SEQUENCE_NODE) {
				/* [INT, SYMBOL]: meaning INT, kept as (printed) SYMBOL */
				if (seq_len(val) != 2)
					lerr(L, val, "field 'values': a list value must be [INTEGER, SYMBOL]");
				p->values[i].value = to_int(L, seq_at(L, val, 0), "values");
				p->values[i].spelling = istr(L, scalar(L, seq_at(L, val, 1), "values"));
			} else {
				p->values[i].value = to_int(L, val, "values");
			}
		}
		p->nvalues = cnt;
	}
}

static OpsParam *load_params(Loader *L, yaml_node_t *n, const char *field, int *count)
{
	need_seq(L, n, field);
	int k = seq_len(n);
	OpsParam *ps = arena_alloc(&L->r->arena, (size_t)(k + 1) * sizeof *ps);
	for (int i = 0; i < k; i++)
		load_param(L, seq_at(L, n, i), &ps[i], field[0] == 'k');
	*count = k;
	return ps;
}

static int arg_index(Loader *L, yaml_node_t *n, const char *field, const OpDef *op)
{
	int64_t v = to_int(L, n, field);
	if (v < 0 || v >= op->nparams)
		lerr(L, n, "field '%s': argument %lld does not exist (the op has %d parameters)", field,
		     (long long)v, op->nparams);
	return (int)v;
}

static const char *kw_name(Loader *L, yaml_node_t *n, const char *field, const OpDef *op)
{
	const char *s = istr(L, scalar(L, n, field));
	for (int i = 0; i < op->nkwargs; i++)
		if (op->kwargs[i].name == s)
			return s;
	lerr(L, n, "field '%s': '%s' is not a kwarg of %s", field, s, op->name);
}

/* Does the comma-separated list `needs` name `field`? */
static bool needs_field(const char *needs, const char *field)
{
	size_t n = strlen(field);
	for (const char *p = needs; p && *p;) {
		const char *e = strchr(p, ',');
		size_t l = e ? (size_t)(e - p) : strlen(p);
		if (l == n && !strncmp(p, field, n))
			return true;
		p = e ? e + 1 : NULL;
	}
	return false;
}

static void load_result(Loader *L, yaml_node_t *n, const OpDef *op, OpsResult *res)
{
	static const char *const keys[] = { "rule", "arg", "args", "scalar", "promote", "shape", "valid-shape",
					    "dtype", "dtype-of", "layout", "mem", "pad", "column-blayout", "elems", "length",
					    "window-source", "window-offsets", "shape-of", "when", "opts", NULL };
	check_keys(L, n, "a result rule", keys);
	memset(res, 0, sizeof *res);
	res->arg = res->arg2 = res->shape = res->valid_shape = res->dtype_arg = res->dtype_of = res->dtype = res->mem = -1;
	res->window_source = res->window_offsets = res->shape_of = -1;
	yaml_node_t *v = get(L, n, "rule");
	if (!v)
		lerr(L, n, "result without 'rule'");
	const char *rs = scalar(L, v, "rule");
	const RuleKind *rk = typerule_find(rs);
	if (!rk)
		lerr(L, v, "field 'rule': unknown result rule '%s'", rs);
	res->kind = rk;
	bool scalar_rule = !strcmp(rk->name, "scalar");
	if ((v = get(L, n, "arg")))
		res->arg = arg_index(L, v, "arg", op);
	if ((v = get(L, n, "args"))) {
		need_seq(L, v, "args");
		res->nargs = seq_len(v);
		if (res->nargs < 1 || res->nargs > 8)
			lerr(L, v, "field 'args' must list one to eight argument indices");
		for (int i = 0; i < res->nargs; i++)
			res->args[i] = arg_index(L, seq_at(L, v, i), "args", op);
		res->arg = res->args[0];
		if (res->nargs > 1)
			res->arg2 = res->args[1];
	}
	if ((v = get(L, n, "scalar")))
		res->arg2 = arg_index(L, v, "scalar", op);
	if ((v = get(L, n, "promote")))
		res->promote = to_bool(L, v, "promote");
	if ((v = get(L, n, "shape")))
		res->shape = arg_index(L, v, "shape", op);
	if ((v = get(L, n, "valid-shape")))
		res->valid_shape = arg_index(L, v, "valid-shape", op);
	if ((v = get(L, n, "window-source")))
		res->window_source = arg_index(L, v, "window-source", op);
	if ((v = get(L, n, "window-offsets")))
		res->window_offsets = arg_index(L, v, "window-offsets", op);
	if ((v = get(L, n, "shape-of")))
		res->shape_of = arg_index(L, v, "shape-of", op);
	if ((v = get(L, n, "when"))) {
		static const char *const wkeys[] = { "kwarg", "equals", NULL };
		check_keys(L, v, "a 'when' condition", wkeys);
		yaml_node_t *k = get(L, v, "kwarg"), *e = get(L, v, "equals");
		if (!k || !e)
			lerr(L, v, "field 'when' needs kwarg and equals");
		res->when_kw = kw_name(L, k, "kwarg", op);
		res->when_equals = to_int(L, e, "equals");
	}
	if ((v = get(L, n, "length")))
		res->shape = arg_index(L, v, "length", op);
	if ((v = get(L, n, "dtype"))) {
		const char *s = scalar(L, v, "dtype");
		if (scalar_rule || (s[0] >= 'A' && s[0] <= 'Z'))
			res->dtype = to_dtype(L, v, "dtype");
		else if (s[0] >= '0' && s[0] <= '9')
			res->dtype_arg = arg_index(L, v, "dtype", op);
		else
			res->dtype_kw = kw_name(L, v, "dtype", op);
	}
	if ((v = get(L, n, "dtype-of")))
		res->dtype_of = arg_index(L, v, "dtype-of", op);
	if ((v = get(L, n, "layout")))
		res->layout_kw = kw_name(L, v, "layout", op);
	if ((v = get(L, n, "pad")))
		res->pad_kw = kw_name(L, v, "pad", op);
	if ((v = get(L, n, "mem"))) {
		const char *s = scalar(L, v, "mem");
		int m = ir_mem_parse(s);
		if (m >= 0)
			res->mem = m;
		else
			res->mem_kw = kw_name(L, v, "mem", op);
	}
	if ((v = get(L, n, "column-blayout")))
		res->column_blayout = istr(L, scalar(L, v, "column-blayout"));
	if ((v = get(L, n, "elems"))) {
		need_seq(L, v, "elems");
		res->nelems = seq_len(v);
		res->elems = arena_alloc(&L->r->arena, (size_t)(res->nelems + 1) * sizeof *res->elems);
		for (int i = 0; i < res->nelems; i++)
			load_result(L, seq_at(L, v, i), op, &res->elems[i]);
	}
	if ((v = get(L, n, "opts"))) {
		if (v->type != YAML_MAPPING_NODE)
			lerr(L, v, "field 'opts' must be a mapping");
		yaml_node_pair_t *p0 = v->data.mapping.pairs.start, *p1 = v->data.mapping.pairs.top;
		res->nopts = (int)(p1 - p0);
		res->opts = arena_alloc(&L->r->arena, (size_t)(res->nopts + 1) * sizeof *res->opts);
		for (int i = 0; i < res->nopts; i++) {
			yaml_node_t *k = node(L, p0[i].key), *val = node(L, p0[i].value);
			const char *ks = scalar(L, k, "opts");
			bool known = false;
			for (int j = 0; rk->opts && rk->opts[j]; j++)
				known |= !strcmp(rk->opts[j], ks);
			if (!known)
				lerr(L, k, "field 'opts': rule '%s' has no setting '%s'", rs, ks);
			res->opts[i] = (OpsOpt){ istr(L, ks), istr(L, scalar(L, val, ks)) };
		}
	}
	/* the kind's required operands */
	const char *need = rk->needs;
	bool bad = (needs_field(need, "arg") && res->arg < 0) || (needs_field(need, "arg2") && res->arg2 < 0) ||
		   (needs_field(need, "args") && res->nargs == 0) ||
		   ((needs_field(need, "shape") || needs_field(need, "length")) && res->shape < 0 && res->shape_of < 0) ||
		   (needs_field(need, "dtype") && !res->dtype_kw && res->dtype_arg < 0 && res->dtype_of < 0 && res->dtype < 0) ||
		   (needs_field(need, "mem") && !res->mem_kw && res->mem < 0) ||
		   (needs_field(need, "elems") && res->nelems == 0) ||
		   (res->window_source >= 0) != (res->window_offsets >= 0) ||
		   (res->window_source >= 0 && res->valid_shape < 0);
	char needs[128] = "";
	for (const char *p = need; *p; p++)
		if (*p != ',')
			snprintf(needs + strlen(needs), sizeof needs - strlen(needs), "%c", *p);
		else
			snprintf(needs + strlen(needs), sizeof needs - strlen(needs), "%s", strchr(p + 1, ',') ? ", " : " and ");
	if (bad)
		lerr(L, n, "result rule '%s' needs %s%s", rs, needs,
		     res->window_source >= 0 || res->window_offsets >= 0 ? "; window-source, window-offsets and valid-shape together" : "");
}

/* Resolve @PARAM defaults and check coerce indices once all params exist. */
static void check_op(Loader *L, yaml_node_t *n, OpDef *op)
{
	PtrMap *names = &L->pnames;
	pmap_clear(names);
	for (int i = 0; i < op->nparams + op->nkwargs; i++) {
		OpsParam *p = i < op->nparams ? &op->params[i] : &op->kwargs[i - op->nparams];
		if (p->def.kind == OC_REF) {
			int k = -1;
			for (int j = 0; j < op->nparams; j++)
				if (op->params[j].name == p->def.s)
					k = j;
			if (k < 0 || k >= i)
				lerr(L, n, "%s: default '@%s' of '%s' must name an earlier parameter", op->name, p->def.s, p->name);
			p->def.i = k;
		}
		if (p->coerce_elem_of >= op->nparams)
			lerr(L, n, "%s: coerce of '%s' names argument %d, which does not exist", op->name, p->name, p->coerce_elem_of);
		/* names are interned: a map finds a repeat in one pass; a kwarg may
		 * share the name of an `attr: keyword` param, which it serves */
		OpsParam *prev = pmap_get(names, p->name);
		if (prev && prev->attr_kwarg == -2 && i >= op->nparams)
			prev->attr_kwarg = i - op->nparams;
		else if (prev)
			lerr(L, n, "%s: parameter '%s' declared twice", op->name, p->name);
		pmap_put(names, p->name, p);
	}
	for (int i = 0; i < op->nparams + op->nkwargs; i++) {
		OpsParam *p = i < op->nparams ? &op->params[i] : &op->kwargs[i - op->nparams];
		if (p->rank_as != -2)
			continue;
		for (int j = 0; j < op->nparams + op->nkwargs; j++)
			if (j != i && (j < op->nparams ? &op->params[j] : &op->kwargs[j - op->nparams])->name == p->rank_name)
				p->rank_as = j;
		if (p->rank_as < 0)
			lerr(L, n, "%s: rank of '%s' names '%s', which is no parameter of it", op->name, p->name, p->rank_name);
	}
	for (int i = 0; i < op->nparams; i++)
		if (op->params[i].attr_kwarg == -2)
			lerr(L, n, "%s: 'attr: keyword' of '%s' needs a kwarg of the same name", op->name, op->params[i].name);
}

/* Parameter i of op counting the params, then the kwargs. */
static const OpsParam *op_slot(const OpDef *op, int i)
{
	return i < op->nparams ? &op->params[i] : &op->kwargs[i - op->nparams];
}

/* core: vector | cube | shared (a stated lane), a memory space (the
 * result's) or a kwarg naming it; absent: the result rule's mem */
static void load_core(Loader *L, yaml_node_t *v, OpDef *op)
{
	static const char *const lanes[] = { "vector", "cube", "shared" };
	op->core = (OpsCore){ LANE_INFER, op->result.mem, op->result.mem_kw };
	if (!v)
		return;
	const char *s = scalar(L, v, "core");
	for (int i = 0; i < 3; i++)
		if (!strcmp(s, lanes[i])) {
			op->core.lane = (OpsLane)(LANE_VECTOR + i);
			return;
		}
	op->core.mem = ir_mem_parse(s);
	op->core.mem_kw = NULL;
	if (op->core.mem >= 0)
		return;
	for (int i = 0; i < op->nkwargs; i++)
		if (!strcmp(op->kwargs[i].name, s))
			op->core.mem_kw = op->kwargs[i].name;
	if (!op->core.mem_kw)
		lerr(L, v, "field 'core': '%s' is neither a lane (vector, cube, shared), a memory space (Vec, Acc, "
		     "...) nor a kwarg of %s", s, op->name);
}

/* The op's DSL signature: `dsl: "a, b=, *, c"` (names, `=` for one with a
 * default, `*` or `*args` before the keyword-only ones, `**kwargs` ignored),
 * each name an op parameter or kwarg (by name or alias) or one the IR has no
 * slot for; without the field, the params then the kwargs. */
static int slot_named(const OpDef *op, const char *name)
{
	for (int i = 0; i < op->nparams + op->nkwargs; i++) {
		const OpsParam *p = op_slot(op, i);
		if (!strcmp(p->name, name))
			return i;
		for (int a = 0; a < p->nalias; a++)
			if (!strcmp(p->alias[a], name))
				return i;
	}
	return -1;
}

static void load_dsl(Loader *L, yaml_node_t *v, OpDef *op)
{
	int n = op->nparams + op->nkwargs;
	if (!v) {
		op->dsl = arena_alloc(&L->r->arena, (size_t)(n + 1) * sizeof *op->dsl);
		for (int i = 0; i < n; i++) {
			const OpsParam *p = op_slot(op, i);
			op->dsl[i] = (OpsDslArg){ p->name, i, p->def.kind != OC_NONE || p->omit != OMIT_NEVER };
		}
		op->dsl_npos = op->dsl_inorder = n;
		return;
	}
	const char *s = scalar(L, v, "dsl");
	int cap = 1;
	for (const char *q = s; *q; q++)
		cap += *q == ',';
	op->dsl = arena_alloc(&L->r->arena, (size_t)cap * sizeof *op->dsl);
	bool kwonly = false;
	int cnt = 0;
	while (*s) {
		while (*s == ' ')
			s++;
		size_t len = strcspn(s, ",");
		char item[64];
		if (len == 0 || len >= sizeof item)
			lerr(L, v, "field 'dsl': expected comma-separated names");
		memcpy(item, s, len);
		while (len && item[len - 1] == ' ')
			len--;
		item[len] = 0;
		s += strcspn(s, ",");
		if (*s == ',')
			s++;
		if (item[0] == '*') {
			if (item[1] == '*')
				continue; /* **kwargs */
			if (kwonly)
				lerr(L, v, "field 'dsl': '*' given twice");
			kwonly = true;
			op->dsl_varargs = item[1] != 0;
			continue;
		}
		bool opt = len && item[len - 1] == '=';
		if (opt)
			item[--len] = 0;
		op->dsl[cnt] = (OpsDslArg){ istr(L, item), slot_named(op, item), opt };
		if (op->dsl[cnt].slot < 0 && !opt)
			lerr(L, v, "field 'dsl': '%s' is no parameter or kwarg of %s (only an optional one may be)", item, op->name);
		cnt++;
		if (kwonly)
			op->dsl_nkwo++;
		else
			op->dsl_npos++;
	}
	op->dsl_inorder = 0;
	while (op->dsl_inorder < op->dsl_npos && op->dsl[op->dsl_inorder].slot == op->dsl_inorder)
		op->dsl_inorder++;
	if (op->dsl_varargs)
		op->dsl_inorder = n; /* *args: bound in order */
}

/* arity: {min: N, max: M, error: MSG} (only with a `*args` dsl) */
static void load_arity(Loader *L, yaml_node_t *v, OpDef *op)
{
	if (!v)
		return;
	static const char *const keys[] = { "min", "max", "error", NULL };
	check_keys(L, v, "an arity", keys);
	yaml_node_t *lo = get(L, v, "min"), *hi = get(L, v, "max"), *msg = get(L, v, "error");
	if (!lo || !hi || !msg || !op->dsl_varargs)
		lerr(L, v, "field 'arity' needs 'min', 'max' and 'error', and a dsl with *args");
	op->arity_min = atoi(scalar(L, lo, "min"));
	op->arity_max = atoi(scalar(L, hi, "max"));
	op->arity_error = istr(L, scalar(L, msg, "error"));
}

/* checks: [{arg: NAME, is: [tensor, dist, tile, scalar], error: MSG}, ...] */
static void load_checks(Loader *L, yaml_node_t *v, OpDef *op)
{
	if (!v)
		return;
	static const char *const keys[] = { "arg", "is", "error", "any-of", NULL };
	static const char *const classes[] = { "tensor", "dist", "tile", "scalar", NULL };
	need_seq(L, v, "checks");
	op->nchecks = seq_len(v);
	op->checks = arena_alloc(&L->r->arena, (size_t)op->nchecks * sizeof *op->checks);
	for (int i = 0; i < op->nchecks; i++) {
		yaml_node_t *c = seq_at(L, v, i), *an, *in, *en = get(L, c, "error");
		check_keys(L, c, "a check", keys);
		OpsCheck *k = &op->checks[i];
		k->error = en ? istr(L, scalar(L, en, "error")) : NULL;
		if ((an = get(L, c, "any-of"))) {
			need_seq(L, an, "any-of");
			if (!en || seq_len(an) > 4)
				lerr(L, c, "an any-of check needs 'error' and at most 4 names");
			k->slot = -1;
			for (int j = 0; j < seq_len(an); j++) {
				const char *a = scalar(L, seq_at(L, an, j), "any-of");
				if ((k->anyof[k->nanyof++] = slot_named(op, a)) < 0)
					lerr(L, an, "field 'any-of': '%s' is no parameter or kwarg of %s", a, op->name);
			}
			continue;
		}
		if (!(an = get(L, c, "arg")) || !(in = get(L, c, "is")))
			lerr(L, c, "a check needs 'arg' and 'is' (or 'any-of')");
		const char *a = scalar(L, an, "arg");
		if ((k->slot = slot_named(op, a)) < 0)
			lerr(L, an, "field 'arg': '%s' is no parameter or kwarg of %s", a, op->name);
		need_seq(L, in, "is");
		for (int j = 0; j < seq_len(in); j++) {
			const char *cl = scalar(L, seq_at(L, in, j), "is");
			int m = 0;
			while (classes[m] && strcmp(classes[m], cl))
				m++;
			if (!classes[m])
				lerr(L, seq_at(L, in, j), "field 'is': unknown class '%s' (expected tensor, dist, tile or scalar)", cl);
			k->is |= 1u << m;
		}
	}
}

/* forms: ["dim, index, src", "index, src, dim=", ...] (only with a `*args`
 * dsl): each the names the extra positional arguments bind, then `name=` for
 * those it needs by keyword */
static void load_forms(Loader *L, yaml_node_t *v, OpDef *op)
{
	if (!v)
		return;
	need_seq(L, v, "forms");
	if (!op->dsl_varargs)
		lerr(L, v, "field 'forms' needs a dsl with *args");
	op->nforms = seq_len(v);
	op->forms = arena_alloc(&L->r->arena, (size_t)op->nforms * sizeof *op->forms);
	for (int i = 0; i < op->nforms; i++) {
		yaml_node_t *f = seq_at(L, v, i);
		const char *s = scalar(L, f, "forms");
		OpsForm *fm = &op->forms[i];
		while (*s) {
			while (*s == ' ' || *s == ',')
				s++;
			size_t len = strcspn(s, ",");
			while (len && s[len - 1] == ' ')
				len--;
			if (!len)
				break;
			bool kw = s[len - 1] == '=';
			const char *name = istr(L, arena_printf(&L->r->arena, "%.*s", (int)(len - kw), s));
			if (slot_named(op, name) < 0)
				lerr(L, f, "field 'forms': '%s' is no parameter or kwarg of %s", name, op->name);
			if ((kw ? fm->nkw : fm->npos) >= 6)
				lerr(L, f, "field 'forms': at most 6 names of each sort");
			if (kw)
				fm->kw[fm->nkw++] = name;
			else
				fm->pos[fm->npos++] = name;
			int k = 0;
			while (k < op->nform_names && op->form_names[k] != name)
				k++;
			if (k == op->nform_names) {
				if (k >= 8)
					lerr(L, f, "field 'forms': at most 8 names in all");
				op->form_names[op->nform_names++] = name;
			}
			s += strcspn(s, ",");
		}
	}
}

static void load_op(Loader *L, yaml_node_t *n)
{
	static const char *const keys[] = { "op", "params", "kwargs", "result", "spelling", "core", "dsl", "context", "arity",
					    "checks", "forms", NULL };
	check_keys(L, n, "an op entry", keys);
	OpDef *op = arena_alloc(&L->r->arena, sizeof *op);
	yaml_node_t *v = get(L, n, "op");
	if (!v)
		lerr(L, n, "op entry without 'op' (the canonical name, e.g. tensor.adds)");
	op->name = istr(L, scalar(L, v, "op"));
	if (!strchr(op->name, '.'))
		lerr(L, v, "field 'op': '%s' is not a canonical name (NAMESPACE.NAME, e.g. tensor.adds)", op->name);
	op->file = L->file;
	op->line = (int)n->start_mark.line + 1 + L->line_shift;
	op->col = (int)n->start_mark.column + 1;
	if ((v = get(L, n, "params")))
		op->params = load_params(L, v, "params", &op->nparams);
	if ((v = get(L, n, "kwargs")))
		op->kwargs = load_params(L, v, "kwargs", &op->nkwargs);
	check_op(L, n, op);
	load_dsl(L, get(L, n, "dsl"), op);
	load_arity(L, get(L, n, "arity"), op);
	load_checks(L, get(L, n, "checks"), op);
	load_forms(L, get(L, n, "forms"), op);
	v = get(L, n, "result");
	if (!v)
		lerr(L, n, "op '%s' has no 'result' (use {rule: unknown} when it cannot be inferred)", op->name);
	load_result(L, v, op, &op->result);
	op->reads_only = true;
	for (int i = 0; i < op->nparams + op->nkwargs; i++)
		if (op_slot(op, i)->effect != EFF_READ || op_slot(op, i)->effect_kwarg)
			op->reads_only = false;
	load_core(L, get(L, n, "core"), op);
	if ((v = get(L, n, "context"))) {
		const char *cx = scalar(L, v, "context");
		if (strcmp(cx, "host") && strcmp(cx, "internal"))
			lerr(L, v, "field 'context': expected host or internal");
		op->host_only = !strcmp(cx, "host");
		op->internal = !op->host_only;
	}
	if ((v = get(L, n, "spelling"))) {
		static const char *const skeys[] = { "name", "when", NULL };
		check_keys(L, v, "a spelling", skeys);
		yaml_node_t *sn = get(L, v, "name"), *sw = get(L, v, "when");
		if (!sn || !sw)
			lerr(L, v, "field 'spelling' needs 'name' and 'when'");
		op->spell_name = istr(L, scalar(L, sn, "name"));
		op->spell_when = istr(L, scalar(L, sw, "when"));
	}
	if (pmap_get(&L->seen, op->name))
		lerr(L, n, "op '%s' declared twice in this file", op->name);
	pmap_put(&L->seen, op->name, (void *)1);
	if (!pmap_get(&L->r->ops, op->name))
		vec_push(&L->r->all, op);
	else
		for (size_t i = 0; i < L->r->all.len; i++)
			if (((OpDef *)L->r->all.items[i])->name == op->name)
				L->r->all.items[i] = op;
	pmap_put(&L->r->ops, op->name, op);
}

static void load_sugar(Loader *L, yaml_node_t *n)
{
	static const char *const keys[] = { "name", "dispatch", NULL };
	static const char *const ckeys[] = { "args", "op", "binary", "kw", "positional", "set", "append", "error", NULL };
	static const char *const bins[] = { "add", "sub", "mul", "div", "min", "max", NULL };
	static const int binops[] = { OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_MIN, OP_MAX };
	check_keys(L, n, "a sugar entry", keys);
	SugarDef *s = arena_alloc(&L->r->arena, sizeof *s);
	yaml_node_t *v = get(L, n, "name");
	if (!v)
		lerr(L, n, "sugar entry without 'name'");
	s->name = istr(L, scalar(L, v, "name"));
	/* (sugar names live beside op names: "s:" keeps them apart) */
	const char *sk = intern_cstr(&L->r->arena, arena_printf(&L->r->arena, "s:%s", s->name));
	if (pmap_get(&L->seen, sk))
		lerr(L, v, "sugar '%s' declared twice in this file", s->name);
	pmap_put(&L->seen, sk, (void *)1);
	v = get(L, n, "dispatch");
	if (!v)
		lerr(L, n, "sugar entry '%s' without 'dispatch'", s->name);
	need_seq(L, v, "dispatch");
	s->ncases = seq_len(v);
	s->cases = arena_alloc(&L->r->arena, (size_t)(s->ncases + 1) * sizeof *s->cases);
	for (int i = 0; i < s->ncases; i++) {
		yaml_node_t *c = seq_at(L, v, i);
		check_keys(L, c, "a dispatch case", ckeys);
		SugarCase *sc = &s->cases[i];
		yaml_node_t *a = get(L, c, "args"), *o = get(L, c, "op"), *b = get(L, c, "binary");
		if (a) {
			need_seq(L, a, "args");
			if (seq_len(a) > 6)
				lerr(L, a, "field 'args': at most 6 argument kinds");
			sc->nargs = seq_len(a);
			for (int j = 0; j < sc->nargs; j++)
				sc->args[j] = to_kind(L, seq_at(L, a, j), "args");
		}
		yaml_node_t *en = get(L, c, "error"), *apn = get(L, c, "append");
		if (!!o + !!b + !!en != 1)
			lerr(L, c, "a dispatch case needs exactly one of 'op', 'binary' or 'error'");
		if (en)
			sc->error = istr(L, scalar(L, en, "error"));
		if (apn)
			sc->append_kw = istr(L, scalar(L, apn, "append"));
		yaml_node_t *kwn = get(L, c, "kw"), *pn = get(L, c, "positional"), *setn = get(L, c, "set");
		if (kwn)
			sc->kw = istr(L, scalar(L, kwn, "kw"));
		if (setn)
			sc->set_kw = istr(L, scalar(L, setn, "set"));
		if (pn) {
			need_seq(L, pn, "positional");
			sc->nnames = seq_len(pn);
			sc->names = arena_alloc(&L->r->arena, (size_t)(sc->nnames + 1) * sizeof *sc->names);
			for (int j = 0; j < sc->nnames; j++)
				sc->names[j] = istr(L, scalar(L, seq_at(L, pn, j), "positional"));
		}
		if (o) {
			sc->op = istr(L, scalar(L, o, "op"));
			if (!ops_find(L->r, sc->op))
				lerr(L, o, "field 'op': '%s' is not a registered op", sc->op);
		} else if (b) {
			const char *bs = scalar(L, b, "binary");
			int k = -1;
			for (int j = 0; bins[j]; j++)
				if (!strcmp(bs, bins[j]))
					k = j;
			if (k < 0)
				lerr(L, b, "field 'binary': unknown operator '%s' (expected add, sub, mul, div, min or max)", bs);
			sc->binary = binops[k];
		}
	}
	pmap_put(&L->r->sugar, s->name, s);
}

/* ops_load_text for text that starts line_shift lines into the file. */
static bool load_text_at(OpRegistry *r, const char *file, const char *text, size_t len, int line_shift, Diag *d)
{
	Loader L = { .r = r, .d = d, .file = intern_cstr(&r->arena, file), .line_shift = line_shift };
	yaml_parser_t parser;
	yaml_parser_initialize(&parser);
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	int gl, gc;
	const char *why;
	if (!yaml_guard_depth(text, len, &gl, &gc, &why)) {
		diag_error(d, gl + line_shift, gc, "invalid YAML: %s (a registry entry needs six)", why);
		yaml_parser_delete(&parser);
		return false;
	}
	if (!yaml_parser_load(&parser, &L.doc)) {
		diag_error(d, (int)parser.problem_mark.line + 1 + line_shift, (int)parser.problem_mark.column + 1,
			   "invalid YAML: %s", parser.problem ? parser.problem : "syntax error");
		yaml_parser_delete(&parser);
		return false;
	}
	yaml_node_t *dup;
	const char *dk = yaml_guard_duplicate_key(&L.doc, &dup);
	bool single = yaml_guard_single(&parser, &gl, &gc);
	yaml_parser_delete(&parser);
	if (dk || !single) {
		if (dk)
			diag_error(d, (int)dup->start_mark.line + 1 + line_shift, (int)dup->start_mark.column + 1,
				   "invalid YAML: key '%s' given twice", dk);
		else
			diag_error(d, gl + line_shift, gc, "invalid YAML: a second document; a registry file is one");
		yaml_document_delete(&L.doc);
		return false;
	}
	bool ok = false;
	if (setjmp(L.fail) == 0) {
		yaml_node_t *root = yaml_document_get_root_node(&L.doc);
		if (root) {
			static const char *const keys[] = { "ops", "sugar", NULL };
			check_keys(&L, root, "the registry file (top level)", keys);
			yaml_node_t *ops = get(&L, root, "ops"), *sugar = get(&L, root, "sugar");
			if (ops) {
				need_seq(&L, ops, "ops");
				for (int i = 0; i < seq_len(ops); i++)
					load_op(&L, seq_at(&L, ops, i));
			}
			if (sugar) {
				need_seq(&L, sugar, "sugar");
				for (int i = 0; i < seq_len(sugar); i++)
					load_sugar(&L, seq_at(&L, sugar, i));
			}
		}
		ok = true;
	}
	yaml_document_delete(&L.doc);
	pmap_release(&L.seen);
	pmap_release(&L.pnames);
	return ok;
}

bool ops_load_text(OpRegistry *r, const char *file, const char *text, size_t len, Diag *d)
{
	/* its entries may override loaded ones: forget the cached hits (a
	 * built-in entry loaded lazily is new, so that path keeps them) */
	memset(r->hit_ops, 0, sizeof r->hit_ops);
	memset(r->hit_sugar, 0, sizeof r->hit_sugar);
	return load_text_at(r, file, text, len, 0, d);
}

/* An op registry is some KB of YAML; far more is a wrong path. */
#define OPS_FILE_MAX_BYTES (64 << 20)

bool ops_load_file(OpRegistry *r, const char *path, Diag *d)
{
	size_t n = 0;
	bool too_big;
	char *buf = file_read(path, OPS_FILE_MAX_BYTES, &n, &too_big);
	if (!buf) {
		if (too_big)
			diag_error(d, 0, 0, "op registry file '%s' is larger than %d bytes", path, OPS_FILE_MAX_BYTES);
		else
			diag_error(d, 0, 0, "cannot open the op registry file '%s': %s", path, strerror(errno));
		return false;
	}
	/* the Diag shows source lines of the registry file, not of the program */
	Diag sub = *d;
	sub.file = path;
	sub.src = buf;
	sub.len = n;
	bool ok = ops_load_text(r, path, buf, n, &sub);
	d->nerrors = sub.nerrors;
	file_free(buf);
	return ok;
}

void ops_init(OpRegistry *r)
{
	memset(r, 0, sizeof *r);
	arena_init(&r->arena);
}

void ops_release(OpRegistry *r)
{
	pmap_release(&r->ops);
	pmap_release(&r->sugar);
	pmap_release(&r->lazy_ops);
	pmap_release(&r->lazy_sugar);
	pmap_release(&r->warned);
	vec_release(&r->all);
	arena_free(&r->arena);
}

static OpRegistry default_registry;
static bool default_loaded;

static void load_builtin_whole(OpRegistry *r)
{
	Diag d;
	diag_init(&d, "data/ops.yaml (built in)", ops_builtin_yaml, ops_builtin_yaml_len);
	if (!ops_load_text(r, "data/ops.yaml", ops_builtin_yaml, ops_builtin_yaml_len, &d))
		abort(); /* a build with a broken registry; the unit test catches it first */
}

/* Parse one built-in item as a document of its own: its list header on
 * the line before it, the lines then shifted to be those of the whole file
 * (padding with the blank lines in between made libyaml scan them all). */
static void load_builtin_entry(OpRegistry *r, const OpsBuiltinEntry *e)
{
	const char *head = e->sugar ? "sugar:" : "ops:";
	size_t nh = strlen(head), pad = e->line > 1;
	int shift = e->line > 1 ? (int)e->line - 2 : 0;
	size_t n = nh + pad + e->len;
	char *buf = xmalloc(n);
	memcpy(buf, head, nh);
	memset(buf + nh, '\n', pad);
	memcpy(buf + nh + pad, ops_builtin_yaml + e->offset, e->len);
	Diag d;
	diag_init(&d, "data/ops.yaml (built in)", ops_builtin_yaml, ops_builtin_yaml_len);
	bool ok = load_text_at(r, "data/ops.yaml", buf, n, shift, &d);
	free(buf);
	if (!ok)
		abort();
}

OpRegistry *ops_default(void)
{
	if (!default_loaded) {
		default_loaded = true;
		OpRegistry *r = &default_registry;
		ops_init(r);
		if (ops_builtin_nindex < 0) {
			load_builtin_whole(r);
		} else {
			for (int i = 0; i < ops_builtin_nindex; i++) {
				const OpsBuiltinEntry *e = &ops_builtin_index[i];
				pmap_put(e->sugar ? &r->lazy_sugar : &r->lazy_ops,
					 intern_cstr(&r->arena, e->name), (void *)e);
			}
		}
	}
	return &default_registry;
}

/* A name not (yet) in the map: parse its built-in entry if it has one that
 * was neither loaded nor overridden by an --ops file. */
static void *find_lazily(OpRegistry *r, PtrMap *loaded, PtrMap *lazy, const char *name)
{
	const char *k = intern_cstr(&r->arena, name);
	void *v = pmap_get(loaded, k);
	if (v || !lazy->len)
		return v;
	const OpsBuiltinEntry *e = pmap_get(lazy, k);
	if (!e)
		return NULL;
	pmap_put(lazy, k, NULL);
	load_builtin_entry(r, e);
	return pmap_get(loaded, k);
}

/* The passes and the printer look up the same few op names by the ten
 * thousand, each time with a name interned in the program's arena: a
 * direct-mapped cache keyed by that pointer skips the interning.  A hit is
 * confirmed against the entry's own name, because once an arena is freed
 * its addresses may hold other strings; misses are not cached. */
static size_t hit_slot(const char *name)
{
	return ((uintptr_t)name >> 3 ^ (uintptr_t)name >> 9) & 63;
}

/* find_lazily through a cache (hit_ops or hit_sugar); a hit keeps the
 * registry's interned copy of the name to confirm the next one */
static const void *find_cached(OpRegistry *r, struct OpsHit *hits, PtrMap *loaded, PtrMap *lazy, const char *name)
{
	struct OpsHit *h = &hits[hit_slot(name)];
	if (h->key == name && !strcmp(h->name, name))
		return h->def;
	const void *def = find_lazily(r, loaded, lazy, name);
	if (def)
		*h = (struct OpsHit){ name, intern_cstr(&r->arena, name), def };
	return def;
}

const OpDef *ops_find(OpRegistry *r, const char *name)
{
	return find_cached(r, r->hit_ops, &r->ops, &r->lazy_ops, name);
}

const SugarDef *ops_find_sugar(OpRegistry *r, const char *name)
{
	return find_cached(r, r->hit_sugar, &r->sugar, &r->lazy_sugar, name);
}

OpsEffect ops_arg_effect(const OpDef *op, int i, bool has_kwarg, int64_t kwarg_value)
{
	if (i < 0 || i >= op->nparams)
		return EFF_READ;
	const OpsParam *p = &op->params[i];
	if (p->effect_kwarg) {
		if (p->effect_nonzero && has_kwarg && kwarg_value != 0)
			return p->effect_then;
		if (!p->effect_nonzero && has_kwarg && p->effect_equals.kind == OC_INT && p->effect_equals.i == kwarg_value)
			return p->effect_then;
	}
	return p->effect;
}

/* ------------------------------------------------------------ suggestions */

const char *ops_suggest(OpRegistry *r, const char *name)
{
	Suggest s;
	suggest_init(&s, name);
	for (int i = 0; i < ops_builtin_nindex; i++)
		suggest_offer(&s, ops_builtin_index[i].name);
	for (size_t i = 0; i < r->all.len; i++)
		suggest_offer(&s, ((const OpDef *)r->all.items[i])->name);
	for (size_t i = 0; i < r->sugar.cap; i++)
		suggest_offer(&s, r->sugar.keys[i]);
	/* the DSL's pl.* forms that the parser reads itself (no ops) */
	static const char *const forms[] = {
		"yield_", "cond", "const", "cast", "submit", "spmd_submit", "dynamic", "no_dep", "dump_tag",
		"static_print", "static_assert", "func_attr", "aiv_shard", "aic_gather", NULL,
	};
	for (int i = 0; forms[i]; i++)
		suggest_offer(&s, forms[i]);
	return s.best;
}

/* ------------------------------------------------------------ listing */

static void put_const(StrBuf *b, const OpDef *op, const OpsConst *k)
{
	switch (k->kind) {
	case OC_INT: sb_printf(b, "%lld", (long long)k->i); break;
	case OC_FLOAT: sb_printf(b, "%g", k->f); break;
	case OC_BOOL: sb_puts(b, k->i ? "True" : "False"); break;
	case OC_EMPTY_LIST: sb_puts(b, "[]"); break;
	case OC_SYMBOL: sb_puts(b, k->s); break;
	case OC_STR: sb_printf(b, "'%s'", k->s); break;
	case OC_REF: sb_puts(b, op->params[k->i].name); break;
	default: sb_puts(b, "None"); break;
	}
}

/* pl.tensor.add, but pld.tile.put: how the DSL spells a name */
static const char *dsl_prefix(const char *name) { return strncmp(name, "pld.", 4) ? "pl." : ""; }

void ops_signature(StrBuf *b, const OpDef *op)
{
	sb_printf(b, "%s%s(", dsl_prefix(op->name), op->name);
	int n = op->nparams + op->nkwargs;
	for (int i = 0; i < n; i++) {
		const OpsParam *p = op_slot(op, i);
		if (i == op->nparams)
			sb_puts(b, i ? ", *" : "*");
		sb_printf(b, "%s%s", i || op->nparams == 0 ? ", " : "", p->name);
		if (p->def.kind != OC_NONE || p->omit != OMIT_NEVER) {
			sb_putc(b, '=');
			put_const(b, op, &p->def);
		}
	}
	sb_putc(b, ')');
}

static const char *effect_name(OpsEffect e) { return e == EFF_WRITE ? "write" : e == EFF_READWRITE ? "readwrite" : "read"; }

/* "writes: target (write; readwrite when atomic != 0)" */
static void put_effects(StrBuf *b, const OpDef *op)
{
	bool any = false;
	int n = op->nparams + op->nkwargs;
	for (int i = 0; i < n; i++) {
		const OpsParam *p = op_slot(op, i);
		if (p->effect == EFF_READ && !p->effect_kwarg)
			continue;
		sb_puts(b, any ? ", " : "  writes: ");
		any = true;
		sb_printf(b, "%s (%s", p->name, effect_name(p->effect));
		if (p->effect_kwarg) {
			sb_printf(b, "; %s when %s ", effect_name(p->effect_then), p->effect_kwarg);
			if (p->effect_nonzero) {
				sb_puts(b, "!= 0");
			} else {
				sb_puts(b, "== ");
				put_const(b, op, &p->effect_equals);
			}
		}
		sb_putc(b, ')');
	}
}

static int cmp_name(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

int ops_list(OpRegistry *r, StrBuf *b)
{
	/* every name: the built-in index (loading each entry) and whatever
	 * --ops files added, once each, sorted */
	PtrVec names = { 0 };
	PtrMap seen = { 0 };
	for (int i = 0; i < ops_builtin_nindex; i++)
		if (!ops_builtin_index[i].sugar) {
			const char *k = intern_cstr(&r->arena, ops_builtin_index[i].name);
			if (!pmap_get(&seen, k)) {
				pmap_put(&seen, k, (void *)1);
				vec_push(&names, (void *)k);
			}
		}
	for (int i = 0; i < ops_builtin_nindex; i++)
		(void)ops_find(r, ops_builtin_index[i].name);
	for (size_t i = 0; i < r->all.len; i++) {
		const char *k = ((const OpDef *)r->all.items[i])->name;
		if (!pmap_get(&seen, k)) {
			pmap_put(&seen, k, (void *)1);
			vec_push(&names, (void *)k);
		}
	}
	qsort(names.items, names.len, sizeof *names.items, cmp_name);
	for (size_t i = 0; i < names.len; i++) {
		const OpDef *op = ops_find(r, names.items[i]);
		if (!op)
			continue;
		ops_signature(b, op);
		put_effects(b, op);
		sb_putc(b, '\n');
	}
	int n = (int)names.len;
	vec_release(&names);
	pmap_release(&seen);
	return n;
}

/* --list-dsl: each DSL spelling pl.NAME, sorted, with its dispatch cases
 * in the order they are tried. */
static const char *kind_word(OpsKind k)
{
	static const char *const w[] = { "any", "tensor", "tile", "scalar", "list", "dtype", "int", "number", "expr", "scalar-expr" };
	return (unsigned)k < sizeof w / sizeof *w ? w[k] : "any";
}

static const char *binary_word(int op)
{
	switch (op) {
	case OP_ADD: return "a + b";
	case OP_SUB: return "a - b";
	case OP_MUL: return "a * b";
	case OP_DIV: return "a / b";
	case OP_MIN: return "min(a, b)";
	case OP_MAX: return "max(a, b)";
	default: return "?";
	}
}

int ops_list_sugar(OpRegistry *r, StrBuf *b)
{
	PtrVec names = { 0 };
	PtrMap seen = { 0 };
	for (int i = 0; i < ops_builtin_nindex; i++)
		if (ops_builtin_index[i].sugar) {
			const char *k = intern_cstr(&r->arena, ops_builtin_index[i].name);
			(void)ops_find_sugar(r, k);
		}
	for (size_t i = 0; i < r->sugar.cap; i++) {
		const char *k = r->sugar.keys[i];
		if (k && r->sugar.vals[i] && !pmap_get(&seen, k)) {
			pmap_put(&seen, k, (void *)1);
			vec_push(&names, (void *)k);
		}
	}
	qsort(names.items, names.len, sizeof *names.items, cmp_name);
	for (size_t i = 0; i < names.len; i++) {
		const SugarDef *sd = ops_find_sugar(r, names.items[i]);
		sb_printf(b, "%s%s", dsl_prefix(sd->name), sd->name);
		for (int c = 0; c < sd->ncases; c++) {
			const SugarCase *sc = &sd->cases[c];
			sb_puts(b, c ? " | " : "  ");
			sb_putc(b, '(');
			for (int j = 0; j < sc->nargs; j++)
				sb_printf(b, "%s%s", j ? ", " : "", kind_word(sc->args[j]));
			sb_puts(b, sc->nargs ? ", ...)" : "...)");
			if (sc->kw)
				sb_printf(b, " with %s=", sc->kw);
			if (sc->op) {
				sb_printf(b, " -> %s%s", dsl_prefix(sc->op), sc->op);
				if (sc->nnames) {
					sb_putc(b, '(');
					for (int j = 0; j < sc->nnames; j++)
						sb_printf(b, "%s%s", j ? ", " : "", sc->names[j]);
					sb_putc(b, ')');
				}
			} else if (sc->error) {
				sb_puts(b, " -> error");
			} else {
				sb_printf(b, " -> scalar %s", binary_word(sc->binary));
			}
		}
		sb_putc(b, '\n');
	}
	int n = (int)names.len;
	vec_release(&names);
	pmap_release(&seen);
	return n;
}
