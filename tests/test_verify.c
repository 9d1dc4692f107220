/* test_verify.c - the SSA verifier on valid IR, on convert-to-ssa output, and
 * on broken IR (double definition, use before definition, use outside the
 * defining loop). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptoopt/parse.h"
#include "ptoopt/passes.h"
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
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
