/* test_verify.c - the SSA verifier on valid IR, on convert-to-ssa output, and
 * on broken IR (double definition, use before definition, use outside the
 * defining loop); the reference's SSA rules, pass contracts and inline pass
 * options (pipeline.c), and the canonical print of structural golden mode. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptoopt/parse.h"
#include "ptoopt/passes.h"
#include "ptoopt/pipeline.h"
#include "ptoopt/print.h"
#include "ptoopt/verify.h"

typedef struct Fixture {
	Arena arena;
	Diag diag;
	char *msg;
	size_t msglen;
	Program *prog;
} Fixture;

static void setup(Fixture *f, const char *src)
{
	arena_init(&f->arena);
	diag_init(&f->diag, "t.pto", src, strlen(src));
	f->diag.out = open_memstream(&f->msg, &f->msglen);
	f->prog = parse_program(&f->arena, &f->diag, src, strlen(src));
	ck_assert_ptr_nonnull(f->prog);
}

static const char *messages(Fixture *f)
{
	fflush(f->diag.out);
	return f->msg ? f->msg : "";
}

static void teardown(Fixture *f)
{
	fclose(f->diag.out);
	free(f->msg);
	ir_program_release(f->prog);
	arena_free(&f->arena);
}

#define HEADER "import pypto.language as pl\n@pl.program\nclass P:\n"

static const char *reassigning =
	HEADER
	"    @pl.function\n"
	"    def main(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:\n"
	"        y: pl.Tensor[[64], pl.FP32] = pl.tensor.adds(x, 1.0)\n"
	"        y: pl.Tensor[[64], pl.FP32] = pl.tensor.adds(y, 2.0)\n"
	"        for i in pl.range(4):\n"
	"            y: pl.Tensor[[64], pl.FP32] = pl.tensor.adds(y, 3.0)\n"
	"        return y\n";

START_TEST(rejects_double_definition)
{
	Fixture f;
	setup(&f, reassigning);
	ck_assert(!verify_ssa(f.prog, &f.diag, NULL));
	ck_assert_ptr_nonnull(strstr(messages(&f), "variable 'y' is defined more than once"));
	/* the second assignment (line 7) redefines y */
	ck_assert_ptr_nonnull(strstr(messages(&f), "t.pto:7:9: error"));
	teardown(&f);
}
END_TEST

START_TEST(accepts_convert_to_ssa_output)
{
	Fixture f;
	setup(&f, reassigning);
	ck_assert_int_eq(ssa_convert_program(f.prog, &f.diag), 0);
	ck_assert_msg(verify_ssa(f.prog, &f.diag, "convert-to-ssa"), "%s", messages(&f));
	teardown(&f);
}
END_TEST

START_TEST(rejects_use_before_definition)
{
	Fixture f;
	setup(&f, HEADER
		  "    @pl.function\n"
		  "    def main(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:\n"
		  "        a: pl.Tensor[[64], pl.FP32] = pl.tensor.adds(x, 1.0)\n"
		  "        b: pl.Tensor[[64], pl.FP32] = pl.tensor.adds(a, 2.0)\n"
		  "        return b\n");
	ck_assert(verify_ssa(f.prog, &f.diag, NULL));
	/* break the IR: swap the two assignments */
	Block *body = &f.prog->funcs[0]->body;
	Stmt *t = body->stmts[0];
	body->stmts[0] = body->stmts[1];
	body->stmts[1] = t;
	ck_assert(!verify_ssa(f.prog, &f.diag, "a-broken-pass"));
	ck_assert_ptr_nonnull(strstr(messages(&f), "after a-broken-pass"));
	ck_assert_ptr_nonnull(strstr(messages(&f), "variable 'a' is used before it is defined"));
	teardown(&f);
}
END_TEST

START_TEST(rejects_use_outside_defining_loop)
{
	Fixture f;
	/* a plain for leaks `t` to the parser, but in SSA form a body
	 * definition is not visible after the loop */
	setup(&f, HEADER
		  "    @pl.function\n"
		  "    def main(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:\n"
		  "        for i in pl.range(4):\n"
		  "            t: pl.Tensor[[64], pl.FP32] = pl.tensor.adds(x, 1.0)\n"
		  "        return t\n");
	ck_assert(!verify_ssa(f.prog, &f.diag, NULL));
	ck_assert_ptr_nonnull(strstr(messages(&f), "variable 't' is used outside the scope that defines it"));
	teardown(&f);
}
END_TEST

START_TEST(scope_definitions_stay_visible)
{
	Fixture f;
	setup(&f, HEADER
		  "    @pl.function\n"
		  "    def main(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:\n"
		  "        with pl.at(level=pl.Level.CORE_GROUP):\n"
		  "            t: pl.Tensor[[64], pl.FP32] = pl.tensor.adds(x, 1.0)\n"
		  "        return t\n");
	ck_assert_msg(verify_ssa(f.prog, &f.diag, NULL), "%s", messages(&f));
	teardown(&f);
}
END_TEST

/* A parameter assigned once: not SSA by verify_ssa (the parameter is a
 * definition), SSA by the reference's rules (only assignments count). */
static const char *param_assigned =
	HEADER
	"    @pl.function\n"
	"    def main(self, a: pl.Tensor[[64], pl.FP32], c: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:\n"
	"        c = pl.tensor.adds(a, 1.0)\n"
	"        return c\n";

START_TEST(reference_rules_allow_one_parameter_assignment)
{
	Fixture f;
	setup(&f, param_assigned);
	ck_assert(!verify_ssa(f.prog, &f.diag, NULL));
	ck_assert_msg(verify_ssa_ref(f.prog, &f.diag, NULL), "%s", messages(&f));
	teardown(&f);
	/* assigned in a loop body, the parameter stays visible after the loop */
	setup(&f, HEADER
		  "    @pl.function\n"
		  "    def main(self, a: pl.Tensor[[64], pl.FP32], c: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:\n"
		  "        for i in pl.range(4):\n"
		  "            c = pl.tensor.adds(a, 1.0)\n"
		  "        return c\n");
	ck_assert_msg(verify_ssa_ref(f.prog, &f.diag, NULL), "%s", messages(&f));
	ck_assert(!verify_ssa(f.prog, &f.diag, NULL));
	teardown(&f);
	setup(&f, reassigning);
	ck_assert(!verify_ssa_ref(f.prog, &f.diag, NULL));
	ck_assert_ptr_nonnull(strstr(messages(&f), "variable 'y' is defined more than once"));
	teardown(&f);
}
END_TEST

static Pipeline parse_pipeline(Fixture *f, const char *list)
{
	Pipeline pl = { 0 };
	ck_assert_msg(pipe_parse_list(list, &pl, &f->diag), "%s", messages(f));
	return pl;
}

START_TEST(contract_violation_names_the_fix)
{
	Fixture f;
	setup(&f, reassigning);
	Pipeline pl = parse_pipeline(&f, "outline-incore,outline-cluster");
	ck_assert(!pipe_check_contracts(f.prog, &pl, &f.diag));
	ck_assert_ptr_nonnull(strstr(messages(&f), "t.pto: error: outline-incore requires SSA form; run convert-to-ssa first "
						   "(--passes=convert-to-ssa,outline-incore,outline-cluster)"));
	ck_assert_ptr_nonnull(strstr(messages(&f), "t.pto:7:9: note: the input lacks SSA form: "));
	pipe_release(&pl);
	teardown(&f);
}
END_TEST

START_TEST(contracts_follow_produced_properties)
{
	Fixture f;
	setup(&f, reassigning);
	/* convert-to-ssa produces what outline-incore needs, outline-incore
	 * what derive-call-directions needs: nothing is checked on the input */
	Pipeline pl = parse_pipeline(&f, "convert-to-ssa,outline-incore,derive-call-directions");
	ck_assert_msg(pipe_check_contracts(f.prog, &pl, &f.diag), "%s", messages(&f));
	pipe_release(&pl);
	teardown(&f);
	/* the order matters (for an input with an InCore scope) */
	setup(&f, HEADER
		  "    @pl.function\n"
		  "    def main(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:\n"
		  "        with pl.at(level=pl.Level.CORE_GROUP):\n"
		  "            t: pl.Tensor[[64], pl.FP32] = pl.tensor.adds(x, 1.0)\n"
		  "        return t\n");
	pl = parse_pipeline(&f, "convert-to-ssa,derive-call-directions,outline-incore");
	ck_assert(!pipe_check_contracts(f.prog, &pl, &f.diag));
	ck_assert_ptr_nonnull(strstr(messages(&f), "derive-call-directions requires outlined InCore scopes; run "
						   "outline-incore first (--passes=convert-to-ssa,outline-incore,"
						   "derive-call-directions,outline-incore)"));
	pipe_release(&pl);
	teardown(&f);
}
END_TEST

START_TEST(contracts_accept_an_input_that_has_the_property)
{
	Fixture f;
	setup(&f, param_assigned);
	Pipeline pl = parse_pipeline(&f, "outline-incore");
	ck_assert_msg(pipe_check_contracts(f.prog, &pl, &f.diag), "%s", messages(&f));
	pipe_release(&pl);
	teardown(&f);
}
END_TEST

START_TEST(inline_options_attach_to_their_step)
{
	Fixture f;
	setup(&f, reassigning);
	Pipeline pl = parse_pipeline(&f, "infer-directions,infer-directions{mode=raise-only,functions=a,b},convert-to-ssa");
	ck_assert_int_eq(pl.n, 3);
	ck_assert_int_eq(pl.steps[0].nopts, 0);
	ck_assert_int_eq(pl.steps[1].nopts, 2);
	ck_assert_str_eq(pl.steps[1].opts[1].key, "functions");
	ck_assert_str_eq(pl.steps[1].opts[1].value, "a,b");
	StrBuf b = { 0 };
	pipe_format_inline(&b, &pl);
	sb_putc(&b, 0);
	ck_assert_str_eq(b.data, "infer-directions,infer-directions{mode=raise-only,functions=a,b},convert-to-ssa");
	sb_release(&b);
	pipe_release(&pl);
	teardown(&f);
}
END_TEST

/* print_program_canonical: equal for programs that differ in variable
 * names only, different when anything else differs. */
static char *canonical(const char *src)
{
	Fixture f;
	setup(&f, src);
	StrBuf b = { 0 };
	print_program_canonical(&b, f.prog);
	sb_putc(&b, 0);
	teardown(&f);
	return b.data;
}

START_TEST(canonical_print_ignores_variable_names_only)
{
	char *a = canonical(reassigning);
	char *renamed = canonical(HEADER
				  "    @pl.function\n"
				  "    def main(self, q: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:\n"
				  "        w: pl.Tensor[[64], pl.FP32] = pl.tensor.adds(q, 1.0)  # a comment\n"
				  "        w: pl.Tensor[[64], pl.FP32] = pl.tensor.adds(w, 2.0)\n"
				  "        for j in pl.range(4):\n"
				  "            w: pl.Tensor[[64], pl.FP32] = pl.tensor.adds(w, 3.0)\n"
				  "        return w\n");
	char *other_const = canonical(HEADER
				      "    @pl.function\n"
				      "    def main(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:\n"
				      "        y: pl.Tensor[[64], pl.FP32] = pl.tensor.adds(x, 1.0)\n"
				      "        y: pl.Tensor[[64], pl.FP32] = pl.tensor.adds(y, 2.5)\n"
				      "        for i in pl.range(4):\n"
				      "            y: pl.Tensor[[64], pl.FP32] = pl.tensor.adds(y, 3.0)\n"
				      "        return y\n");
	char *other_fn = canonical(HEADER
				   "    @pl.function\n"
				   "    def entry(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:\n"
				   "        y: pl.Tensor[[64], pl.FP32] = pl.tensor.adds(x, 1.0)\n"
				   "        y: pl.Tensor[[64], pl.FP32] = pl.tensor.adds(y, 2.0)\n"
				   "        for i in pl.range(4):\n"
				   "            y: pl.Tensor[[64], pl.FP32] = pl.tensor.adds(y, 3.0)\n"
				   "        return y\n");
	ck_assert_str_eq(a, renamed);
	ck_assert_ptr_null(strstr(a, "\n        y"));
	ck_assert_str_ne(a, other_const);
	ck_assert_str_ne(a, other_fn);
	free(a);
	free(renamed);
	free(other_const);
	free(other_fn);
}
END_TEST

START_TEST(nested_incore_rejected_sibling_accepted)
{
	Fixture f;
	setup(&f, HEADER
		  "    @pl.function\n"
		  "    def main(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:\n"
		  "        with pl.at(level=pl.Level.CORE_GROUP):\n"
		  "            t: pl.Tensor[[64], pl.FP32] = pl.tensor.adds(x, 1.0)\n"
		  "        for i in pl.range(2):\n"
		  "            with pl.at(level=pl.Level.CORE_GROUP):\n"
		  "                t: pl.Tensor[[64], pl.FP32] = pl.tensor.adds(t, 1.0)\n"
		  "                with pl.at(level=pl.Level.CORE_GROUP):\n"
		  "                    u: pl.Tensor[[64], pl.FP32] = pl.tensor.adds(t, 1.0)\n"
		  "        return t\n");
	ck_assert(!verify_no_nested_incore(f.prog, &f.diag));
	ck_assert_ptr_nonnull(strstr(messages(&f), "t.pto:11:17: error: Nested InCore scope detected"));
	teardown(&f);
	setup(&f, HEADER
		  "    @pl.function\n"
		  "    def main(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:\n"
		  "        with pl.at(level=pl.Level.CORE_GROUP):\n"
		  "            t: pl.Tensor[[64], pl.FP32] = pl.tensor.adds(x, 1.0)\n"
		  "        with pl.at(level=pl.Level.CORE_GROUP):\n"
		  "            u: pl.Tensor[[64], pl.FP32] = pl.tensor.adds(t, 1.0)\n"
		  "        return u\n");
	ck_assert_msg(verify_no_nested_incore(f.prog, &f.diag), "%s", messages(&f));
	teardown(&f);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("verify");
	TCase *tc = tcase_create("ssa");
	tcase_add_test(tc, rejects_double_definition);
	tcase_add_test(tc, accepts_convert_to_ssa_output);
	tcase_add_test(tc, rejects_use_before_definition);
	tcase_add_test(tc, rejects_use_outside_defining_loop);
	tcase_add_test(tc, scope_definitions_stay_visible);
	tcase_add_test(tc, nested_incore_rejected_sibling_accepted);
	tcase_add_test(tc, reference_rules_allow_one_parameter_assignment);
	tcase_add_test(tc, contract_violation_names_the_fix);
	tcase_add_test(tc, contracts_follow_produced_properties);
	tcase_add_test(tc, contracts_accept_an_input_that_has_the_property);
	tcase_add_test(tc, inline_options_attach_to_their_step);
	tcase_add_test(tc, canonical_print_ignores_variable_names_only);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
