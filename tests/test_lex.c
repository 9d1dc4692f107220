/* test_lex.c - the tokenizer: tokens, INDENT/DEDENT, comment queue, line
 * ends, tabs, literals and the located errors (reported through the Diag,
 * then a longjmp to *lx->fail). */
#include <check.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptoopt/arena.h"
#include "ptoopt/diag.h"
#include "ptoopt/lex.h"

/* One lexer at a time (each test runs in its own process under CK_FORK). */
static Arena A;
static Diag D;
static jmp_buf JB;
static Lexer LX;
static char *ERR;
static size_t ERRLEN;
static FILE *ERRF;
static char *SRC; /* private copy: the lexer may read up to len, no NUL needed */

static void lx_open(const char *src, size_t len)
{
	SRC = malloc(len ? len : 1);
	memcpy(SRC, src, len);
	arena_init(&A);
	diag_init(&D, "t.pto", SRC, len);
	ERR = NULL;
	ERRLEN = 0;
	ERRF = open_memstream(&ERR, &ERRLEN);
	D.out = ERRF;
	lex_init(&LX, &A, &D, &JB, SRC, len);
}

static void lx_close(void)
{
	lex_release(&LX);
	fclose(ERRF);
	free(ERR);
	ERR = NULL;
	arena_free(&A);
	free(SRC);
}

/* Render a token for comparisons: NAME:x OP:( INT:1 FLOAT:1.5 STR:abc NL IN DE EOF */
static void put_tok(char *out, size_t n, const Token *t)
{
	size_t l = strlen(out);
	if (l)
		snprintf(out + l, n - l, " ");
	l = strlen(out);
	switch (t->kind) {
	case TK_EOF: snprintf(out + l, n - l, "EOF"); break;
	case TK_NEWLINE: snprintf(out + l, n - l, "NL"); break;
	case TK_INDENT: snprintf(out + l, n - l, "IN"); break;
	case TK_DEDENT: snprintf(out + l, n - l, "DE"); break;
	case TK_NAME: snprintf(out + l, n - l, "NAME:%s", t->text); break;
	case TK_OP: snprintf(out + l, n - l, "OP:%s", t->text); break;
	case TK_INT: snprintf(out + l, n - l, "INT:%llu%s", (unsigned long long)t->ival, t->overflow ? "!" : ""); break;
	case TK_FLOAT: snprintf(out + l, n - l, "FLOAT:%.17g", t->fval); break;
	case TK_STRING: snprintf(out + l, n - l, "STR:%.*s", (int)t->slen, t->text); break;
	}
}

static char RENDER[8192];
static Token TOKS[4096];
static int NTOKS;

/* Lex the whole input.  Returns true when it reached EOF, false when an
 * error was reported (the message is then in ERR). */
static bool lex_all_n(const char *src, size_t len)
{
	lx_open(src, len);
	RENDER[0] = 0;
	NTOKS = 0;
	if (setjmp(JB)) {
		fflush(ERRF);
		return false;
	}
	for (;;) {
		Token t = lex_next(&LX);
		if (NTOKS < 4096)
			TOKS[NTOKS++] = t;
		put_tok(RENDER, sizeof RENDER, &t);
		if (t.kind == TK_EOF)
			break;
	}
	fflush(ERRF);
	return true;
}

static bool lex_all(const char *src) { return lex_all_n(src, strlen(src)); }

#define LEX_OK(src, expected) do { \
		ck_assert_msg(lex_all(src), "unexpected lex error: %s", ERR ? ERR : ""); \
		ck_assert_str_eq(RENDER, expected); \
	} while (0)

#define LEX_FAILS(src, len, where, phrase) do { \
		ck_assert_msg(!lex_all_n(src, len), "expected a lex error, got tokens: %s", RENDER); \
		ck_assert_ptr_nonnull(ERR); \
		ck_assert_msg(strstr(ERR, where) == ERR, "message does not start with %s: %s", where, ERR); \
		ck_assert_msg(strstr(ERR, phrase) != NULL, "message lacks '%s': %s", phrase, ERR); \
		ck_assert_int_eq(D.nerrors, 1); \
	} while (0)

/* ------------------------------------------------------------ tokens */

START_TEST(simple_tokens)
{
	LEX_OK("x = pl.add(a, 1)\n",
	       "NAME:x OP:= NAME:pl OP:. NAME:add OP:( NAME:a OP:, INT:1 OP:) NL EOF");
	/* positions are 1-based line / column of the first byte */
	ck_assert_int_eq(TOKS[0].line, 1);
	ck_assert_int_eq(TOKS[0].col, 1);
	ck_assert_int_eq(TOKS[1].col, 3);
	ck_assert_int_eq(TOKS[2].col, 5);
	ck_assert_int_eq(TOKS[4].col, 8);
	ck_assert_int_eq(TOKS[8].col, 15);
	/* names are interned: the same pointer as intern() gives */
	ck_assert_ptr_eq(TOKS[0].text, intern_cstr(&A, "x"));
	ck_assert_ptr_eq(TOKS[2].text, intern_cstr(&A, "pl"));
	lx_close();
}
END_TEST

START_TEST(operators)
{
	LEX_OK("-> ** // << >> <= >= == != ... := < > + - * / % ~ & | ^ @ ; : . , = { } [ ]\n",
	       "OP:-> OP:** OP:// OP:<< OP:>> OP:<= OP:>= OP:== OP:!= OP:... OP::= OP:< OP:> "
	       "OP:+ OP:- OP:* OP:/ OP:% OP:~ OP:& OP:| OP:^ OP:@ OP:; OP:: OP:. OP:, OP:= "
	       "OP:{ OP:} OP:[ OP:] NL EOF");
	lx_close();
	/* longest match without spaces */
	LEX_OK("a->b**c//d\n", "NAME:a OP:-> NAME:b OP:** NAME:c OP:// NAME:d NL EOF");
	lx_close();
	LEX_OK("x[-1]\n", "NAME:x OP:[ OP:- INT:1 OP:] NL EOF");
	lx_close();
}
END_TEST

START_TEST(numbers)
{
	LEX_OK("123 0x1F 1_000 1.5 1e5 .5 2.5e-3 10. 1E+2\n",
	       "INT:123 INT:31 INT:1000 FLOAT:1.5 FLOAT:100000 FLOAT:0.5 FLOAT:0.0025000000000000001 "
	       "FLOAT:10 FLOAT:100 NL EOF");
	ck_assert_int_eq(TOKS[0].kind, TK_INT);
	ck_assert_int_eq(TOKS[3].kind, TK_FLOAT);
	ck_assert_int_eq(TOKS[7].kind, TK_FLOAT); /* "10." is a float */
	lx_close();
	/* 2**64 - 1 fits, 2**64 and 2**70 overflow (flagged, not wrapped silently) */
	LEX_OK("18446744073709551615 18446744073709551616 1180591620717411303424\n",
	       "INT:18446744073709551615 INT:18446744073709551615! INT:18446744073709551615! NL EOF");
	ck_assert(!TOKS[0].overflow);
	ck_assert(TOKS[1].overflow);
	ck_assert(TOKS[2].overflow);
	lx_close();
}
END_TEST

/* Float literals take a fast path (one exact multiplication or division)
 * only where it is exact; either way the value must be strtod's, to the
 * bit, also at the fast path's edges: 15 / 16 significant digits, powers
 * of ten 22 / 23, leading zeros, trailing zeros, subnormals. */
START_TEST(floats_like_strtod)
{
	static const char *const lits[] = {
		"0.0", "0.", "00.5", "0.1", "0.3", "1.5", "10.", "1e22", "1e23", "1e-22", "1e-23",
		"123456789012345.0", "1234567890123456.0", "900719925474099.3", "9007199254740993.0",
		"999999999999999e22", "999999999999999e-22", "0.999999999999999", "0.30000000000000004",
		"123.456e-5", "1.0000000000000000000000001", "0.000000000000000000000000001",
		"4.9e-324", "2.2250738585072014e-308", "1.7976931348623157e308", "0e5000", "1e-400",
		"3.14159265358979", "1_0.2_5e1_0",
		/* long ones again and look-alikes (strtod_memo) */
		"0.088388347648318447", "0.088388347648318447", "0.088388347648318448", "0.08838834764831844",
		"0.30000000000000004", "0.300000000000000044", "0.30000000000000004e1", "123456789.12345678901234567",
		"123456789.12345678901234567", "1.7976931348623157e308",
	};
	size_t n = sizeof lits / sizeof *lits;
	char src[1024] = "";
	for (size_t i = 0; i < n; i++) {
		strcat(src, lits[i]);
		strcat(src, i + 1 < n ? " " : "\n");
	}
	ck_assert_msg(lex_all(src), "unexpected lex error: %s", ERR ? ERR : "");
	for (size_t i = 0; i < n; i++) {
		char plain[64];
		size_t k = 0;
		for (const char *c = lits[i]; *c; c++)
			if (*c != '_')
				plain[k++] = *c;
		plain[k] = 0;
		double want = strtod(plain, NULL);
		ck_assert_int_eq(TOKS[i].kind, TK_FLOAT);
		ck_assert_msg(memcmp(&TOKS[i].fval, &want, sizeof want) == 0, "%s: %.17g, strtod %.17g",
			      lits[i], TOKS[i].fval, want);
	}
	lx_close();
}
END_TEST

START_TEST(bad_numbers)
{
	LEX_FAILS("x = 12abc\n", 10, "t.pto:1:7: error:", "invalid number literal");
	lx_close();
	LEX_FAILS("x = 1e\n", 7, "t.pto:1:6: error:", "invalid number literal");
	lx_close();
}
END_TEST

START_TEST(strings)
{
	LEX_OK("'a\\nb' \"q\\\"x\" 'it\\'s' \"\"\n", "STR:a\nb STR:q\"x STR:it's STR: NL EOF");
	ck_assert_int_eq(TOKS[0].kind, TK_STRING);
	ck_assert_uint_eq(TOKS[0].slen, 3);
	ck_assert_uint_eq(TOKS[3].slen, 0);
	lx_close();
	/* triple-quoted strings span lines; end_line is the closing line */
	LEX_OK("x = \"\"\"l1\nl2\"\"\"\ny\n", "NAME:x OP:= STR:l1\nl2 NL NAME:y NL EOF");
	ck_assert_int_eq(TOKS[2].line, 1);
	ck_assert_int_eq(TOKS[2].end_line, 2);
	ck_assert_int_eq(TOKS[4].line, 3);
	lx_close();
	/* valid UTF-8 is kept byte for byte */
	LEX_OK("'\xc3\xbc\xe2\x9c\x93'\n", "STR:\xc3\xbc\xe2\x9c\x93 NL EOF");
	ck_assert_uint_eq(TOKS[0].slen, 5);
	lx_close();
}
END_TEST

START_TEST(unterminated_strings)
{
	LEX_FAILS("x = 'abc\ny\n", 10, "t.pto:1:5: error:", "unterminated string literal");
	lx_close();
	LEX_FAILS("x = \"\"\"abc\ny\n", 12, "t.pto:1:5: error:", "unterminated string literal");
	lx_close();
	LEX_FAILS("x = 'abc", 8, "t.pto:1:5: error:", "unterminated string literal");
	lx_close();
}
END_TEST

/* ------------------------------------------------------------ layout */

START_TEST(indent_dedent)
{
	LEX_OK("if a:\n    b\n    if c:\n        d\ne\n",
	       "NAME:if NAME:a OP:: NL IN NAME:b NL NAME:if NAME:c OP:: NL IN NAME:d NL DE DE NAME:e NL EOF");
	lx_close();
	/* any consistent indentation width */
	LEX_OK("if a:\n  b\n  if c:\n   d\n  e\n",
	       "NAME:if NAME:a OP:: NL IN NAME:b NL NAME:if NAME:c OP:: NL IN NAME:d NL DE NAME:e NL DE EOF");
	lx_close();
}
END_TEST

/* Several DEDENTs on one line: each at the line's first token; a line
 * between two levels is an error, however many levels it closes. */
START_TEST(dedent_several)
{
	LEX_OK("if a:\n    if b:\n        if c:\n            d\ne\n",
	       "NAME:if NAME:a OP:: NL IN NAME:if NAME:b OP:: NL IN NAME:if NAME:c OP:: NL IN NAME:d NL DE DE DE NAME:e NL EOF");
	for (int i = NTOKS - 6; i < NTOKS - 3; i++) {
		ck_assert_int_eq(TOKS[i].kind, TK_DEDENT);
		ck_assert_int_eq(TOKS[i].line, 5);
		ck_assert_int_eq(TOKS[i].col, 1);
	}
	lx_close();
	LEX_OK("if a:\n    if b:\n        c\n    d\n",
	       "NAME:if NAME:a OP:: NL IN NAME:if NAME:b OP:: NL IN NAME:c NL DE NAME:d NL DE EOF");
	ck_assert_int_eq(TOKS[NTOKS - 5].col, 5);
	lx_close();
	LEX_FAILS("if a:\n    if b:\n        c\n  d\n", 30, "t.pto:4:3: error:", "unindent does not match any outer indentation level");
	lx_close();
	/* tab-indented levels, then spaces as deep with 8-column tabs */
	LEX_OK("if a:\n\tb\n\tif c:\n\t\td\n\te\nf\n",
	       "NAME:if NAME:a OP:: NL IN NAME:b NL NAME:if NAME:c OP:: NL IN NAME:d NL DE NAME:e NL DE NAME:f NL EOF");
	lx_close();
	LEX_FAILS("if a:\n\tb\n        c\n", 19, "t.pto:3:9: error:", "inconsistent use of tabs and spaces");
	lx_close();
}
END_TEST

START_TEST(eof_without_newline)
{
	/* a final NEWLINE and the pending DEDENTs are produced at end of file */
	LEX_OK("if a:\n    if b:\n        c", "NAME:if NAME:a OP:: NL IN NAME:if NAME:b OP:: NL IN NAME:c NL DE DE EOF");
	lx_close();
	LEX_OK("", "EOF");
	lx_close();
	LEX_OK("\n\n  \n", "EOF");
	lx_close();
}
END_TEST

START_TEST(blank_and_comment_lines)
{
	/* blank lines and comment-only lines (at any indentation) produce no
	 * NEWLINE / INDENT / DEDENT */
	LEX_OK("a\n\n   \n# c\n        # deep comment\nb\n", "NAME:a NL NAME:b NL EOF");
	lx_close();
	LEX_OK("if a:\n    b\n# at column 1 inside the block\n\n    c\n",
	       "NAME:if NAME:a OP:: NL IN NAME:b NL NAME:c NL DE EOF");
	lx_close();
}
END_TEST

START_TEST(brackets_join_lines)
{
	LEX_OK("f(a,\n      b)\nc\n", "NAME:f OP:( NAME:a OP:, NAME:b OP:) NL NAME:c NL EOF");
	ck_assert_int_eq(TOKS[4].line, 2);
	ck_assert_int_eq(TOKS[4].col, 7);
	lx_close();
	/* no INDENT from a continuation line, even a deeper one */
	LEX_OK("x = [\n        1,\n    2,\n]\ny\n", "NAME:x OP:= OP:[ INT:1 OP:, INT:2 OP:, OP:] NL NAME:y NL EOF");
	lx_close();
	/* explicit backslash continuation */
	LEX_OK("x = 1 + \\\n        2\ny\n", "NAME:x OP:= INT:1 OP:+ INT:2 NL NAME:y NL EOF");
	lx_close();
}
END_TEST

START_TEST(crlf_and_cr)
{
	LEX_OK("a = 1\r\nif b:\r\n    c\r\n# x\r\n", "NAME:a OP:= INT:1 NL NAME:if NAME:b OP:: NL IN NAME:c NL DE EOF");
	ck_assert_int_eq(TOKS[9].line, 3);
	ck_assert_int_eq(TOKS[9].col, 5);
	ck_assert_uint_eq(LX.ncomments, 1);
	ck_assert_str_eq(LX.comments[0].text, "x"); /* no \r in the text */
	ck_assert_int_eq(LX.comments[0].line, 4);
	lx_close();
	LEX_OK("a\rb\r", "NAME:a NL NAME:b NL EOF");
	ck_assert_int_eq(TOKS[2].line, 2);
	lx_close();
	/* CRLF inside a triple-quoted string reads as \n */
	LEX_OK("'''p\r\nq'''\r\n", "STR:p\nq NL EOF");
	lx_close();
}
END_TEST

START_TEST(tabs)
{
	/* tab-only indentation */
	LEX_OK("if a:\n\tif b:\n\t\tc\n\td\n", "NAME:if NAME:a OP:: NL IN NAME:if NAME:b OP:: NL IN NAME:c NL DE NAME:d NL DE EOF");
	lx_close();
	/* tabs between tokens are plain whitespace */
	LEX_OK("a\t=\t1\n", "NAME:a OP:= INT:1 NL EOF");
	ck_assert_int_eq(TOKS[1].col, 3);
	lx_close();
}
END_TEST

START_TEST(bom_skipped)
{
	LEX_OK("\xEF\xBB\xBFx = 1\n", "NAME:x OP:= INT:1 NL EOF");
	ck_assert_int_eq(TOKS[0].col, 1);
	lx_close();
}
END_TEST

START_TEST(lookahead)
{
	const char *src = "a b c d e\n";
	lx_open(src, strlen(src));
	if (setjmp(JB))
		ck_abort_msg("lex error: %s", ERR);
	ck_assert_str_eq(lex_peek(&LX, 0)->text, "a");
	ck_assert_str_eq(lex_peek(&LX, 3)->text, "d");
	ck_assert_str_eq(lex_peek(&LX, 1)->text, "b");
	Token t = lex_next(&LX);
	ck_assert_str_eq(t.text, "a");
	ck_assert_str_eq(lex_peek(&LX, 3)->text, "e");
	ck_assert_str_eq(lex_next(&LX).text, "b");
	ck_assert_str_eq(lex_next(&LX).text, "c");
	ck_assert_str_eq(lex_next(&LX).text, "d");
	ck_assert_str_eq(lex_peek(&LX, 0)->text, "e");
	ck_assert_int_eq(lex_peek(&LX, 1)->kind, TK_NEWLINE);
	ck_assert_int_eq(lex_peek(&LX, 2)->kind, TK_EOF);
	ck_assert_str_eq(lex_next(&LX).text, "e");
	lx_close();
}
END_TEST

/* lex_take_dotted after each `pl` of src: the dotted names it takes (or
 * "-" where it takes none and the tokens are lexed one by one), joined by
 * spaces.  Repeated names come from its memo of recent ones: the same
 * answers as the first time, and look-alikes are not taken for them. */
static void take_all_dotted(const char *src, char *out, size_t n)
{
	lx_open(src, strlen(src));
	if (setjmp(JB))
		ck_abort_msg("lex error: %s", ERR);
	out[0] = 0;
	for (;;) {
		const Token *t = lex_peek(&LX, 0);
		if (t->kind == TK_EOF)
			break;
		if (t->kind == TK_NAME && !strcmp(t->text, "pl")) {
			const char *d = lex_take_dotted(&LX);
			size_t l = strlen(out);
			snprintf(out + l, n - l, "%s%s", l ? " " : "", d ? d : "-");
			if (d) {
				ck_assert_ptr_eq(d, intern_cstr(&A, d));
				continue;
			}
		}
		lex_next(&LX);
	}
	lx_close();
}

START_TEST(dotted_names)
{
	char out[512];
	take_all_dotted("x = pl.tile.add(a) + pl.tile.adds(a) + pl.tile.add(b) + pl.tile.add.x(c) + pl.tile.add (d)"
			" + pl.tile.add(e)[pl.FP32, pl.FP32] + pl.tile.add#\n"
			"y = pl.Mem.Vec, pl.Mem.Vec2, pl.Mem.Vec]\n"
			"z = pl.tile.row_expand_sub(a), pl.tile.row_expand_sub(a), pl.tile.row_expand_sub_x(a)\n",
			out, sizeof out);
	ck_assert_str_eq(out, "tile.add tile.adds tile.add tile.add.x - tile.add FP32 FP32 - "
			      "Mem.Vec Mem.Vec2 Mem.Vec "
			      "tile.row_expand_sub tile.row_expand_sub tile.row_expand_sub_x");
}
END_TEST

/* ------------------------------------------------------------ comments */

START_TEST(comment_queue)
{
	LEX_OK("x = 1  # hello\n#  two\n##four\n#\n# trail  \nf(a,  # in\n  b)\n# end",
	       "NAME:x OP:= INT:1 NL NAME:f OP:( NAME:a OP:, NAME:b OP:) NL EOF");
	ck_assert_uint_eq(LX.ncomments - LX.comment_head, 7);
	const Comment *c = LX.comments + LX.comment_head;
	/* text = after '#' and at most one space; trailing spaces kept */
	ck_assert_int_eq(c[0].line, 1);
	ck_assert_int_eq(c[0].col, 8);
	ck_assert_str_eq(c[0].text, "hello");
	ck_assert_str_eq(c[1].text, " two");
	ck_assert_int_eq(c[1].col, 1);
	ck_assert_str_eq(c[2].text, "#four");
	ck_assert_str_eq(c[3].text, "");
	ck_assert_str_eq(c[4].text, "trail  ");
	ck_assert_int_eq(c[5].line, 6);
	ck_assert_int_eq(c[5].col, 7);
	ck_assert_str_eq(c[5].text, "in");
	ck_assert_int_eq(c[6].line, 8);
	ck_assert_str_eq(c[6].text, "end");
	for (int i = 0; i < 7; i++)
		ck_assert(!c[i].taken);
	lx_close();
}
END_TEST

START_TEST(comment_gc)
{
	LEX_OK("# a\n# b\n# c\nx\n", "NAME:x NL EOF");
	ck_assert_uint_eq(LX.comment_head, 0);
	LX.comments[0].taken = true;
	LX.comments[2].taken = true;
	lex_comments_gc(&LX);
	/* the head moves past the taken prefix only */
	ck_assert_uint_eq(LX.comment_head, 1);
	ck_assert_str_eq(LX.comments[LX.comment_head].text, "b");
	LX.comments[1].taken = true;
	lex_comments_gc(&LX);
	ck_assert_uint_eq(LX.comment_head, 3);
	lx_close();
}
END_TEST

START_TEST(comment_utf8)
{
	LEX_OK("# caf\xc3\xa9 \xe2\x9c\x93 \xf0\x9d\x84\x9e\nx\n", "NAME:x NL EOF");
	ck_assert_str_eq(LX.comments[0].text, "caf\xc3\xa9 \xe2\x9c\x93 \xf0\x9d\x84\x9e");
	lx_close();
}
END_TEST

/* ------------------------------------------------------------ errors */

START_TEST(nul_byte)
{
	LEX_FAILS("a = 1\nb\0c\n", 10, "t.pto:2:2: error:", "NUL byte in input");
	lx_close();
	LEX_FAILS("a = 1  # x\0y\n", 13, "t.pto:1:11: error:", "NUL byte");
	lx_close();
	LEX_FAILS("a = 'x\0y'\n", 10, "t.pto:1:7: error:", "NUL byte");
	lx_close();
	LEX_FAILS("\0", 1, "t.pto:1:1: error:", "NUL byte");
	lx_close();
}
END_TEST

START_TEST(nul_byte_at_line_start)
{
	/* a NUL at the start of an indented block's line must be reported as
	 * such, not as an indentation problem */
	LEX_FAILS("if a:\n    b\n\0   c\n", 18, "t.pto:3:1: error:", "NUL byte in input");
	lx_close();
}
END_TEST

START_TEST(invalid_utf8)
{
	LEX_FAILS("a = \xff\n", 6, "t.pto:1:5: error:", "invalid UTF-8");
	lx_close();
	LEX_FAILS("# ok \xc3(\n", 8, "t.pto:1:6: error:", "invalid UTF-8");
	lx_close();
	LEX_FAILS("x = 'ab\xe2\x82'\n", 11, "t.pto:1:8: error:", "invalid UTF-8");
	lx_close();
	/* overlong encoding, UTF-16 surrogate, beyond U+10FFFF */
	LEX_FAILS("# \xc0\xaf\n", 5, "t.pto:1:3: error:", "invalid UTF-8 byte 0xC0");
	lx_close();
	LEX_FAILS("# \xed\xa0\x80\n", 6, "t.pto:1:3: error:", "invalid UTF-8 byte 0xED");
	lx_close();
	LEX_FAILS("# \xf4\x90\x80\x80\n", 7, "t.pto:1:3: error:", "invalid UTF-8 byte 0xF4");
	lx_close();
	/* truncated sequence at end of input */
	LEX_FAILS("# \xe2\x82", 4, "t.pto:1:3: error:", "invalid UTF-8");
	lx_close();
}
END_TEST

START_TEST(unexpected_characters)
{
	LEX_FAILS("a $ b\n", 6, "t.pto:1:3: error:", "unexpected character '$'");
	lx_close();
	LEX_FAILS("a ? b\n", 6, "t.pto:1:3: error:", "unexpected character '?'");
	lx_close();
	LEX_FAILS("a = `b`\n", 8, "t.pto:1:5: error:", "unexpected character");
	lx_close();
	/* a control character is named by its byte value */
	LEX_FAILS("a = \x01\n", 6, "t.pto:1:5: error:", "0x01");
	lx_close();
}
END_TEST

/* Python's literal rules: no leading zeros in a decimal integer, digits
 * after 0x, '_' only between digits (or right after 0x) */
START_TEST(bad_number_literals)
{
	LEX_OK("0 00 0_0 0x_1F 1_000 007.5 1e1_0\n", "INT:0 INT:0 INT:0 INT:31 INT:1000 FLOAT:7.5 FLOAT:10000000000 NL EOF");
	lx_close();
	LEX_FAILS("a = 007\n", 8, "t.pto:1:5: error:", "leading zeros");
	lx_close();
	LEX_FAILS("a = 0_7\n", 8, "t.pto:1:5: error:", "leading zeros");
	lx_close();
	LEX_FAILS("a = 0x\n", 7, "t.pto:1:5: error:", "no digits after '0x'");
	lx_close();
	LEX_FAILS("a = 1_\n", 7, "t.pto:1:6: error:", "'_' must be between two digits");
	lx_close();
	LEX_FAILS("a = 1__0\n", 9, "t.pto:1:6: error:", "'_' must be between two digits");
	lx_close();
	LEX_FAILS("a = 1_.5\n", 9, "t.pto:1:6: error:", "'_' must be between two digits");
	lx_close();
	LEX_FAILS("a = 0x1_\n", 9, "t.pto:1:8: error:", "'_' must be followed by a digit");
	lx_close();
}
END_TEST

/* Indentation that means different things with 8-column and 1-column tabs
 * (Python's TabError); consistent mixes are fine */
START_TEST(tab_error)
{
	/* a tab and eight spaces: the same level only with 8-column tabs */
	LEX_FAILS("if a:\n        b\n\tc\n", 19, "t.pto:3:2: error:", "inconsistent use of tabs and spaces");
	lx_close();
	/* deeper with 8-column tabs, shallower with 1-column ones */
	LEX_FAILS("if a:\n   b\n   if c:\n\td\n", 23, "t.pto:4:2: error:", "inconsistent use of tabs and spaces");
	lx_close();
	/* back to a level with a different spelling of it */
	LEX_FAILS("if a:\n\tif b:\n\t\tc\n        d\n", 27, "t.pto:4:9: error:", "inconsistent use of tabs and spaces");
	lx_close();
	/* the same spelling at every level: fine */
	LEX_OK("if a:\n \tb\n \tif c:\n \t  d\n", "NAME:if NAME:a OP:: NL IN NAME:b NL NAME:if NAME:c OP:: NL IN NAME:d NL DE DE EOF");
	lx_close();
}
END_TEST

START_TEST(unindent_mismatch)
{
	LEX_FAILS("if a:\n    b\n  c\n", 16, "t.pto:3:3: error:", "unindent does not match any outer indentation level");
	lx_close();
}
END_TEST

START_TEST(too_deep_indentation)
{
	/* 50 levels are fine */
	char *src = malloc(200000);
	size_t n = 0;
	for (int i = 0; i < 50; i++) {
		memset(src + n, ' ', (size_t)i);
		n += (size_t)i;
		memcpy(src + n, "x\n", 2);
		n += 2;
	}
	ck_assert(lex_all_n(src, n));
	int indents = 0;
	for (int i = 0; i < NTOKS; i++)
		indents += TOKS[i].kind == TK_INDENT;
	ck_assert_int_eq(indents, 49);
	lx_close();
	/* 200 levels: a located error at the first line past the limit */
	n = 0;
	for (int i = 0; i < 200; i++) {
		memset(src + n, ' ', (size_t)i);
		n += (size_t)i;
		memcpy(src + n, "x\n", 2);
		n += 2;
	}
	ck_assert(!lex_all_n(src, n));
	ck_assert_ptr_nonnull(strstr(ERR, "too many levels of indentation"));
	ck_assert_ptr_nonnull(strstr(ERR, "t.pto:"));
	lx_close();
	free(src);
}
END_TEST

START_TEST(deep_brackets)
{
	char *src = malloc(30000);
	/* 1000 levels: accepted */
	memset(src, '(', 1000);
	src[1000] = 'x';
	memset(src + 1001, ')', 1000);
	src[2001] = '\n';
	ck_assert(lex_all_n(src, 2002));
	lx_close();
	/* 10000 levels: a located error, no crash */
	memset(src, '(', 10000);
	src[10000] = 'x';
	memset(src + 10001, ')', 10000);
	src[20001] = '\n';
	ck_assert(!lex_all_n(src, 20002));
	ck_assert_ptr_nonnull(strstr(ERR, "t.pto:1:"));
	ck_assert_ptr_nonnull(strstr(ERR, "nested too deeply"));
	lx_close();
	free(src);
}
END_TEST

START_TEST(eof_in_brackets)
{
	LEX_FAILS("f(a,\n", 5, "t.pto:2:1: error:", "unexpected end of file inside brackets");
	lx_close();
}
END_TEST

START_TEST(error_shows_source_line)
{
	LEX_FAILS("ok = 1\nbad = 1 $ 2\nnext\n", 24, "t.pto:2:9: error:", "unexpected character");
	/* the diagnostic quotes the line and puts a caret under the column */
	ck_assert_ptr_nonnull(strstr(ERR, "\n  bad = 1 $ 2\n"));
	ck_assert_ptr_nonnull(strstr(ERR, "\n          ^\n"));
	lx_close();
}
END_TEST

static Suite *lex_suite(void)
{
	Suite *s = suite_create("lex");
	TCase *tc = tcase_create("tokens");
	tcase_add_test(tc, simple_tokens);
	tcase_add_test(tc, operators);
	tcase_add_test(tc, numbers);
	tcase_add_test(tc, floats_like_strtod);
	tcase_add_test(tc, bad_numbers);
	tcase_add_test(tc, strings);
	tcase_add_test(tc, unterminated_strings);
	tcase_add_test(tc, lookahead);
	tcase_add_test(tc, dotted_names);
	suite_add_tcase(s, tc);
	tc = tcase_create("layout");
	tcase_add_test(tc, indent_dedent);
	tcase_add_test(tc, eof_without_newline);
	tcase_add_test(tc, blank_and_comment_lines);
	tcase_add_test(tc, brackets_join_lines);
	tcase_add_test(tc, crlf_and_cr);
	tcase_add_test(tc, tabs);
	tcase_add_test(tc, bad_number_literals);
	tcase_add_test(tc, tab_error);
	tcase_add_test(tc, bom_skipped);
	suite_add_tcase(s, tc);
	tc = tcase_create("comments");
	tcase_add_test(tc, comment_queue);
	tcase_add_test(tc, comment_gc);
	tcase_add_test(tc, comment_utf8);
	suite_add_tcase(s, tc);
	tc = tcase_create("errors");
	tcase_add_test(tc, nul_byte);
	tcase_add_test(tc, nul_byte_at_line_start);
	tcase_add_test(tc, invalid_utf8);
	tcase_add_test(tc, unexpected_characters);
	tcase_add_test(tc, unindent_mismatch);
	tcase_add_test(tc, dedent_several);
	tcase_add_test(tc, too_deep_indentation);
	tcase_add_test(tc, deep_brackets);
	tcase_add_test(tc, eof_in_brackets);
	tcase_add_test(tc, error_shows_source_line);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(lex_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
