/* test_op_registry.c - the op registry (data/ops.yaml) and the sugar it
 * drives: the built-in file loads and every entry validates, a user file
 * (what --ops reads) adds an op that then parses, infers and prints,
 * malformed entries are located errors naming the field, and bad calls
 * (wrong arity, wrong argument kind, contradictory annotation, untyped
 * value) are located parse errors. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptoopt/arena.h"
#include "ptoopt/diag.h"
#include "ptoopt/ir.h"
#include "ptoopt/op_registry.h"
#include "ptoopt/parse.h"
#include "ptoopt/print.h"
#include "ptoopt/strbuf.h"

static char *ERR;
static size_t ERRLEN;

/* Load YAML text into r; diagnostics go to ERR. */
static bool load(OpRegistry *r, const char *text)
{
	Diag d;
	diag_init(&d, "user.yaml", text, strlen(text));
	free(ERR);
	ERR = NULL;
	FILE *f = open_memstream(&ERR, &ERRLEN);
	d.out = f;
	bool ok = ops_load_text(r, "user.yaml", text, strlen(text), &d);
	fclose(f);
	return ok;
}

/* Parse and print src; NULL (message in ERR) on a parse error. */
static char *roundtrip(const char *src)
{
	Arena a;
	arena_init(&a);
	Diag d;
	diag_init(&d, "t.pto", src, strlen(src));
	free(ERR);
	ERR = NULL;
	FILE *f = open_memstream(&ERR, &ERRLEN);
	d.out = f;
	Program *p = parse_program(&a, &d, src, strlen(src));
	fclose(f);
	char *out = NULL;
	if (p) {
		StrBuf b = { 0 };
		print_program(&b, p);
		out = strndup(b.data, b.len);
		sb_release(&b);
		ir_program_release(p);
	}
	arena_free(&a);
	return out;
}

#define HDR "import pypto.language as pl\n\n@pl.program\nclass P:\n    @pl.function\n"

START_TEST(builtin_loads_and_validates)
{
	OpRegistry r;
	ops_init(&r);
	ck_assert_msg(load(&r, ops_builtin_yaml), "built-in registry: %s", ERR);
	ck_assert_int_ge((int)r.all.len, 100);
	for (size_t i = 0; i < r.all.len; i++) {
		const OpDef *op = r.all.items[i];
		ck_assert_ptr_nonnull(strchr(op->name, '.'));
		ck_assert_ptr_eq(ops_find(&r, op->name), op);
		for (int k = 0; k < op->nparams; k++)
			ck_assert_ptr_nonnull(op->params[k].name);
	}
	/* the ops of the pass-test corpus the spec lists (text-format.md §10) */
	static const char *const corpus[] = {
		"tensor.add", "tensor.adds", "tensor.mul", "tensor.muls", "tensor.create", "tensor.full",
		"tensor.read", "tensor.slice", "tensor.assemble", "tensor.dim", "tensor.reinterpret_view",
		"tensor.row_sum", "tensor.reshape", "tile.add", "tile.exp", "tile.load", "tile.store",
		"tile.full", "tile.slice", "tile.get_block_idx", "system.cacheinvalid",
		"pld.system.defer_wait", "pld.system.notify", NULL,
	};
	for (int i = 0; corpus[i]; i++)
		ck_assert_msg(ops_find(&r, corpus[i]), "%s missing", corpus[i]);
	const SugarDef *add = ops_find_sugar(&r, "add");
	ck_assert_ptr_nonnull(add);
	ck_assert_int_eq(add->ncases, 5);
	/* effects (passes.md §9) */
	const OpDef *st = ops_find(&r, "tile.store");
	ck_assert_int_eq(ops_arg_effect(st, 2, false, 0), EFF_WRITE);
	ck_assert_int_eq(ops_arg_effect(st, 2, true, 1), EFF_READWRITE);
	ck_assert_int_eq(ops_arg_effect(st, 0, false, 0), EFF_READ);
	ops_release(&r);
}
END_TEST

/* ops_default() parses each built-in entry on first lookup (start-up cost):
 * every indexed entry must come out as the whole-file load makes it. */
static void same_params(const OpsParam *a, const OpsParam *b, int n)
{
	for (int k = 0; k < n; k++) {
		ck_assert_str_eq(a[k].name, b[k].name);
		ck_assert_int_eq(a[k].kind, b[k].kind);
		ck_assert_int_eq(a[k].def.kind, b[k].def.kind);
		ck_assert_int_eq(a[k].omit, b[k].omit);
		ck_assert_int_eq(a[k].effect, b[k].effect);
		ck_assert_int_eq(a[k].nvalues, b[k].nvalues);
		ck_assert_int_eq(a[k].nalias, b[k].nalias);
	}
}

START_TEST(lazy_builtin_matches_whole_load)
{
	OpRegistry whole;
	ops_init(&whole);
	ck_assert_msg(load(&whole, ops_builtin_yaml), "built-in registry: %s", ERR);
	ck_assert_int_eq(ops_builtin_nindex, (int)whole.all.len + (int)whole.sugar.len);
	OpRegistry *lazy = ops_default();
	ck_assert_int_eq((int)lazy->all.len, 0); /* nothing parsed at start-up */
	for (int i = 0; i < ops_builtin_nindex; i++) {
		const OpsBuiltinEntry *e = &ops_builtin_index[i];
		if (e->sugar) {
			const SugarDef *a = ops_find_sugar(lazy, e->name), *b = ops_find_sugar(&whole, e->name);
			ck_assert_msg(a && b, "sugar %s", e->name);
			ck_assert_int_eq(a->ncases, b->ncases);
			for (int k = 0; k < a->ncases; k++) {
				ck_assert_int_eq(a->cases[k].nargs, b->cases[k].nargs);
				ck_assert_int_eq(a->cases[k].binary, b->cases[k].binary);
				ck_assert_str_eq(a->cases[k].op ? a->cases[k].op : "-", b->cases[k].op ? b->cases[k].op : "-");
			}
			continue;
		}
		const OpDef *a = ops_find(lazy, e->name), *b = ops_find(&whole, e->name);
		ck_assert_msg(a && b, "op %s", e->name);
		ck_assert_int_eq(a->line, b->line); /* positions are those of the whole file */
		ck_assert_int_eq(a->col, b->col);
		ck_assert_int_eq(a->nparams, b->nparams);
		ck_assert_int_eq(a->nkwargs, b->nkwargs);
		same_params(a->params, b->params, a->nparams);
		same_params(a->kwargs, b->kwargs, a->nkwargs);
		ck_assert_ptr_eq(a->result.kind, b->result.kind);
		ck_assert_int_eq(a->result.arg, b->result.arg);
		ck_assert_int_eq(a->result.nelems, b->result.nelems);
	}
	ck_assert_ptr_null(ops_find(lazy, "tensor.no_such_op"));
	ck_assert_ptr_null(ops_find_sugar(lazy, "no_such_sugar"));
	ops_release(&whole);
}
END_TEST

/* An --ops entry overrides a built-in one that was never looked up. */
START_TEST(user_file_overrides_unloaded_builtin)
{
	ck_assert_msg(load(ops_default(),
			   "ops:\n"
			   "  - {op: tensor.exp, params: [{name: x, kind: tensor}, {name: y, kind: tensor}], result: {rule: unknown}}\n"),
		      "%s", ERR);
	const OpDef *op = ops_find(ops_default(), "tensor.exp");
	ck_assert_ptr_nonnull(op);
	ck_assert_int_eq(op->nparams, 2);
	ck_assert_str_eq(op->params[1].name, "y");
	ck_assert_ptr_nonnull(ops_find(ops_default(), "tensor.neg")); /* the others still load */
}
END_TEST

START_TEST(user_file_adds_an_op)
{
	/* what `ptoopt --ops my_ops.yaml` does: extend the process registry */
	ck_assert_msg(load(ops_default(),
			   "ops:\n"
			   "  - op: tensor.my_scale\n"
			   "    params: [{name: x, kind: tensor}, {name: factor, kind: scalar, coerce: elem-of-0}]\n"
			   "    kwargs: [{name: mode, default: 'fast'}]\n"
			   "    result: {rule: like-arg, arg: 0}\n"
			   "sugar:\n"
			   "  - {name: my_scale, dispatch: [{args: [tensor], op: tensor.my_scale}]}\n"),
		      "%s", ERR);
	char *out = roundtrip(HDR
			      "    def f(self, x: pl.Tensor[[64], pl.FP16]) -> pl.Tensor[[64], pl.FP16]:\n"
			      "        y = pl.my_scale(x, 2)\n"
			      "        return y\n");
	ck_assert_msg(out, "%s", ERR);
	ck_assert_ptr_nonnull(strstr(out, "        y: pl.Tensor[[64], pl.FP16] = "
					  "pl.tensor.my_scale(x, pl.const(2.0, pl.FP16), mode='fast')\n"));
	free(out);
}
END_TEST

START_TEST(malformed_entries_are_located)
{
	static const struct { const char *text, *msg; } cases[] = {
		{ "ops:\n  - op: tensor.x\n    result: {rule: bogus}\n", "user.yaml:3:20: error: field 'rule': unknown result rule 'bogus'" },
		{ "ops:\n  - op: tensor.x\n    params: [{name: a, kind: matrix}]\n    result: {rule: none}\n",
		  "user.yaml:3:30: error: field 'kind': unknown kind 'matrix'" },
		{ "ops:\n  - op: tensor.x\n    result: {rule: same-as-arg, arg: 3}\n", "field 'arg': argument 3 does not exist" },
		{ "ops:\n  - op: tensor.x\n    reslt: {rule: none}\n", "user.yaml:3:5: error: unknown field 'reslt' in an op entry" },
		{ "ops:\n  - op: tensor.x\n", "user.yaml:2:5: error: op 'tensor.x' has no 'result'" },
		{ "sugar:\n  - {name: f, dispatch: [{op: tensor.nothere}]}\n", "field 'op': 'tensor.nothere' is not a registered op" },
		{ "ops: [\n", "user.yaml:2:1: error: invalid YAML" },
		{ "ops:\n  - op: array.x\n    params: [{name: n}]\n    result: {rule: array, length: 0}\n",
		  "result rule 'array' needs length and dtype" },
		{ "ops:\n  - op: tile.x\n    params: [{name: t}, {name: o}, {name: s}]\n"
		  "    result: {rule: tile-from-shape, shape: 2, dtype-of: 0, window-source: 0, window-offsets: 1}\n",
		  "window-source, window-offsets and valid-shape together" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		OpRegistry r;
		ops_init(&r);
		ck_assert_msg(!load(&r, cases[i].text), "case %zu loaded", i);
		ck_assert_msg(strstr(ERR, cases[i].msg), "case %zu: got %s", i, ERR);
		ops_release(&r);
	}
}
END_TEST

START_TEST(sugar_lowers_with_defaults_and_types)
{
	char *out = roundtrip(HDR
			      "    def f(self, x: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):\n"
			      "        y = pl.add(x, 1)\n"
			      "        t = pl.load(y, [0, 0], [64, 64])\n"
			      "        u: pl.Tile[[64, 64], pl.FP32] = pl.mul(t, t)\n"
			      "        pl.store(u, [0, 0], out)\n");
	ck_assert_msg(out, "%s", ERR);
	ck_assert_ptr_nonnull(strstr(out, "y: pl.Tensor[[64, 64], pl.FP32] = pl.tensor.adds(x, 1.0)\n"));
	ck_assert_ptr_nonnull(strstr(out, "t: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = "
					  "pl.tile.load(y, [0, 0], [64, 64], [64, 64], target_memory=pl.Mem.Vec)\n"));
	ck_assert_ptr_nonnull(strstr(out, "u: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.mul(t, t)\n"));
	ck_assert_ptr_nonnull(strstr(out, "        pl.tile.store(u, [0, 0], out)"));
	free(out);
}
END_TEST

START_TEST(array_and_window_read_rules)
{
	/* rule array: pl.array.create(N, DT) is a pl.Array[N, DT]; array.get_element
	 * gives its element type.  tile.load's window-source rule: a read keeps the
	 * part of the source's valid region under the window (the reference's
	 * canonical print of ssa/distributed_tensor_view_valid_shape_substitution) */
	char *out = roundtrip(HDR
			      "    def f(self, x: pl.Tensor[[16, 64], pl.FP32], n: pl.Scalar[pl.INDEX]):\n"
			      "        w = pl.array.create(4, pl.TASK_ID)\n"
			      "        e = pl.array.get_element(w, 0)\n"
			      "        sub = pl.tensor.slice(x, [8, 64], [0, 0], valid_shape=[8, n])\n"
			      "        t = pl.load(sub, [0, 0], [8, 64])\n"
			      "        u = pl.load(x, [0, 0], [8, 64])\n");
	ck_assert_msg(out, "%s", ERR);
	ck_assert_ptr_nonnull(strstr(out, "w: pl.Array[4, pl.TASK_ID] = pl.array.create(4, dtype=pl.TASK_ID)\n"));
	ck_assert_ptr_nonnull(strstr(out, "e: pl.Scalar[pl.TASK_ID] = pl.array.get_element(w, 0)\n"));
	ck_assert_ptr_nonnull(strstr(out, "t: pl.Tile[[8, 64], pl.FP32, pl.Mem.Vec, "
					  "pl.TileView(valid_shape=[8, pl.min(n, pl.const(64, pl.INDEX))])] = "));
	ck_assert_ptr_nonnull(strstr(out, "u: pl.Tile[[8, 64], pl.FP32, pl.Mem.Vec] = "));
	free(out);
}
END_TEST

START_TEST(bad_calls_are_located_errors)
{
	static const struct { const char *body, *msg; } cases[] = {
		{ "        y = pl.tensor.exp(x, x)\n", "t.pto:7:13: error: pl.tensor operation 'exp': exp() takes 1 positional argument but 2 were given (signature: pl.tensor.exp(input))" },
		{ "        y = pl.tensor.exp(t=x)\n", "pl.tensor operation 'exp': exp() got an unexpected keyword argument 't'" },
		{ "        y = pl.tile.load(x, [0], [64], [64], pl.Mem.Vec, False, 1)\n",
		  "t.pto:7:13: error: pl.tile operation 'load': load() takes from 3 to 6 positional arguments but 7 were given (signature: pl.tile.load(tensor, offsets, shapes, valid_shapes=shapes, *, target_memory=pl.Mem.Vec, clamp=False))" },
		{ "        y = pl.tile.exp(x)\n", "pl.tile operation 'exp': The operator tile.exp requires argument to be a TileType, but got TensorType" },
		{ "        y = pl.tensor.create([64])\n", "pl.tensor operation 'create': create() missing 1 required positional argument: 'dtype'" },
		{ "        y: pl.Tensor[[64], pl.INT32] = pl.add(x, x)\n",
		  "t.pto:7:9: error: Type annotation for 'y' has dtype int32 but expression has dtype fp32" },
		{ "        y: pl.Tile[[64], pl.FP32] = pl.add(x, x)\n", "Type annotation for 'y' is Tile but expression has type Tensor" },
		{ "        y = pl.tensor.frobnicate(x)\n",
		  "t.pto:7:13: error: Unknown pl.tensor operation: frobnicate: not in the op registry" },
		{ "        y: pl.Tensor[[64], pl.FP32] = pl.tensor.frobnicate(x)\n",
		  "t.pto:7:39: error: Unknown pl.tensor operation: frobnicate: not in the op registry" },
		{ "        y: pl.Tensor[[64], pl.FP32] = pl.tile.exq(x)\n",
		  "Unknown pl.tile operation: exq; did you mean 'pl.tile.exp'?" },
		{ "        y: pl.Tensor[[64], pl.FP32] = pl.tiles.exp(x)\n",
		  "Unknown operation 'pl.tiles'; did you mean 'pl.tile.exp'?" },
		{ "        y: pl.Tensor[[64], pl.FP32] = pld.system.notfiy(x)\n",
		  "Unknown distributed operation 'pld.system.notfiy'; did you mean 'pld.system.notify'?" },
		{ "        r = pl.no_dep(x)\n", "Unknown operation 'pl.no_dep'" },
		{ "        y = pl.tile.load(x, [0], [64], foo=1)\n",
		  "pl.tile operation 'load': load() got an unexpected keyword argument 'foo' (signature: pl.tile.load(tensor, offsets, shapes, valid_shapes=shapes, *, "
		  "target_memory=pl.Mem.Vec, clamp=False))" },
		{ "        y = pl.add(x, pl.load(x, [0], [64]))\n", "pl.add: no form of this op takes" },
		{ "        y = x + 1\n", "operators on tensors and tiles are not supported" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char src[1024];
		snprintf(src, sizeof src, HDR "    def f(self, x: pl.Tensor[[64], pl.FP32]):\n%s", cases[i].body);
		char *out = roundtrip(src);
		ck_assert_msg(!out, "case %zu parsed", i);
		ck_assert_msg(strstr(ERR, cases[i].msg), "case %zu: got %s", i, ERR);
	}
	/* --allow-unregistered-ops: an unknown op whose type is not needed
	 * prints as written, after one warning per name */
	ops_default()->allow_unregistered = true;
	char *out = roundtrip(HDR "    def f(self, x: pl.Tensor[[64], pl.FP32]):\n"
			      "        y: pl.Tensor[[64], pl.FP32] = pl.tensor.frobnicate(x, k=1)\n"
			      "        z: pl.Tensor[[64], pl.FP32] = pl.tensor.frobnicate(y)\n");
	ops_default()->allow_unregistered = false;
	ck_assert_msg(out, "%s", ERR);
	ck_assert_ptr_nonnull(strstr(out, "= pl.tensor.frobnicate(x, k=1)"));
	ck_assert_ptr_nonnull(strstr(ERR, "t.pto:7:39: warning: unregistered operation 'pl.tensor.frobnicate'"));
	ck_assert_ptr_null(strstr(strstr(ERR, "warning") + 1, "warning")); /* once per name */
	free(out);
}
END_TEST

/* sugar.c binds arguments by a plan per way of calling an op (positional
 * count and keyword names in order), kept for a few ways per op: every
 * spelling of one call must print the same canonical call, also past the
 * kept ways, and errors keep their order (slot by slot) on a known way. */
START_TEST(every_way_of_calling_binds_alike)
{
	static const char *const ways[] = {
		"[64], dtype=pl.FP16, init_value=0, manual_dep=True",
		"[64], dtype=pl.FP16, manual_dep=True, init_value=0",
		"[64], manual_dep=True, init_value=0, dtype=pl.FP16",
		"shape=[64], dtype=pl.FP16, init_value=0, manual_dep=True",
		"[64], pl.FP16, init_value=0, manual_dep=True",
		"[64], pl.FP16, pl.TensorLayout.ND, init_value=0, manual_dep=True",
		"[64], pl.FP16, pl.TensorLayout.ND, manual_dep=True, init_value=0",
		"[64], pl.FP16, layout=pl.TensorLayout.ND, manual_dep=True, init_value=0",
		"init_value=0, shape=[64], manual_dep=True, dtype=pl.FP16",
		"[64], init_value=0, dtype=pl.FP16, layout=pl.TensorLayout.ND, manual_dep=True",
		"[64], dtype=pl.FP16, init_value=0, manual_dep=True",
	};
	char src[4096];
	int n = snprintf(src, sizeof src, HDR "    def f(self, x: pl.Tensor[[64], pl.FP32]):\n");
	for (size_t i = 0; i < sizeof ways / sizeof ways[0]; i++)
		n += snprintf(src + n, sizeof src - (size_t)n, "        a%zu = pl.tensor.create(%s)\n", i, ways[i]);
	char *out = roundtrip(src);
	ck_assert_msg(out, "%s", ERR);
	for (size_t i = 0; i < sizeof ways / sizeof ways[0]; i++) {
		char want[256];
		snprintf(want, sizeof want, "        a%zu: pl.Tensor[[64], pl.FP16] = pl.tensor.create([64], dtype=pl.FP16, "
			 "layout=pl.TensorLayout.ND, manual_dep=True, init_value=0.0)\n", i); /* as the reference prints it */
		ck_assert_msg(strstr(out, want), "way %zu: %s", i, out);
	}
	free(out);
	static const struct { const char *body, *msg; } bad[] = {
		{ "        y = pl.tensor.create([64], dtype=pl.FP16, init_value=0, manual_dep=True, bogus=1)\n",
		  "t.pto:8:13: error: pl.tensor operation 'create': create() got an unexpected keyword argument 'bogus'" },
		/* Python's arity errors come before the deducer's kind errors */
		{ "        y = pl.tensor.slice(1, [8])\n",
		  "t.pto:8:13: error: pl.tensor operation 'slice': slice() missing 1 required positional argument: 'offset'" },
		{ "        y = pl.tensor.slice(1, [8], [0])\n",
		  "t.pto:8:13: error: pl.tensor operation 'slice': tensor.slice requires first argument to be a TensorType or "
		  "DistributedTensorType, but got ScalarType" },
		{ "        y = pl.tensor.create([64], pl.FP16, pl.TensorLayout.ND, 0, manual_dep=True)\n",
		  "t.pto:8:13: error: pl.tensor operation 'create': create() got multiple values for argument 'manual_dep'" },
		{ "        y = pl.tensor.slice(x, 1, [0])\n", "t.pto:8:13: error: pl.tensor.slice: argument 'shape' must be a list" },
		{ "        y = pl.tensor.slice(x, [8])\n", "t.pto:8:13: error: pl.tensor operation 'slice': slice() missing 1 required positional argument: 'offset'" },
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		/* the same op called correctly first: its way of calling is known */
		snprintf(src, sizeof src, HDR "    def f(self, x: pl.Tensor[[64], pl.FP32]):\n"
			 "        z = pl.tensor.slice(x, [8], [0])\n%s", bad[i].body);
		out = roundtrip(src);
		ck_assert_msg(!out, "case %zu parsed", i);
		ck_assert_msg(strstr(ERR, bad[i].msg), "case %zu: got %s", i, ERR);
	}
}
END_TEST

static Suite *registry_suite(void)
{
	Suite *s = suite_create("op_registry");
	TCase *tc = tcase_create("registry");
	tcase_add_test(tc, builtin_loads_and_validates);
	tcase_add_test(tc, user_file_adds_an_op);
	tcase_add_test(tc, lazy_builtin_matches_whole_load);
	tcase_add_test(tc, user_file_overrides_unloaded_builtin);
	tcase_add_test(tc, array_and_window_read_rules);
	tcase_add_test(tc, malformed_entries_are_located);
	tcase_add_test(tc, sugar_lowers_with_defaults_and_types);
	tcase_add_test(tc, bad_calls_are_located_errors);
	tcase_add_test(tc, every_way_of_calling_binds_alike);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(registry_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	free(ERR);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
