/* test_arena.c - arena allocation, interning, PtrVec, PtrMap, HashTab, StrBuf,
 * and the IR nodes allocated short (ir.h). */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ptoopt/arena.h"
#include "ptoopt/ir.h"
#include "ptoopt/strbuf.h"
#ifdef ARENA_POISON_TAILS
#include <sanitizer/asan_interface.h>
#endif

/* ------------------------------------------------------------ arena_alloc */

START_TEST(alloc_zeroed_aligned)
{
	Arena a;
	arena_init(&a);
	for (size_t n = 1; n < 200; n += 7) {
		unsigned char *p = arena_alloc(&a, n);
		ck_assert_ptr_nonnull(p);
		ck_assert_uint_eq((uintptr_t)p % 8, 0);
		for (size_t i = 0; i < n; i++)
			ck_assert_uint_eq(p[i], 0);
		memset(p, 0xAB, n); /* must not disturb other allocations */
	}
	arena_free(&a);
}
END_TEST

START_TEST(alloc_distinct_and_persistent)
{
	Arena a;
	arena_init(&a);
	/* many small blocks across several arena blocks keep their contents */
	enum { N = 20000 };
	int **ps = malloc(N * sizeof *ps);
	for (int i = 0; i < N; i++) {
		ps[i] = arena_alloc(&a, 3 * sizeof(int));
		ps[i][0] = i;
		ps[i][1] = -i;
		ps[i][2] = i * 7;
	}
	for (int i = 0; i < N; i++) {
		ck_assert_int_eq(ps[i][0], i);
		ck_assert_int_eq(ps[i][1], -i);
		ck_assert_int_eq(ps[i][2], i * 7);
		if (i)
			ck_assert_ptr_ne(ps[i], ps[i - 1]);
	}
	free(ps);
	arena_free(&a);
}
END_TEST

START_TEST(alloc_large)
{
	Arena a;
	arena_init(&a);
	char *small = arena_alloc(&a, 16);
	strcpy(small, "before");
	/* larger than any default block: must get its own, zeroed */
	size_t big = (size_t)80 << 20;
	unsigned char *p = arena_alloc(&a, big);
	ck_assert_uint_eq(p[0], 0);
	ck_assert_uint_eq(p[big / 2], 0);
	ck_assert_uint_eq(p[big - 1], 0);
	p[0] = 1;
	p[big - 1] = 2;
	char *after = arena_alloc(&a, 16);
	strcpy(after, "after");
	ck_assert_str_eq(small, "before");
	ck_assert_str_eq(after, "after");
	ck_assert_uint_eq(p[0], 1);
	ck_assert_uint_eq(p[big - 1], 2);
	arena_free(&a);
}
END_TEST

START_TEST(mark_reset_reuses_and_zeroes)
{
	Arena a;
	arena_init(&a);
	int *keep = arena_alloc(&a, sizeof(int));
	*keep = 42;
	ArenaMark m = arena_mark(&a);
	int *tmp = arena_alloc(&a, 4 * sizeof(int));
	tmp[0] = tmp[3] = 99;
	arena_reset(&a, m);
	int *again = arena_alloc(&a, 4 * sizeof(int));
	/* same block: the memory after the mark is handed out again, zeroed */
	ck_assert_ptr_eq(again, tmp);
	ck_assert_int_eq(again[0], 0);
	ck_assert_int_eq(again[3], 0);
	ck_assert_int_eq(*keep, 42);
	arena_free(&a);
}
END_TEST

START_TEST(mark_reset_across_blocks_is_safe)
{
	Arena a;
	arena_init(&a);
	char *keep = arena_alloc(&a, 8);
	strcpy(keep, "keep");
	ArenaMark m = arena_mark(&a);
	/* force new blocks */
	for (int i = 0; i < 100; i++)
		memset(arena_alloc(&a, 32 * 1024), 0x5A, 32 * 1024);
	arena_reset(&a, m); /* a different block: must keep (not corrupt) */
	char *x = arena_alloc(&a, 8);
	strcpy(x, "new");
	ck_assert_str_eq(keep, "keep");
	ck_assert_str_eq(x, "new");
	arena_free(&a);
}
END_TEST

START_TEST(strndup_and_printf)
{
	Arena a;
	arena_init(&a);
	char *s = arena_strndup(&a, "hello world", 5);
	ck_assert_str_eq(s, "hello");
	char *e = arena_strndup(&a, "", 0);
	ck_assert_str_eq(e, "");
	char *p = arena_printf(&a, "%s_%d", "x", 12);
	ck_assert_str_eq(p, "x_12");
	/* longer than any internal small buffer */
	char big[1000];
	memset(big, 'q', sizeof big - 1);
	big[sizeof big - 1] = 0;
	char *q = arena_printf(&a, "<%s>", big);
	ck_assert_uint_eq(strlen(q), sizeof big + 1);
	ck_assert_int_eq(q[0], '<');
	ck_assert_int_eq(q[sizeof big], '>');
	ck_assert_int_eq(q[500], 'q');
	arena_free(&a);
}
END_TEST

/* ------------------------------------------------------------ interning */

START_TEST(intern_identity)
{
	Arena a;
	arena_init(&a);
	const char *x1 = intern_cstr(&a, "x");
	const char *x2 = intern(&a, "xyz", 1);
	char buf[] = { 'x', 0 };
	const char *x3 = intern_cstr(&a, buf);
	ck_assert_ptr_eq(x1, x2);
	ck_assert_ptr_eq(x1, x3);
	ck_assert_ptr_ne(x1, buf); /* a copy, not the caller's buffer */
	ck_assert_str_eq(x1, "x");
	const char *xyz = intern_cstr(&a, "xyz");
	ck_assert_ptr_ne(xyz, x1);
	ck_assert_str_eq(xyz, "xyz");
	ck_assert_ptr_eq(intern(&a, "xyzw", 3), xyz);
	/* prefixes and case are distinct strings */
	ck_assert_ptr_ne(intern_cstr(&a, "xy"), xyz);
	ck_assert_ptr_ne(intern_cstr(&a, "X"), x1);
	/* the empty string interns too */
	const char *e1 = intern(&a, "abc", 0), *e2 = intern_cstr(&a, "");
	ck_assert_ptr_eq(e1, e2);
	ck_assert_str_eq(e1, "");
	arena_free(&a);
}
END_TEST

START_TEST(intern_survives_growth)
{
	Arena a;
	arena_init(&a);
	enum { N = 50000 };
	const char **first = malloc(N * sizeof *first);
	char buf[32];
	for (int i = 0; i < N; i++) {
		snprintf(buf, sizeof buf, "name_%d", i);
		first[i] = intern_cstr(&a, buf);
	}
	/* after many table growths every string still maps to its first pointer */
	for (int i = N - 1; i >= 0; i--) {
		snprintf(buf, sizeof buf, "name_%d", i);
		const char *again = intern_cstr(&a, buf);
		ck_assert_ptr_eq(again, first[i]);
		ck_assert_str_eq(again, buf);
	}
	for (int i = 1; i < N; i++)
		ck_assert_ptr_ne(first[i], first[i - 1]);
	free(first);
	arena_free(&a);
}
END_TEST

START_TEST(intern_per_arena)
{
	Arena a, b;
	arena_init(&a);
	arena_init(&b);
	const char *ia = intern_cstr(&a, "shared");
	const char *ib = intern_cstr(&b, "shared");
	ck_assert_ptr_ne(ia, ib);
	ck_assert_str_eq(ia, ib);
	arena_free(&a);
	/* b is unaffected by freeing a */
	ck_assert_ptr_eq(intern_cstr(&b, "shared"), ib);
	arena_free(&b);
}
END_TEST

/* ------------------------------------------------------------ PtrVec */

START_TEST(vec_malloc_backed)
{
	Arena a;
	arena_init(&a);
	PtrVec v = { 0 };
	static int objs[1000];
	for (int i = 0; i < 1000; i++)
		vec_push(&v, &objs[i]);
	ck_assert_uint_eq(v.len, 1000);
	int n = -1;
	void **items = vec_finish(&a, &v, &n);
	ck_assert_int_eq(n, 1000);
	for (int i = 0; i < 1000; i++)
		ck_assert_ptr_eq(items[i], &objs[i]);
	/* the vector is emptied and reusable */
	ck_assert_uint_eq(v.len, 0);
	ck_assert_ptr_null(v.items);
	vec_push(&v, &objs[0]);
	ck_assert_uint_eq(v.len, 1);
	vec_release(&v);
	ck_assert_ptr_null(v.items);
	arena_free(&a);
}
END_TEST

START_TEST(vec_arena_backed)
{
	Arena a;
	arena_init(&a);
	PtrVec v = ARENA_VEC(&a);
	static int objs[100];
	for (int i = 0; i < 100; i++)
		vec_push(&v, &objs[99 - i]);
	int n = 0;
	void **items = vec_finish(&a, &v, &n);
	ck_assert_int_eq(n, 100);
	for (int i = 0; i < 100; i++)
		ck_assert_ptr_eq(items[i], &objs[99 - i]);
	arena_free(&a);
}
END_TEST

START_TEST(vec_finish_empty)
{
	Arena a;
	arena_init(&a);
	PtrVec v = { 0 };
	int n = 123;
	void **items = vec_finish(&a, &v, &n);
	ck_assert_int_eq(n, 0);
	ck_assert_ptr_null(items);
	PtrVec w = ARENA_VEC(&a);
	n = 5;
	items = vec_finish(&a, &w, &n);
	ck_assert_int_eq(n, 0);
	ck_assert_ptr_null(items);
	arena_free(&a);
}
END_TEST

/* Finished lists keep their items while the vectors' buffers are recycled:
 * many short lists cost about their own size, not a 64-byte buffer each. */
START_TEST(vec_arena_recycles_buffers)
{
	Arena a;
	arena_init(&a);
	static int objs[3];
	void **lists[1000];
	char *lo = NULL, *hi = NULL;
	for (int k = 0; k < 1000; k++) {
		PtrVec v = ARENA_VEC(&a);
		for (int i = 0; i < 3; i++)
			vec_push(&v, &objs[(k + i) % 3]);
		int n = 0;
		lists[k] = vec_finish(&a, &v, &n);
		ck_assert_int_eq(n, 3);
		char *p = (char *)lists[k];
		if (!lo || p < lo)
			lo = p;
		if (!hi || p > hi)
			hi = p;
	}
	for (int k = 0; k < 1000; k++)
		for (int i = 0; i < 3; i++)
			ck_assert_ptr_eq(lists[k][i], &objs[(k + i) % 3]);
	/* 1000 exact 24-byte arrays plus one recycled buffer, all in the first block */
	ck_assert_int_lt((int)(hi - lo), 1000 * 24 + 128);
	/* a vector grown through several sizes keeps its contents */
	PtrVec w = ARENA_VEC(&a);
	for (int i = 0; i < 300; i++)
		vec_push(&w, &objs[i % 3]);
	vec_release(&w);
	PtrVec x = ARENA_VEC(&a);
	for (int i = 0; i < 300; i++)
		vec_push(&x, &objs[(i + 1) % 3]);
	for (int i = 0; i < 300; i++)
		ck_assert_ptr_eq(x.items[i], &objs[(i + 1) % 3]);
	vec_release(&x);
	arena_free(&a);
}
END_TEST

/* A buffer recycled after a mark is gone after arena_reset to that mark:
 * it must not be handed out again over memory the arena reuses. */
START_TEST(vec_recycling_respects_reset)
{
	Arena a;
	arena_init(&a);
	static int obj;
	(void)arena_alloc(&a, 16); /* the mark and the reset in one block */
	ArenaMark m = arena_mark(&a);
	PtrVec v = ARENA_VEC(&a);
	vec_push(&v, &obj);
	vec_release(&v); /* its buffer is now free for reuse ... */
	arena_reset(&a, m); /* ... but lies in the range the reset frees */
	int *fresh = arena_alloc(&a, 64 * sizeof(int));
	for (int i = 0; i < 64; i++)
		fresh[i] = 7;
	PtrVec w = ARENA_VEC(&a);
	for (int i = 0; i < 8; i++)
		vec_push(&w, &obj);
	for (int i = 0; i < 64; i++)
		ck_assert_int_eq(fresh[i], 7);
	vec_release(&w);
	arena_free(&a);
}
END_TEST

/* ------------------------------------------------------------ PtrMap */

START_TEST(pmap_basic)
{
	PtrMap m = { 0 };
	static int k1, k2, v1, v2;
	ck_assert_ptr_null(pmap_get(&m, &k1));
	pmap_put(&m, &k1, &v1);
	ck_assert_ptr_eq(pmap_get(&m, &k1), &v1);
	ck_assert_ptr_null(pmap_get(&m, &k2));
	pmap_put(&m, &k2, &v2);
	ck_assert_ptr_eq(pmap_get(&m, &k2), &v2);
	ck_assert_uint_eq(m.len, 2);
	/* overwrite keeps the size */
	pmap_put(&m, &k1, &v2);
	ck_assert_ptr_eq(pmap_get(&m, &k1), &v2);
	ck_assert_uint_eq(m.len, 2);
	pmap_release(&m);
	ck_assert_ptr_null(pmap_get(&m, &k1));
}
END_TEST

START_TEST(pmap_many_and_clear)
{
	PtrMap m = { 0 };
	enum { N = 30000 };
	char *keys = malloc(N);
	for (int i = 0; i < N; i++)
		pmap_put(&m, &keys[i], (void *)(uintptr_t)(i + 1));
	ck_assert_uint_eq(m.len, N);
	for (int i = 0; i < N; i++)
		ck_assert_uint_eq((uintptr_t)pmap_get(&m, &keys[i]), (uintptr_t)(i + 1));
	pmap_clear(&m);
	ck_assert_uint_eq(m.len, 0);
	for (int i = 0; i < N; i += 97)
		ck_assert_ptr_null(pmap_get(&m, &keys[i]));
	/* usable again after clear */
	pmap_put(&m, &keys[5], &keys[6]);
	ck_assert_ptr_eq(pmap_get(&m, &keys[5]), &keys[6]);
	ck_assert_ptr_null(pmap_get(&m, &keys[6]));
	pmap_release(&m);
	free(keys);
}
END_TEST

START_TEST(pmap_recycled_tables_start_empty)
{
	/* released tables of the small sizes are handed out again: a map made
	 * after many others were filled and dropped must see none of their keys */
	static char keys[300];
	for (int round = 0; round < 200; round++) {
		PtrMap m = { 0 };
		int n = 1 + round % 150; /* capacities 8 .. 512 */
		for (int i = 0; i < n; i++)
			pmap_put(&m, &keys[(round + i) % 300], (void *)(uintptr_t)(i + 1));
		ck_assert_uint_eq(m.len, (size_t)n);
		for (int i = 0; i < 300; i++) {
			int k = (i - round % 300 + 300) % 300; /* position of keys[i] in this round */
			uintptr_t want = k < n ? (uintptr_t)(k + 1) : 0;
			ck_assert_uint_eq((uintptr_t)pmap_get(&m, &keys[i]), want);
		}
		pmap_release(&m);
		ck_assert_uint_eq(m.cap, 0);
	}
}
END_TEST

START_TEST(pmap_interned_keys)
{
	/* the parser maps interned names to Vars: equal text = same key */
	Arena a;
	arena_init(&a);
	PtrMap m = { 0 };
	int v;
	pmap_put(&m, intern_cstr(&a, "x"), &v);
	char buf[] = "x";
	ck_assert_ptr_eq(pmap_get(&m, intern_cstr(&a, buf)), &v);
	ck_assert_ptr_null(pmap_get(&m, intern_cstr(&a, "y")));
	pmap_release(&m);
	arena_free(&a);
}
END_TEST

/* ------------------------------------------------------------ HashTab */

static bool int_eq(const void *val, const void *key) { return *(const int *)val == *(const int *)key; }

START_TEST(htab_find_add)
{
	HashTab t = { 0 };
	static int vals[5000];
	int key = 3;
	ck_assert_ptr_null(htab_find(&t, 3, int_eq, &key));
	for (int i = 0; i < 5000; i++) {
		vals[i] = i;
		/* deliberately poor hash: many collisions */
		htab_add(&t, (uint64_t)(i % 17), &vals[i]);
	}
	ck_assert_uint_eq(t.len, 5000);
	for (int i = 0; i < 5000; i += 13) {
		key = i;
		ck_assert_ptr_eq(htab_find(&t, (uint64_t)(i % 17), int_eq, &key), &vals[i]);
		/* right value, wrong hash: not found */
		ck_assert_ptr_null(htab_find(&t, (uint64_t)(i % 17) + 100, int_eq, &key));
	}
	key = 5000;
	ck_assert_ptr_null(htab_find(&t, 5000 % 17, int_eq, &key));
	htab_release(&t);
}
END_TEST

/* ------------------------------------------------------------ StrBuf */

START_TEST(strbuf_ops)
{
	StrBuf b = { 0 };
	sb_puts(&b, "ab");
	sb_putc(&b, 'c');
	sb_putn(&b, "defgh", 2);
	sb_indent(&b, 3);
	sb_printf(&b, "%d|%s", 42, "z");
	ck_assert_uint_eq(b.len, strlen("abcde   42|z"));
	ck_assert_str_eq(b.data, "abcde   42|z");
	/* a formatted piece longer than any small internal buffer */
	char big[700];
	memset(big, 'w', sizeof big - 1);
	big[sizeof big - 1] = 0;
	sb_printf(&b, "[%s]", big);
	ck_assert_uint_eq(b.len, strlen("abcde   42|z") + sizeof big + 1);
	ck_assert_int_eq(b.data[b.len - 1], ']');
	ck_assert_int_eq(b.data[b.len], 0);
	sb_indent(&b, 0);
	ck_assert_uint_eq(b.len, strlen("abcde   42|z") + sizeof big + 1);
	sb_release(&b);
	ck_assert_ptr_null(b.data);
	ck_assert_uint_eq(b.len, 0);
}
END_TEST

START_TEST(strbuf_sink)
{
	char *mem = NULL;
	size_t memlen = 0;
	FILE *f = open_memstream(&mem, &memlen);
	StrBuf b = { 0 };
	b.sink = f;
	/* more than one chunk's worth, so the sink is written while growing */
	for (int i = 0; i < 1500000; i++)
		sb_printf(&b, "%d\n", i % 10);
	ck_assert_int_eq(sb_flush(&b), 0);
	sb_release(&b);
	fclose(f);
	ck_assert_uint_eq(memlen, 3000000);
	ck_assert_int_eq(mem[0], '0');
	ck_assert_int_eq(mem[2999998], '9');
	ck_assert_int_eq(mem[2999999], '\n');
	size_t bad = 0;
	for (size_t i = 0; i < memlen; i += 2)
		bad += mem[i] != '0' + (int)((i / 2) % 10) || mem[i + 1] != '\n';
	ck_assert_uint_eq(bad, 0);
	free(mem);
}
END_TEST

START_TEST(strbuf_put_int_and_flushed)
{
	StrBuf b = { 0 };
	sb_put_int(&b, 0);
	sb_putc(&b, ' ');
	sb_put_int(&b, -42);
	sb_putc(&b, ' ');
	sb_put_int(&b, INT64_MIN);
	sb_putc(&b, ' ');
	sb_put_int(&b, INT64_MAX);
	ck_assert_str_eq(b.data, "0 -42 -9223372036854775808 9223372036854775807");
	ck_assert_uint_eq(b.flushed, 0);
	sb_release(&b);

	/* with a sink, flushed + len is the position in the whole text */
	char *mem = NULL;
	size_t memlen = 0;
	FILE *f = open_memstream(&mem, &memlen);
	StrBuf s = { 0 };
	s.sink = f;
	size_t total = 0;
	for (int i = 0; i < 400000; i++) {
		sb_puts(&s, "abcdefgh");
		total += 8;
		ck_assert_uint_eq(s.flushed + s.len, total);
	}
	ck_assert_uint_gt(s.flushed, 0);
	ck_assert_int_eq(sb_flush(&s), 0);
	ck_assert_uint_eq(s.flushed, total);
	sb_release(&s);
	fclose(f);
	ck_assert_uint_eq(memlen, total);
	free(mem);
}
END_TEST

/* ------------------------------------------------------------ short IR nodes */

START_TEST(short_stmt_kinds)
{
	/* the kinds without body and the fields after it */
	ck_assert(ir_stmt_is_simple(ST_ASSIGN));
	ck_assert(ir_stmt_is_simple(ST_EVAL));
	ck_assert(ir_stmt_is_simple(ST_RETURN));
	ck_assert(ir_stmt_is_simple(ST_YIELD));
	ck_assert(ir_stmt_is_simple(ST_BREAK));
	ck_assert(ir_stmt_is_simple(ST_CONTINUE));
	ck_assert(!ir_stmt_is_simple(ST_IF));
	ck_assert(!ir_stmt_is_simple(ST_FOR));
	ck_assert(!ir_stmt_is_simple(ST_WHILE));
	ck_assert(!ir_stmt_is_simple(ST_SCOPE));
	ck_assert_uint_eq(ir_expr_size(EX_VAR), EXPR_VAR_SIZE);
	ck_assert_uint_eq(ir_expr_size(EX_OP_CALL), sizeof(Expr));
	ck_assert_uint_lt(STMT_SIMPLE_SIZE, sizeof(Stmt));
	ck_assert_uint_lt(EXPR_VAR_SIZE, sizeof(Expr));
}
END_TEST

/* Consecutive nodes are as far apart as their kind's size; in sanitizer
 * builds the full node is allocated and the missing fields are poisoned. */
START_TEST(short_nodes_take_less_memory)
{
	Arena a;
	arena_init(&a);
	SrcPos at = { 3, 5 };
	Stmt *s1 = ir_stmt_new(&a, ST_ASSIGN, at), *s2 = ir_stmt_new(&a, ST_FOR, at), *s3 = ir_stmt_new(&a, ST_EVAL, at);
	Expr *e1 = ir_expr_new(&a, EX_VAR, at), *e2 = ir_expr_new(&a, EX_OP_CALL, at), *e3 = ir_expr_new(&a, EX_INT, at);
	ck_assert_int_eq(s1->kind, ST_ASSIGN);
	ck_assert_int_eq(s1->pos.line, 3);
	ck_assert_int_eq(s3->pos.col, 5);
	ck_assert_int_eq(e1->kind, EX_VAR);
	ck_assert_int_eq(e3->kind, EX_INT);
	/* every field of a long node and the prefix of a short one can be written */
	s1->for_kind = 1;
	s2->scope = NULL;
	s2->body.n = 0;
	e1->var = NULL;
	e2->rhs = NULL;
#ifdef ARENA_POISON_TAILS
	ck_assert_uint_eq((size_t)((char *)s2 - (char *)s1), sizeof(Stmt));
	ck_assert_uint_eq((size_t)((char *)e2 - (char *)e1), sizeof(Expr));
	ck_assert(__asan_address_is_poisoned(&s1->body));
	ck_assert(__asan_address_is_poisoned(&s3->scope));
	ck_assert(!__asan_address_is_poisoned(&s1->for_kind));
	ck_assert_ptr_null(__asan_region_is_poisoned(s2, sizeof(Stmt)));
	ck_assert(__asan_address_is_poisoned(&e1->str));
	ck_assert(!__asan_address_is_poisoned(&e1->var));
	ck_assert_ptr_null(__asan_region_is_poisoned(e2, sizeof(Expr)));
#else
	ck_assert_uint_eq((size_t)((char *)s2 - (char *)s1), STMT_SIMPLE_SIZE);
	ck_assert_uint_eq((size_t)((char *)s3 - (char *)s2), sizeof(Stmt));
	ck_assert_uint_eq((size_t)((char *)e2 - (char *)e1), EXPR_VAR_SIZE);
	ck_assert_uint_eq((size_t)((char *)e3 - (char *)e2), sizeof(Expr));
#endif
	arena_free(&a);
}
END_TEST

/* Memory given back by arena_reset holds long nodes again: no stale poison. */
START_TEST(short_nodes_reset_then_long)
{
	Arena a;
	arena_init(&a);
	arena_alloc(&a, 8); /* a mark is reset to only within its block: have one */
	ArenaMark m = arena_mark(&a);
	Stmt *first = ir_stmt_new(&a, ST_ASSIGN, (SrcPos){ 1, 1 });
	for (int i = 1; i < 100; i++)
		ir_stmt_new(&a, ST_ASSIGN, (SrcPos){ 1, 1 });
	arena_reset(&a, m);
	ck_assert_ptr_eq(ir_stmt_new(&a, ST_WHILE, (SrcPos){ 1, 1 }), first); /* the same memory */
	for (int i = 0; i < 40; i++) {
		Stmt *s = ir_stmt_new(&a, ST_IF, (SrcPos){ 1, 1 });
		ck_assert_ptr_null(s->scope); /* zeroed and readable to the end */
		s->scope = NULL;
		s->attrs = NULL;
	}
	arena_free(&a);
}
END_TEST

START_TEST(short_nodes_copy)
{
	Arena a;
	arena_init(&a);
	Var v = { .name = "x" };
	Stmt *s = ir_stmt_new(&a, ST_ASSIGN, (SrcPos){ 7, 9 });
	Expr *val = ir_expr_new(&a, EX_OP_CALL, (SrcPos){ 7, 13 });
	val->str = "tile.add";
	val->nargs = 2;
	s->var = &v;
	s->value = val;
	s->ncomments = 1;
	Stmt *c = ir_stmt_copy(&a, s);
	ck_assert_ptr_ne(c, s);
	ck_assert_int_eq(c->kind, ST_ASSIGN);
	ck_assert_int_eq(c->pos.line, 7);
	ck_assert_int_eq(c->pos.col, 9);
	ck_assert_int_eq(c->ncomments, 1);
	ck_assert_ptr_eq(c->var, &v);
	ck_assert_ptr_eq(c->value, val);
	Expr *vc = ir_expr_copy(&a, val);
	ck_assert_str_eq(vc->str, "tile.add");
	ck_assert_int_eq(vc->nargs, 2);
	ck_assert_int_eq(vc->pos.col, 13);
	Expr *r = ir_var_ref(&a, &v);
	Expr *rc = ir_expr_copy(&a, r);
	ck_assert_int_eq(rc->kind, EX_VAR);
	ck_assert_ptr_eq(rc->var, &v);
	Stmt *loop = ir_stmt_new(&a, ST_FOR, (SrcPos){ 2, 1 });
	loop->body.n = 4;
	loop->niter = 2;
	loop->scope = (Scope *)&v; /* any pointer: only compared */
	Stmt *lc = ir_stmt_copy(&a, loop);
	ck_assert_int_eq(lc->body.n, 4);
	ck_assert_int_eq(lc->niter, 2);
	ck_assert_ptr_eq(lc->scope, (Scope *)&v);
	arena_free(&a);
}
END_TEST

/* ------------------------------------------------------------ huge heap */

/* Whether the mapping holding p is advised to huge pages (smaps' VmFlags
 * "hg"). */
static bool in_huge_advised_map(const void *p)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	ck_assert_ptr_nonnull(f);
	char line[512];
	bool in = false, hg = false;
	uintptr_t a = (uintptr_t)p;
	while (fgets(line, sizeof line, f)) {
		unsigned long lo, hi;
		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && strchr(line, '-') < strchr(line, ' '))
			in = a >= lo && a < hi;
		else if (in && !strncmp(line, "VmFlags:", 8)) {
			hg = strstr(line, " hg") != NULL;
			break;
		}
	}
	fclose(f);
	return hg;
}

/* mem_huge_heap: the heap's next blocks come from memory advised to huge
 * pages, and again after a second call (a forked worker's, whose heap moves
 * on past the huge page its parent's ended in); what the heap held before
 * stays where it was.  Nothing to see under AddressSanitizer (its own
 * malloc) or without /proc. */
START_TEST(huge_heap_blocks)
{
#if defined(__SANITIZE_ADDRESS__) || defined(ARENA_POISON_TAILS)
	return;
#endif
	if (access("/proc/self/smaps", R_OK) != 0)
		return;
	char *before = malloc(64);
	ck_assert(!in_huge_advised_map(before));
	mem_huge_heap();
	char *p = malloc(64 << 10);
	ck_assert(in_huge_advised_map(p + 32768));
	memset(p, 1, 64 << 10);
	mem_huge_heap();
	char *q = malloc(64 << 10);
	ck_assert(in_huge_advised_map(q + 32768));
	/* the second call starts the next block on a fresh huge page */
	ck_assert_uint_ne((uintptr_t)(p + 32768) >> 21, (uintptr_t)(q + 32768) >> 21);
	strcpy(before, "kept");
	ck_assert_str_eq(before, "kept");
	free(q);
	free(p);
	free(before);
}
END_TEST

static Suite *arena_suite(void)
{
	Suite *s = suite_create("arena");
	TCase *tc = tcase_create("alloc");
	tcase_add_test(tc, alloc_zeroed_aligned);
	tcase_add_test(tc, alloc_distinct_and_persistent);
	tcase_add_test(tc, alloc_large);
	tcase_add_test(tc, mark_reset_reuses_and_zeroes);
	tcase_add_test(tc, mark_reset_across_blocks_is_safe);
	tcase_add_test(tc, strndup_and_printf);
	tcase_add_test(tc, huge_heap_blocks);
	suite_add_tcase(s, tc);
	tc = tcase_create("intern");
	tcase_add_test(tc, intern_identity);
	tcase_add_test(tc, intern_survives_growth);
	tcase_add_test(tc, intern_per_arena);
	suite_add_tcase(s, tc);
	tc = tcase_create("containers");
	tcase_add_test(tc, vec_malloc_backed);
	tcase_add_test(tc, vec_arena_backed);
	tcase_add_test(tc, vec_finish_empty);
	tcase_add_test(tc, vec_arena_recycles_buffers);
	tcase_add_test(tc, vec_recycling_respects_reset);
	tcase_add_test(tc, pmap_basic);
	tcase_add_test(tc, pmap_many_and_clear);
	tcase_add_test(tc, pmap_recycled_tables_start_empty);
	tcase_add_test(tc, pmap_interned_keys);
	tcase_add_test(tc, htab_find_add);
	suite_add_tcase(s, tc);
	tc = tcase_create("strbuf");
	tcase_add_test(tc, strbuf_ops);
	tcase_add_test(tc, strbuf_sink);
	tcase_add_test(tc, strbuf_put_int_and_flushed);
	suite_add_tcase(s, tc);
	tc = tcase_create("short_nodes");
	tcase_add_test(tc, short_stmt_kinds);
	tcase_add_test(tc, short_nodes_take_less_memory);
	tcase_add_test(tc, short_nodes_reset_then_long);
	tcase_add_test(tc, short_nodes_copy);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(arena_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
