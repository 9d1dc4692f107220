/* arena.c - bump allocator, string interning, pointer vectors and maps. */
#include "ptoopt/arena.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
/* LeakSanitizer scans the heap, stacks and globals, not mmap'd memory: a
 * malloc'd block whose only pointer lies in a huge-page block (the arena's
 * first block, linked from the second) would be reported as leaked.  Under
 * ASan the mapped regions are registered as roots. */
#if defined(__SANITIZE_ADDRESS__)
#define ARENA_LSAN_ROOTS 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ARENA_LSAN_ROOTS 1
#endif
#endif
#ifdef ARENA_LSAN_ROOTS
#include <sanitizer/lsan_interface.h>
#define LSAN_ROOT(p, n) __lsan_register_root_region((p), (n))
#define LSAN_UNROOT(p, n) __lsan_unregister_root_region((p), (n))
#else
#define LSAN_ROOT(p, n) ((void)0)
#define LSAN_UNROOT(p, n) ((void)0)
#endif
#ifdef ARENA_POISON_TAILS
#include <sanitizer/asan_interface.h>
#endif

struct ArenaBlock {
	ArenaBlock *next;
	size_t size;
	bool mapped;      /* from mmap (large blocks), freed with munmap */
	max_align_t data[];
};

/* Large blocks come from mmap with transparent huge pages requested: a
 * 100 MB program then costs a few dozen page faults instead of tens of
 * thousands, which matters on virtual machines where faults are slow. */
#define HUGE_BLOCK ((size_t)2 << 20)

static OomHandler oom_handler;

#ifdef PTOOPT_ALLOC_FAIL
/* Test hook (meson -Dalloc_fail=true): with PTOOPT_FAIL_ALLOC_AT=N in the
 * environment the N-th allocation made here (malloc, realloc, calloc or an
 * arena block, counted from 1) fails, so tests/alloc_fail.sh can walk every
 * out-of-memory path of a real run.  Every allocation of the program goes
 * through this file, so the sweep covers them all. */
static bool alloc_fails(void)
{
	static long count, fail_at = -1;
	if (fail_at < 0) {
		const char *e = getenv("PTOOPT_FAIL_ALLOC_AT");
		fail_at = e ? strtol(e, NULL, 10) : 0;
	}
	return ++count == fail_at;
}
#else
#define alloc_fails() false
#endif

/* Memory limit.  The IR and its tables (arena blocks, interning and hash
 * tables: nearly all the memory a run holds) are counted against a budget,
 * so that an input too big for the machine ends with a clear error instead
 * of the kernel's OOM killer: by default half the physical memory (or of
 * the cgroup's limit, when lower), or PTOOPT_MEMORY_LIMIT_MB. */
static size_t mem_used, mem_limit;

static size_t memory_limit(void)
{
	if (mem_limit)
		return mem_limit;
	const char *e = getenv("PTOOPT_MEMORY_LIMIT_MB");
	char *end;
	unsigned long long mb = e ? strtoull(e, &end, 10) : 0;
	if (e && *e && !*end && mb > 0) {
		mem_limit = mb > SIZE_MAX / (1024 * 1024) ? SIZE_MAX : (size_t)mb * 1024 * 1024;
		return mem_limit;
	}
	long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGESIZE);
	unsigned long long phys = pages > 0 && psize > 0 ? (unsigned long long)pages * (unsigned long long)psize : 0;
	FILE *f = fopen("/sys/fs/cgroup/memory.max", "r"); /* cgroup v2; "max" = none */
	if (f) {
		unsigned long long cg;
		if (fscanf(f, "%llu", &cg) == 1 && cg > 0 && (!phys || cg < phys))
			phys = cg;
		fclose(f);
	}
	mem_limit = phys ? (size_t)(phys / 2) : SIZE_MAX;
	return mem_limit;
}

static void over_limit(size_t more) __attribute__((noreturn));
static void over_limit(size_t more)
{
	if (oom_handler)
		oom_handler();
	fprintf(stderr, "ptoopt: error: out of memory: the input needs more than the %zu MiB memory limit "
		"(%zu MiB held, %zu MiB more asked for; set PTOOPT_MEMORY_LIMIT_MB to change it)\n",
		mem_limit >> 20, mem_used >> 20, more >> 20);
	exit(1);
}

/* Count n more bytes against the limit (exits when over it); mem_release
 * gives them back. */
static void mem_take(size_t n)
{
	size_t limit = mem_limit ? mem_limit : memory_limit(); /* read once, then cached */
	if (n > limit - mem_used || mem_used > limit)
		over_limit(n);
	mem_used += n;
}

static void mem_release(size_t n) { mem_used = n < mem_used ? mem_used - n : 0; }

void mem_charge(size_t n) { mem_take(n); }
void mem_uncharge(size_t n) { mem_release(n); }

static size_t huge_round(size_t n) { return (n + HUGE_BLOCK - 1) & ~(HUGE_BLOCK - 1); }

/* n bytes (a multiple of HUGE_BLOCK) of zeroed memory with transparent huge
 * pages requested, or NULL. */
static void *huge_map(size_t n)
{
	void *m = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return NULL;
	LSAN_ROOT(m, n);
#ifdef MADV_HUGEPAGE
	madvise(m, n, MADV_HUGEPAGE);
#endif
	return m;
}

/* Mapped blocks of a freed arena are kept for the next one (a worker's
 * parts: parallel.c), a few and of the sizes arenas start with: their
 * pages are in place, where a new mapping's cost a fault and the kernel's
 * zeroing each (and on a virtual machine often the host's work too).  No
 * zeroing is needed: arena_alloc clears what it hands out, and the text
 * pool and vector buffers are written before they are read.  Not under
 * AddressSanitizer, whose leak check would take a kept block's stale
 * pointers for references. */
#define KEPT_BLOCKS 4
#define KEPT_MAX_BYTES ((size_t)8 << 20)
#ifndef ARENA_LSAN_ROOTS
static ArenaBlock *kept[KEPT_BLOCKS];
#endif

static ArenaBlock *kept_take(size_t total)
{
#ifndef ARENA_LSAN_ROOTS
	for (int i = 0; i < KEPT_BLOCKS; i++) {
		ArenaBlock *b = kept[i];
		if (b && b->size + sizeof(ArenaBlock) == total) {
			kept[i] = NULL;
			return b;
		}
	}
#else
	(void)total;
#endif
	return NULL;
}

static bool kept_put(ArenaBlock *b)
{
#ifndef ARENA_LSAN_ROOTS
	if (b->size + sizeof(ArenaBlock) <= KEPT_MAX_BYTES)
		for (int i = 0; i < KEPT_BLOCKS; i++)
			if (!kept[i]) {
				kept[i] = b;
				return true;
			}
#else
	(void)b;
#endif
	return false;
}

static ArenaBlock *block_new(size_t size)
{
	size_t total = sizeof(ArenaBlock) + size;
	if (alloc_fails())
		return NULL;
	mem_take(total);
	if (total >= HUGE_BLOCK) {
		size_t rounded = huge_round(total);
		mem_take(rounded - total);
		total = rounded;
		ArenaBlock *b = kept_take(total);
		if (b)
			return b;
		b = huge_map(total);
		if (!b)
			return NULL;
		b->size = total - sizeof(ArenaBlock);
		b->mapped = true;
		return b;
	}
	ArenaBlock *b = malloc(total);
	if (b) {
		b->size = size;
		b->mapped = false;
	}
	return b;
}

static void block_free(ArenaBlock *b)
{
	mem_release(b->size + sizeof(ArenaBlock));
#ifdef ARENA_POISON_TAILS
	ASAN_UNPOISON_MEMORY_REGION(b->data, b->size); /* the memory may be mapped again */
#endif
	if (!b->mapped) {
		free(b);
	} else if (!kept_put(b)) {
		LSAN_UNROOT(b, b->size + sizeof(ArenaBlock));
		munmap(b, b->size + sizeof(ArenaBlock));
	}
}

void set_oom_handler(OomHandler h) { oom_handler = h; }

void oom(void)
{
	if (oom_handler)
		oom_handler();
	fputs("ptoopt: error: out of memory\n", stderr);
	exit(1);
}

void *xmalloc(size_t n)
{
	void *p = alloc_fails() ? NULL : malloc(n ? n : 1);
	if (!p)
		oom();
	return p;
}

/* Zeroed memory for big tables and buffers: from 2 MB on, huge-page backed
 * like the arena's large blocks (a 100 MB input read into 4 KB pages costs
 * 25 000 page faults).  Free with xfree_big and the same size. */
void *xzalloc_big(size_t n)
{
	if (n < HUGE_BLOCK) {
		void *p = alloc_fails() ? NULL : calloc(1, n ? n : 1);
		if (!p)
			oom();
		return p;
	}
	return xzalloc_huge(n);
}

void xfree_big(void *p, size_t n)
{
	if (n < HUGE_BLOCK)
		free(p);
	else
		xfree_huge(p, n);
}

void *xzalloc_huge(size_t n)
{
	void *m = alloc_fails() ? NULL : huge_map(huge_round(n ? n : 1));
	if (!m)
		oom();
	return m;
}

void xfree_huge(void *p, size_t n)
{
	if (p) {
		LSAN_UNROOT(p, huge_round(n ? n : 1));
		munmap(p, huge_round(n ? n : 1));
	}
}

/* The malloc heap of a large run in huge pages.  On the virtual machines
 * this runs on a 4 KB page fault costs about 10 us, and a run over a few
 * megabytes touches a megabyte or two of fresh heap (tables, vectors,
 * buffers): hundreds of faults, a tenth of the run.  So: freed memory
 * stays in the heap (no trimming, no separate mappings that come back
 * fresh), the heap grows in 16 MB steps, and the part of it not touched
 * yet is advised to transparent huge pages (one fault per 2 MB); the
 * heap's next blocks then come from the next whole huge page.  Called once
 * a run knows its input is large, and around a fork (parallel.c): in each
 * worker, and in the parent after it forked them, so that neither writes
 * the huge page their heaps shared at the fork (a write there copies it
 * 4 KB at a time).  Memory not touched costs nothing; a huge page costs
 * 2 MB of resident memory at most once.
 * Under AddressSanitizer, malloc is its own: nothing is done. */
#if defined(__GLIBC__) && !defined(ARENA_LSAN_ROOTS) && defined(MADV_HUGEPAGE)
static void *mem_heap_gap;
#endif

void mem_huge_heap(void)
{
#if defined(__GLIBC__) && !defined(ARENA_LSAN_ROOTS) && defined(MADV_HUGEPAGE)
	const size_t step = (size_t)16 << 20;
	mallopt(M_MMAP_THRESHOLD, 32 << 20);
	mallopt(M_TRIM_THRESHOLD, 256 << 20);
	mallopt(M_TOP_PAD, (int)step);
	/* the free top of the heap ends at the break; short of room, a block
	 * larger than it grows the heap by step bytes now (and is given back) */
	struct mallinfo2 mi = mallinfo2();
	if (mi.keepcost < step / 2) {
		void *p = malloc(mi.keepcost + 4096);
		__asm__ volatile("" : : "r"(p) : "memory"); /* or the compiler drops the pair */
		free(p);
		mi = mallinfo2();
	}
	char *end = sbrk(0);
	if (end == (char *)-1 || mi.keepcost > (uintptr_t)end)
		return;
	uintptr_t top = (uintptr_t)end - mi.keepcost;
	uintptr_t a = (top + 256 + HUGE_BLOCK - 1) & ~(uintptr_t)(HUGE_BLOCK - 1);
	uintptr_t b = (uintptr_t)end & ~(uintptr_t)(HUGE_BLOCK - 1);
	if (b <= a)
		return;
	madvise((void *)a, b - a, MADV_HUGEPAGE);
	/* a block that fills the top up to the first whole huge page (never
	 * touched but at its ends, never freed): the heap's next blocks start
	 * there */
	mem_heap_gap = malloc(a - top - 128);
	__asm__ volatile("" : : "r"(mem_heap_gap) : "memory");
#endif
}

void *xrealloc(void *p, size_t n)
{
	void *q = alloc_fails() ? NULL : realloc(p, n ? n : 1);
	if (!q)
		oom();
	return q;
}

void arena_init(Arena *a) { memset(a, 0, sizeof *a); }

static void pool_free(Pool *p)
{
	ArenaBlock *b = p->head;
	while (b) {
		ArenaBlock *next = b->next;
		block_free(b);
		b = next;
	}
}

struct InternSlot {
	const char *s;
	uint32_t len;
	uint32_t hash;
};

void arena_free(Arena *a)
{
	pool_free(&a->main);
	pool_free(&a->text);
	xfree_big(a->strs, a->capstrs * sizeof(struct InternSlot));
	mem_release(a->capstrs * sizeof(struct InternSlot));
	memset(a, 0, sizeof *a);
}

/* Start a new block with room for n bytes (n a multiple of 8). */
static void pool_grow(Pool *p, size_t n)
{
	/* Blocks grow with the pool so a 100 MB program needs few mallocs. */
	size_t size = p->head ? p->head->size * 2 : 64 * 1024;
	/* after the first block, straight to huge pages: 4 KB pages cost a
	 * fault each, which on a virtual machine is ~10 us */
	if (p->head && size < HUGE_BLOCK - sizeof(ArenaBlock))
		size = HUGE_BLOCK - sizeof(ArenaBlock);
	if (size > 64u << 20)
		size = 64u << 20;
	if (size < n)
		size = n;
	ArenaBlock *b = block_new(size);
	if (!b)
		oom();
	b->next = p->head;
	p->head = b;
	p->cur = (char *)b->data;
	p->end = p->cur + b->size;
}

/* Inline: interned strings and finished vectors come here by the ten thousand. */
static inline void *pool_alloc(Pool *p, size_t n)
{
	n = (n + 7) & ~(size_t)7;
	if ((size_t)(p->end - p->cur) < n)
		pool_grow(p, n);
	void *r = p->cur;
	p->cur += n;
	return r;
}

/* arena_alloc when the current block is full (pool_alloc starts a new one). */
void *arena_alloc_slow(Arena *a, size_t n)
{
	void *p = pool_alloc(&a->main, n);
	memset(p, 0, n);
	return p;
}

ArenaMark arena_mark(Arena *a) { return (ArenaMark){ a->main.head, a->main.cur }; }

void arena_reset(Arena *a, ArenaMark m)
{
	if (a->main.head != m.head)
		return;
	/* recycled vector buffers in the freed range must not be handed out
	 * again (the lists are short: about as long as vectors nest) */
	for (int k = 0; k < ARENA_VEC_CLASSES; k++) {
		void ***link = &a->vec_free[k];
		while (*link) {
			char *b = (char *)*link;
			if (b >= m.cur && b < a->main.cur)
				*link = (*link)[0];
			else
				link = (void ***)&(*link)[0];
		}
	}
#ifdef ARENA_POISON_TAILS
	ASAN_UNPOISON_MEMORY_REGION(m.cur, (size_t)(a->main.cur - m.cur)); /* allocated again */
#endif
	a->main.cur = m.cur;
}

#ifdef ARENA_POISON_TAILS
void *arena_alloc_part(Arena *a, size_t full, size_t used)
{
	char *p = arena_alloc(a, full);
	size_t start = (used + 7) & ~(size_t)7; /* poisoning works on 8-byte granules */
	if (start < full)
		ASAN_POISON_MEMORY_REGION(p + start, full - start);
	return p;
}
#endif

char *arena_strndup(Arena *a, const char *s, size_t n)
{
	char *p = pool_alloc(&a->text, n + 1);
	memcpy(p, s, n);
	p[n] = 0;
	return p;
}

char *arena_printf(Arena *a, const char *fmt, ...)
{
	char small[256];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(small, sizeof small, fmt, ap);
	va_end(ap);
	if (n < 0)
		n = 0;
	char *p = arena_alloc(a, (size_t)n + 1);
	if ((size_t)n < sizeof small) {
		memcpy(p, small, (size_t)n + 1);
		return p;
	}
	va_start(ap, fmt);
	vsnprintf(p, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return p;
}

/* Eight bytes at a time: names are short and interning is on the lexer's
 * hot path.  A short tail is read with (overlapping) loads that cover
 * every byte, not byte by byte.  Only table placement depends on it,
 * never the output. */
uint64_t hash_bytes(const char *s, size_t n)
{
	uint64_t h = (uint64_t)n * 0x9e3779b97f4a7c15ull;
	size_t left = n;
	while (left >= 8) {
		uint64_t w;
		memcpy(&w, s, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdull;
		h ^= h >> 32;
		s += 8;
		left -= 8;
	}
	if (left) {
		uint64_t w;
		if (n >= 8) {
			memcpy(&w, s + left - 8, 8); /* the last 8 bytes of the string */
		} else if (left >= 4) {
			uint32_t lo, hi;
			memcpy(&lo, s, 4);
			memcpy(&hi, s + left - 4, 4);
			w = lo | (uint64_t)hi << 32;
		} else {
			w = (uint64_t)(unsigned char)s[0] | (uint64_t)(unsigned char)s[left / 2] << 8 |
			    (uint64_t)(unsigned char)s[left - 1] << 16;
		}
		h = (h ^ w) * 0xc4ceb9fe1a85ec53ull;
		h ^= h >> 29;
	}
	return h ^ (h >> 31);
}


/* The table slot of a string's hash.  Names differ in a byte or two
 * (x_tile4, x_tile5, ...) and their hashes' low bits alone cluster under
 * linear probing: a multiply spreads all 32 bits over the ones used. */
static size_t intern_slot(uint32_t h, size_t cap)
{
	return (size_t)((h * 0x9e3779b97f4a7c15ull) >> 32) & (cap - 1);
}

const char *intern(Arena *a, const char *s, size_t n)
{
	if (a->nstrs * 2 >= a->capstrs) {
		size_t ncap = a->capstrs ? a->capstrs * 2 : 1024;
		mem_take(ncap * sizeof(struct InternSlot));
		struct InternSlot *ns = xzalloc_big(ncap * sizeof *ns);
		for (size_t i = 0; i < a->capstrs; i++) {
			if (!a->strs[i].s)
				continue;
			size_t j = intern_slot(a->strs[i].hash, ncap);
			while (ns[j].s)
				j = (j + 1) & (ncap - 1);
			ns[j] = a->strs[i];
		}
		xfree_big(a->strs, a->capstrs * sizeof(struct InternSlot));
		mem_release(a->capstrs * sizeof(struct InternSlot));
		a->strs = ns;
		a->capstrs = ncap;
	}
	uint32_t h = (uint32_t)hash_bytes(s, n);
	size_t j = intern_slot(h, a->capstrs);
	while (a->strs[j].s) {
		struct InternSlot *e = &a->strs[j];
		if (e->hash == h && e->len == n && memcmp(e->s, s, n) == 0)
			return e->s;
		j = (j + 1) & (a->capstrs - 1);
	}
	const char *t = arena_strndup(a, s, n);
	a->strs[j] = (struct InternSlot){ t, (uint32_t)n, h };
	a->nstrs++;
	return t;
}

const char *intern_cstr(Arena *a, const char *s) { return intern(a, s, strlen(s)); }

/* Arena-backed vectors recycle their buffers: a buffer left behind by
 * growth or by vec_finish (which copies the items into an exact-size array)
 * goes on a free list of its size class, so building millions of short
 * lists leaves no garbage behind but the lists themselves.  Capacities are
 * 8 << k pointers; a free buffer's first slot links to the next. */
static unsigned vec_class(size_t cap)
{
	unsigned k = 0;
	while (((size_t)8 << k) < cap)
		k++;
	return k;
}

static void **vec_buf_take(Arena *a, size_t cap)
{
	unsigned k = vec_class(cap);
	if (k < ARENA_VEC_CLASSES && a->vec_free[k]) {
		void **b = a->vec_free[k];
		a->vec_free[k] = b[0];
		return b;
	}
	return pool_alloc(&a->main, cap * sizeof(void *));
}

static void vec_buf_give(Arena *a, void **b, size_t cap)
{
	unsigned k = vec_class(cap);
	if (k < ARENA_VEC_CLASSES && ((size_t)8 << k) == cap) {
		b[0] = a->vec_free[k];
		a->vec_free[k] = b;
	}
}

/* A vector without an arena grows on the heap.  Passes make and drop such
 * scratch vectors by the ten thousand, so released buffers of the small
 * capacities (8 .. 256 pointers) are kept for reuse instead of going back to
 * malloc; a buffer is still a malloc block, so code that frees one itself
 * may. */
#define HEAP_VEC_CLASSES 6
#define HEAP_VEC_KEEP 64
static void **heap_vec_spare[HEAP_VEC_CLASSES][HEAP_VEC_KEEP];
static int heap_vec_nspare[HEAP_VEC_CLASSES];

static void **heap_vec_take(size_t cap)
{
	unsigned k = vec_class(cap);
	if (k < HEAP_VEC_CLASSES && ((size_t)8 << k) == cap && heap_vec_nspare[k])
		return heap_vec_spare[k][--heap_vec_nspare[k]];
	return xmalloc(cap * sizeof(void *));
}

static void heap_vec_give(void **b, size_t cap)
{
	unsigned k = vec_class(cap);
	if (b && k < HEAP_VEC_CLASSES && ((size_t)8 << k) == cap && heap_vec_nspare[k] < HEAP_VEC_KEEP)
		heap_vec_spare[k][heap_vec_nspare[k]++] = b;
	else
		free(b);
}

/* vec_push found the vector full: double it. */
void vec_grow(PtrVec *v)
{
	size_t ncap = v->cap ? v->cap * 2 : 8;
	if (v->arena) {
		void **n = vec_buf_take(v->arena, ncap);
		if (v->len) {
			memcpy(n, v->items, v->len * sizeof *n);
			vec_buf_give(v->arena, v->items, v->cap);
		}
		v->items = n;
	} else {
		void **n = heap_vec_take(ncap);
		if (v->len)
			memcpy(n, v->items, v->len * sizeof *n);
		heap_vec_give(v->items, v->cap);
		v->items = n;
	}
	v->cap = ncap;
}

void **vec_finish(Arena *a, PtrVec *v, int *count)
{
	void **out = NULL;
	if (v->len) {
		out = pool_alloc(&a->main, v->len * sizeof *out);
		memcpy(out, v->items, v->len * sizeof *out);
	}
	*count = (int)v->len;
	if (v->arena) {
		if (v->cap)
			vec_buf_give(v->arena, v->items, v->cap);
		memset(v, 0, sizeof *v);
	} else {
		vec_release(v);
	}
	return out;
}

void vec_release(PtrVec *v)
{
	if (!v->arena)
		heap_vec_give(v->items, v->cap);
	else if (v->cap)
		vec_buf_give(v->arena, v->items, v->cap);
	memset(v, 0, sizeof *v);
}

/* Most maps hold a handful of entries (one per variable of a scope), so the
 * first table is small (16 slots: 8 at most before it grows; measured fewer
 * instructions than 8 or 32 on the outline benchmark); keys and values
 * share one allocation.  Passes make
 * and drop such maps by the ten thousand, so released tables of the small
 * sizes are kept for reuse (glibc serves calloc without its per-thread cache,
 * and gcc turns malloc + memset back into calloc). */
#define PMAP_FIRST_CAP 16
#define PMAP_CLASSES 6      /* capacities 16 .. 512 are recycled */
#define PMAP_KEEP 64        /* per capacity */
static void **pmap_spare[PMAP_CLASSES][PMAP_KEEP];
static int pmap_nspare[PMAP_CLASSES];

static int pmap_class(size_t cap)
{
	int c = 0;
	while (c < PMAP_CLASSES && ((size_t)PMAP_FIRST_CAP << c) != cap)
		c++;
	return c; /* PMAP_CLASSES: not recycled */
}

static void **pmap_table(size_t cap)
{
	int c = pmap_class(cap);
	void **block;
	if (c < PMAP_CLASSES && pmap_nspare[c]) {
		block = pmap_spare[c][--pmap_nspare[c]];
		memset(block, 0, cap * sizeof(void *)); /* the keys: a value is read only under its key */
	} else if (c < PMAP_CLASSES) {
		if (!(block = alloc_fails() ? NULL : malloc(cap * 2 * sizeof(void *))))
			oom();
		memset(block, 0, cap * sizeof(void *));
	} else {
		block = xzalloc_big(cap * 2 * sizeof(void *));
	}
	return block;
}

static void pmap_table_free(void **block, size_t cap)
{
	int c = pmap_class(cap);
	if (c < PMAP_CLASSES && pmap_nspare[c] < PMAP_KEEP)
		pmap_spare[c][pmap_nspare[c]++] = block;
	else if (c < PMAP_CLASSES)
		free(block);
	else
		xfree_big(block, cap * 2 * sizeof(void *));
}

/* Move the entries into a table of ncap slots (a power of two, larger). */
static void pmap_resize(PtrMap *m, size_t ncap)
{
	mem_take(ncap * (sizeof *m->keys + sizeof *m->vals));
	void **block = pmap_table(ncap);
	const void **nk = (const void **)block;
	void **nv = block + ncap;
	for (size_t i = 0; i < m->cap; i++) {
		if (!m->keys[i])
			continue;
		size_t j = pmap_hash(m->keys[i]) & (ncap - 1);
		while (nk[j])
			j = (j + 1) & (ncap - 1);
		nk[j] = m->keys[i];
		nv[j] = m->vals[i];
	}
	if (m->cap)
		pmap_table_free((void **)m->keys, m->cap);
	mem_release(m->cap * (sizeof *m->keys + sizeof *m->vals));
	m->keys = nk;
	m->vals = nv;
	m->cap = ncap;
}

void pmap_reserve(PtrMap *m, size_t n)
{
	if (!n)
		return;
	size_t cap = m->cap ? m->cap : PMAP_FIRST_CAP;
	while (n * 2 > cap)
		cap *= 2;
	if (cap > m->cap)
		pmap_resize(m, cap);
}

void pmap_grow(PtrMap *m)
{
	if ((m->len + 1) * 2 > m->cap)
		pmap_resize(m, m->cap ? m->cap * 2 : PMAP_FIRST_CAP);
}

void pmap_clear(PtrMap *m)
{
	if (m->cap)
		memset((void *)m->keys, 0, m->cap * sizeof(void *));
	m->len = 0;
}

void pmap_release(PtrMap *m)
{
	mem_release(m->cap * (sizeof *m->keys + sizeof *m->vals));
	if (m->cap)
		pmap_table_free((void **)m->keys, m->cap); /* the values live in the same block */
	memset(m, 0, sizeof *m);
}

void *htab_find(const HashTab *t, uint64_t h, bool (*eq)(const void *val, const void *key), const void *key)
{
	if (!t->cap)
		return NULL;
	for (size_t j = h & (t->cap - 1); t->vals[j]; j = (j + 1) & (t->cap - 1))
		if (t->hashes[j] == h && eq(t->vals[j], key))
			return t->vals[j];
	return NULL;
}

void htab_add(HashTab *t, uint64_t h, void *val)
{
	if ((t->len + 1) * 2 > t->cap) {
		size_t ncap = t->cap ? t->cap * 2 : 256;
		mem_take(ncap * (sizeof *t->hashes + sizeof *t->vals));
		uint64_t *nh = xzalloc_big(ncap * sizeof *nh);
		void **nv = xzalloc_big(ncap * sizeof *nv);
		for (size_t i = 0; i < t->cap; i++) {
			if (!t->vals[i])
				continue;
			size_t j = t->hashes[i] & (ncap - 1);
			while (nv[j])
				j = (j + 1) & (ncap - 1);
			nh[j] = t->hashes[i];
			nv[j] = t->vals[i];
		}
		xfree_big(t->hashes, t->cap * sizeof *t->hashes);
		xfree_big(t->vals, t->cap * sizeof *t->vals);
		mem_release(t->cap * (sizeof *t->hashes + sizeof *t->vals));
		t->hashes = nh;
		t->vals = nv;
		t->cap = ncap;
	}
	size_t j = h & (t->cap - 1);
	while (t->vals[j])
		j = (j + 1) & (t->cap - 1);
	t->hashes[j] = h;
	t->vals[j] = val;
	t->len++;
}

void htab_release(HashTab *t)
{
	mem_release(t->cap * (sizeof *t->hashes + sizeof *t->vals));
	xfree_big(t->hashes, t->cap * sizeof *t->hashes);
	xfree_big(t->vals, t->cap * sizeof *t->vals);
	memset(t, 0, sizeof *t);
}
