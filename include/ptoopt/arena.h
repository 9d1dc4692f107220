/* arena.h - bump allocation, string interning and a pointer-keyed hash map.
 *
 * One program lives in one arena; everything the parser and the passes build
 * is freed at once by arena_free().  Interned strings compare by pointer, so
 * names can be hashed and compared cheaply everywhere.
 */
#ifndef PTOOPT_ARENA_H
#define PTOOPT_ARENA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef struct ArenaBlock ArenaBlock;
typedef struct Pool {
	ArenaBlock *head;
	char *cur, *end;
} Pool;

#define ARENA_VEC_CLASSES 16
typedef struct Arena {
	Pool main;        /* IR nodes */
	Pool text;        /* strings (interned names, comments, literals): never rolled back */
	/* interning table: open addressing; hash and length kept for speed */
	struct InternSlot *strs;
	size_t nstrs, capstrs;
	void *scalar_types[32]; /* shared immutable pl.Scalar[dt] types (ir.c) */
	void **vec_free[ARENA_VEC_CLASSES]; /* recycled PtrVec buffers (arena.c) */
} Arena;

/* A position in the main pool; arena_reset frees what was allocated after
 * it (only within the same block; otherwise it keeps the memory). */
typedef struct ArenaMark {
	ArenaBlock *head;
	char *cur;
} ArenaMark;
ArenaMark arena_mark(Arena *a);
void arena_reset(Arena *a, ArenaMark m);

void arena_init(Arena *a);
void arena_free(Arena *a);
void *arena_alloc_slow(Arena *a, size_t n);     /* a new block, then as arena_alloc */
/* Zeroed, 8-byte aligned.  Inline: nodes are allocated by the hundred
 * thousand, and with the size known at the call the zeroing is a few stores. */
static inline void *arena_alloc(Arena *a, size_t n)
{
	size_t m = (n + 7) & ~(size_t)7;
	if ((size_t)(a->main.end - a->main.cur) < m)
		return arena_alloc_slow(a, n);
	void *r = a->main.cur;
	a->main.cur += m;
	return memset(r, 0, n);
}
/* A node of which only the first `used` of its type's `full` bytes exist
 * (ir.h's short statements and expressions).  In AddressSanitizer builds
 * the missing tail is allocated but poisoned, so that any read or write of
 * a field a short node does not have is reported by the tests and fuzzers
 * instead of touching the next node. */
#if defined(__SANITIZE_ADDRESS__)
#define ARENA_POISON_TAILS 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ARENA_POISON_TAILS 1
#endif
#endif
#ifdef ARENA_POISON_TAILS
void *arena_alloc_part(Arena *a, size_t full, size_t used);
#else
static inline void *arena_alloc_part(Arena *a, size_t full, size_t used)
{
	(void)full;
	return arena_alloc(a, used);
}
#endif
char *arena_strndup(Arena *a, const char *s, size_t n); /* in the text pool */
char *arena_printf(Arena *a, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Intern s[0..n): equal strings give the same pointer. */
const char *intern(Arena *a, const char *s, size_t n);
const char *intern_cstr(Arena *a, const char *s);
/* The hash intern() uses (table placement only, never output). */
uint64_t hash_bytes(const char *s, size_t n);

/* Called when malloc fails.  Prints "out of memory" and exits with 1 unless a
 * handler was installed (tests install one that longjmps). */
typedef void (*OomHandler)(void);
void set_oom_handler(OomHandler h);
void oom(void) __attribute__((noreturn));
/* Count a buffer of n bytes held outside the arena (input text, output
 * and diff buffers) against the memory limit: exits with the limit's
 * message when it does not fit; mem_uncharge when it is freed. */
void mem_charge(size_t n);
void mem_uncharge(size_t n);
void *xmalloc(size_t n);
void *xrealloc(void *p, size_t n);
/* Zeroed; huge-page backed from 2 MB on.  Free with xfree_big(p, same n). */
void *xzalloc_big(size_t n);
void xfree_big(void *p, size_t n);
/* Zeroed, in whole 2 MB huge pages whatever n is (one page fault per 2 MB
 * instead of one per 4 KB, for buffers that will be filled completely).
 * Free with xfree_huge(p, same n). */
void *xzalloc_huge(size_t n);
void xfree_huge(void *p, size_t n);
/* A large run's malloc heap kept and in huge pages (arena.c says why):
 * before its big allocations, and in each process around a fork; the
 * heap's next blocks come from a huge page not touched yet. */
void mem_huge_heap(void);

/* Growable array of pointers.  With .arena set the storage comes from the
 * arena (so a longjmp out of the parser leaks nothing); otherwise from
 * malloc, copied into an arena by vec_finish. */
typedef struct PtrVec {
	void **items;
	size_t len, cap;
	Arena *arena;
} PtrVec;
#define ARENA_VEC(a) ((PtrVec){ .arena = (a) })
void vec_grow(PtrVec *v);
static inline void vec_push(PtrVec *v, void *p)
{
	if (v->len == v->cap)
		vec_grow(v);
	v->items[v->len++] = p;
}
void **vec_finish(Arena *a, PtrVec *v, int *count); /* copies to arena, frees v */
void vec_release(PtrVec *v);

/* Hash map from pointer to pointer (keys: interned names, Var *, ...). */
typedef struct PtrMap {
	const void **keys;
	void **vals;
	size_t len, cap;
} PtrMap;
/* The look-up and the store are inline: the passes make a few hundred
 * thousand of each on a large program, most on maps of a handful of entries,
 * where a call costs as much as the probe. */
static inline size_t pmap_hash(const void *p)
{
	uint64_t x = (uint64_t)(uintptr_t)p;
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	return (size_t)x;
}
static inline void *pmap_get(const PtrMap *m, const void *key)
{
	if (!m->cap)
		return NULL;
	size_t mask = m->cap - 1, j = pmap_hash(key) & mask;
	for (const void *k; (k = m->keys[j]); j = (j + 1) & mask)
		if (k == key)
			return m->vals[j];
	return NULL;
}
void pmap_grow(PtrMap *m); /* room for one more entry */
static inline void pmap_put(PtrMap *m, const void *key, void *val)
{
	if ((m->len + 1) * 2 > m->cap)
		pmap_grow(m);
	size_t mask = m->cap - 1, j = pmap_hash(key) & mask;
	for (const void *k; (k = m->keys[j]); j = (j + 1) & mask)
		if (k == key) {
			m->vals[j] = val;
			return;
		}
	m->keys[j] = key;
	m->vals[j] = val;
	m->len++;
}
/* Make room for n entries at once (no regrowth while they are added). */
void pmap_reserve(PtrMap *m, size_t n);
void pmap_clear(PtrMap *m);
void pmap_release(PtrMap *m);

/* Hash table of values with caller-computed hashes (hash-consing). */
typedef struct HashTab {
	uint64_t *hashes;
	void **vals;
	size_t len, cap;
} HashTab;
/* The value equal to key (eq(value, key)) with hash h, or NULL. */
void *htab_find(const HashTab *t, uint64_t h, bool (*eq)(const void *val, const void *key), const void *key);
void htab_add(HashTab *t, uint64_t h, void *val);
void htab_release(HashTab *t);

#endif
