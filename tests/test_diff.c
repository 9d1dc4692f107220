/* test_diff.c - the unified diff (diff.c): exact output on small cases
 * (checked by hand against GNU diff -u), applying the diff of random texts
 * gives back the second text, the result is minimal where GNU diff's is
 * (same number of changed lines on random small cases), and large inputs
 * with many changes finish quickly. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ptoopt/diff.h"

static char *run_diff(const char *a, const char *b, bool *differ)
{
	StrBuf out = { 0 };
	*differ = diff_unified(&out, "a", a, strlen(a), "b", b, strlen(b), 3, false);
	sb_putc(&out, 0);
	return out.data;
}

START_TEST(equal_texts_print_nothing)
{
	bool differ;
	char *d = run_diff("x\ny\n", "x\ny\n", &differ);
	ck_assert(!differ);
	ck_assert_str_eq(d, "");
	free(d);
}
END_TEST

START_TEST(one_changed_line_with_context)
{
	bool differ;
	char *d = run_diff("1\n2\n3\n4\n5\n6\n7\n8\n9\n", "1\n2\n3\n4\nX\n6\n7\n8\n9\n", &differ);
	ck_assert(differ);
	ck_assert_str_eq(d, "--- a\n+++ b\n@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+X\n 6\n 7\n 8\n");
	free(d);
}
END_TEST

START_TEST(distant_changes_make_two_hunks)
{
	bool differ;
	/* changes at lines 2 and 12: 9 equal lines between > 2*3 */
	char *d = run_diff("1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n",
			   "1\nB\n3\n4\n5\n6\n7\n8\n9\n10\n11\nC\n13\n", &differ);
	ck_assert_str_eq(d, "--- a\n+++ b\n"
			    "@@ -1,5 +1,5 @@\n 1\n-2\n+B\n 3\n 4\n 5\n"
			    "@@ -9,5 +9,5 @@\n 9\n 10\n 11\n-12\n+C\n 13\n");
	free(d);
}
END_TEST

START_TEST(insertion_into_empty_and_deletion_to_empty)
{
	bool differ;
	char *d = run_diff("", "a\nb\n", &differ);
	ck_assert_str_eq(d, "--- a\n+++ b\n@@ -0,0 +1,2 @@\n+a\n+b\n");
	free(d);
	d = run_diff("a\n", "", &differ);
	ck_assert_str_eq(d, "--- a\n+++ b\n@@ -1 +0,0 @@\n-a\n");
	free(d);
}
END_TEST

START_TEST(missing_final_newline_is_marked)
{
	bool differ;
	char *d = run_diff("a\nb", "a\nb\n", &differ);
	ck_assert_str_eq(d, "--- a\n+++ b\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n");
	free(d);
}
END_TEST

START_TEST(color_codes_when_asked)
{
	StrBuf out = { 0 };
	diff_unified(&out, "a", "x\n", 2, "b", "y\n", 2, 3, true);
	sb_putc(&out, 0);
	ck_assert_ptr_nonnull(strstr(out.data, "\033[31m-x\033[0m\n"));
	ck_assert_ptr_nonnull(strstr(out.data, "\033[32m+y\033[0m\n"));
	ck_assert_ptr_nonnull(strstr(out.data, "\033[36m@@ -1 +1 @@\033[0m"));
	sb_release(&out);
}
END_TEST

/* Apply a unified diff (as diff_unified writes it) to a; the result
 * (malloc'd), or NULL when the diff does not fit a. */
static char *apply(const char *a, const char *diff)
{
	StrBuf out = { 0 };
	const char *p = strchr(strchr(diff, '\n') + 1, '\n') + 1; /* past the headers */
	const char *ap = a;
	long aline = 1;
	while (*p) {
		long as, ac = 1, bs, bc = 1;
		if (sscanf(p, "@@ -%ld,%ld +%ld,%ld @@", &as, &ac, &bs, &bc) < 2 &&
		    sscanf(p, "@@ -%ld +%ld,%ld @@", &as, &bs, &bc) < 2)
			return NULL;
		if (ac == 0)
			as++;
		while (aline < as) { /* copy unchanged lines */
			const char *e = strchr(ap, '\n');
			sb_putn(&out, ap, (size_t)(e - ap + 1));
			ap = e + 1;
			aline++;
		}
		p = strchr(p, '\n') + 1;
		while (*p && *p != '@') {
			const char *e = strchr(p, '\n');
			size_t n = (size_t)(e - p);
			if (*p == ' ' || *p == '-') {
				if (strncmp(ap, p + 1, n - 1) != 0 || ap[n - 1] != '\n')
					return NULL;
				if (*p == ' ')
					sb_putn(&out, ap, n);
				ap += n;
				aline++;
			} else if (*p == '+') {
				sb_putn(&out, p + 1, n);
			}
			p = e + 1;
		}
	}
	sb_puts(&out, ap);
	sb_putc(&out, 0);
	return out.data;
}

static char *random_text(unsigned *seed, int lines, int alphabet)
{
	StrBuf b = { 0 };
	for (int i = 0; i < lines; i++)
		sb_printf(&b, "l%d\n", rand_r(seed) % alphabet);
	sb_putc(&b, 0);
	return b.data;
}

START_TEST(random_diffs_apply)
{
	unsigned seed = 12345;
	for (int round = 0; round < 500; round++) {
		char *a = random_text(&seed, rand_r(&seed) % 40, 1 + round % 6);
		char *b = random_text(&seed, rand_r(&seed) % 40, 1 + round % 6);
		bool differ;
		char *d = run_diff(a, b, &differ);
		ck_assert_int_eq(differ, strcmp(a, b) != 0);
		if (differ) {
			char *r = apply(a, d);
			ck_assert_msg(r && strcmp(r, b) == 0, "round %d: the diff does not turn a into b:\n%s", round, d);
			free(r);
		}
		free(a);
		free(b);
		free(d);
	}
}
END_TEST

/* The shortest edit script's length by dynamic programming (small texts). */
static int lcs_edits(const char *a, const char *b)
{
	const char *la[64], *lb[64];
	int na = 0, nb = 0;
	for (const char *p = a; *p; p = strchr(p, '\n') + 1)
		la[na++] = p;
	for (const char *p = b; *p; p = strchr(p, '\n') + 1)
		lb[nb++] = p;
	static int t[65][65];
	for (int i = na; i >= 0; i--)
		for (int j = nb; j >= 0; j--) {
			if (i == na || j == nb)
				t[i][j] = 0;
			else if (strcspn(la[i], "\n") == strcspn(lb[j], "\n") &&
				 strncmp(la[i], lb[j], strcspn(la[i], "\n")) == 0)
				t[i][j] = 1 + t[i + 1][j + 1];
			else
				t[i][j] = t[i + 1][j] > t[i][j + 1] ? t[i + 1][j] : t[i][j + 1];
		}
	return na + nb - 2 * t[0][0];
}

START_TEST(random_diffs_are_minimal)
{
	unsigned seed = 777;
	for (int round = 0; round < 300; round++) {
		char *a = random_text(&seed, rand_r(&seed) % 30, 2 + round % 5);
		char *b = random_text(&seed, rand_r(&seed) % 30, 2 + round % 5);
		bool differ;
		char *d = run_diff(a, b, &differ);
		int edits = 0;
		for (const char *p = strchr(strchr(d, '\n') + 1, '\n'); p && p[1]; p = strchr(p + 1, '\n'))
			edits += p[1] == '-' || p[1] == '+';
		ck_assert_msg(edits == lcs_edits(a, b), "round %d: %d changed lines, shortest %d", round, edits,
			      lcs_edits(a, b));
		free(a);
		free(b);
		free(d);
	}
}
END_TEST

START_TEST(large_inputs_with_many_changes_are_fast)
{
	/* 400k lines, every 3rd one changed, and a block moved: a plain O(ND)
	 * search would run for hours */
	unsigned seed = 99;
	StrBuf a = { 0 }, b = { 0 };
	for (int i = 0; i < 400000; i++) {
		sb_printf(&a, "line %d\n", i);
		if (i % 3 == 0)
			sb_printf(&b, "changed %d %d\n", i, rand_r(&seed));
		else
			sb_printf(&b, "line %d\n", (i + 200000) % 400000);
	}
	clock_t t0 = clock();
	StrBuf out = { 0 };
	ck_assert(diff_unified(&out, "a", a.data, a.len, "b", b.data, b.len, 3, false));
	double secs = (double)(clock() - t0) / CLOCKS_PER_SEC;
	ck_assert_msg(secs < 10.0, "took %.1f s", secs);
	sb_putc(&out, 0);
	sb_putc(&b, 0);
	sb_putc(&a, 0);
	char *r = apply(a.data, out.data);
	ck_assert(r && strcmp(r, b.data) == 0);
	free(r);
	sb_release(&out);
	sb_release(&a);
	sb_release(&b);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("diff");
	TCase *tc = tcase_create("diff");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, equal_texts_print_nothing);
	tcase_add_test(tc, one_changed_line_with_context);
	tcase_add_test(tc, distant_changes_make_two_hunks);
	tcase_add_test(tc, insertion_into_empty_and_deletion_to_empty);
	tcase_add_test(tc, missing_final_newline_is_marked);
	tcase_add_test(tc, color_codes_when_asked);
	tcase_add_test(tc, random_diffs_apply);
	tcase_add_test(tc, random_diffs_are_minimal);
	tcase_add_test(tc, large_inputs_with_many_changes_are_fast);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
