/* suggest.h - "did you mean" for misspelt names (ops, options, passes):
 * the candidate nearest to a word by edit distance, when near enough to be
 * a typo rather than another name. */
#ifndef PTOOPT_SUGGEST_H
#define PTOOPT_SUGGEST_H

typedef struct Suggest {
	const char *word, *best;
	int dist, limit;
} Suggest;

/* Start a search for the nearest of the candidates offered next: within a
 * fifth of the word's length (at least 1, at most 3 edits). */
void suggest_init(Suggest *s, const char *word);
/* Offer one candidate (NULL and the word itself are ignored; of equally
 * near ones the first offered wins). */
void suggest_offer(Suggest *s, const char *cand);
/* Levenshtein distance of a and b, or limit + 1 once it exceeds limit. */
int suggest_distance(const char *a, const char *b, int limit);

#endif
