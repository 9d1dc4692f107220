/* stdhash.c - libstdc++'s unordered-container iteration order (stdhash.h). */
#include "ptoopt/stdhash.h"

#include <stdlib.h>
#include <string.h>

#include "ptoopt/arena.h"

static uint64_t load_le(const unsigned char *p, size_t n)
{
	uint64_t r = 0;
	while (n-- > 0)
		r = (r << 8) + p[n];
	return r;
}

static uint64_t shift_mix(uint64_t v) { return v ^ (v >> 47); }

uint64_t stdhash_bytes(const void *s, size_t n)
{
	const uint64_t mul = ((uint64_t)0xc6a4a793u << 32) + 0x5bd1e995u;
	const unsigned char *p = s;
	uint64_t h = 0xc70f6907u ^ ((uint64_t)n * mul);
	size_t whole = n & ~(size_t)7;
	for (size_t i = 0; i < whole; i += 8) {
		uint64_t w = load_le(p + i, 8);
		h ^= shift_mix(w * mul) * mul;
		h *= mul;
	}
	if (n & 7) {
		h ^= load_le(p + whole, n & 7);
		h *= mul;
	}
	h = shift_mix(h) * mul;
	return shift_mix(h);
}

/* The bucket counts the policy steps through: 13 on the first insertion,
 * then the next prime of its list from twice the current count. */
static const uint64_t counts[] = {
	13, 29, 59, 127, 257, 541, 1109, 2357, 5087, 10273, 20753, 42043, 85229, 172933, 351061,
	712697, 1447153, 2938679, 5967347, 12117689, 24607243, 49969847, 101473717, 206062531,
	418451333, 849749479, 1725587117, 3504151727u, 8589934583u,
};

void stdhash_init(StdHashOrder *h) { memset(h, 0, sizeof *h); }

void stdhash_release(StdHashOrder *h)
{
	free(h->code);
	free(h->next);
	free(h->bucket);
	memset(h, 0, sizeof *h);
}

static void rehash(StdHashOrder *h, size_t nb)
{
	size_t *nbk = xmalloc(nb * sizeof *nbk);
	for (size_t i = 0; i < nb; i++)
		nbk[i] = SIZE_MAX;
	size_t p = h->next[0], first_bkt = 0;
	h->next[0] = 0;
	while (p) {
		size_t nx = h->next[p], b = (size_t)(h->code[p] % nb);
		if (nbk[b] == SIZE_MAX) {
			h->next[p] = h->next[0];
			h->next[0] = p;
			nbk[b] = 0;
			if (h->next[p])
				nbk[first_bkt] = p;
			first_bkt = b;
		} else {
			h->next[p] = h->next[nbk[b]];
			h->next[nbk[b]] = p;
		}
		p = nx;
	}
	free(h->bucket);
	h->bucket = nbk;
	h->nbuckets = nb;
}

void stdhash_insert(StdHashOrder *h, uint64_t code)
{
	if (h->n + 2 > h->cap) {
		h->cap = h->cap ? h->cap * 2 : 16;
		h->code = xrealloc(h->code, h->cap * sizeof *h->code);
		h->next = xrealloc(h->next, h->cap * sizeof *h->next);
		if (h->n == 0)
			h->next[0] = 0;
	}
	if (h->n + 1 > h->nbuckets) {
		size_t nb = h->nbuckets;
		for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++)
			if (counts[i] > nb) {
				nb = (size_t)counts[i];
				break;
			}
		rehash(h, nb);
	}
	size_t node = ++h->n, b = (size_t)(code % h->nbuckets);
	h->code[node] = code;
	if (h->bucket[b] != SIZE_MAX) {
		h->next[node] = h->next[h->bucket[b]];
		h->next[h->bucket[b]] = node;
	} else {
		h->next[node] = h->next[0];
		h->next[0] = node;
		if (h->next[node])
			h->bucket[h->code[h->next[node]] % h->nbuckets] = node;
		h->bucket[b] = 0;
	}
}

void stdhash_order(const StdHashOrder *h, size_t *out)
{
	size_t k = 0;
	for (size_t p = h->n ? h->next[0] : 0; p; p = h->next[p])
		out[k++] = p - 1;
}
