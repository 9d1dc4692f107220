/* stdhash.h - the iteration order of the reference's std::unordered_map /
 * std::unordered_set (libstdc++), reproduced: a pass whose visible output
 * depends on the order the reference visits a hash container (the names it
 * numbers, the cycle it reports) replays the container's insertions here.
 *
 * The model is libstdc++'s _Hashtable with unique keys and cached hash
 * codes under the default _Prime_rehash_policy (max load factor 1): a
 * singly linked list of nodes, a bucket array pointing at the node before
 * each bucket's first node, a new key put at the front of its bucket (or
 * of the whole list when its bucket is empty), and a rehash to the next
 * bucket count when the element count would exceed the bucket count. */
#ifndef PTOOPT_STDHASH_H
#define PTOOPT_STDHASH_H

#include <stddef.h>
#include <stdint.h>

/* std::hash<std::string> on a 64-bit target (_Hash_bytes, seed 0xc70f6907). */
uint64_t stdhash_bytes(const void *s, size_t n);

typedef struct StdHashOrder {
	size_t n, cap;
	uint64_t *code;   /* node i (1-based): its hash code */
	size_t *next;     /* node i -> next node, 0 = end; node 0 is the list head */
	size_t *bucket;   /* bucket -> node before its first node, SIZE_MAX when empty */
	size_t nbuckets;
} StdHashOrder;

void stdhash_init(StdHashOrder *h);
/* Insert a key not present yet (the caller checks) by its hash code; keys
 * are numbered 0, 1, ... in insertion order. */
void stdhash_insert(StdHashOrder *h, uint64_t code);
/* The iteration order: out[0 .. h->n) receives insertion numbers. */
void stdhash_order(const StdHashOrder *h, size_t *out);
void stdhash_release(StdHashOrder *h);

#endif
