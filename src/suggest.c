/* suggest.c - the nearest name by edit distance (see suggest.h). */
#include "ptoopt/suggest.h"

#include <stdlib.h>
#include <string.h>

/* Optimal string alignment distance: insertions, deletions, substitutions
 * and transpositions of neighbours (alwyas -> always) cost 1 each. */
int suggest_distance(const char *a, const char *b, int limit)
{
	int la = (int)strlen(a), lb = (int)strlen(b);
	if (la > 64 || lb > 64 || abs(la - lb) > limit)
		return limit + 1;
	/* three rows of the table; names are short */
	int r0[65], r1[65], r2[65], *pp = r0, *prev = r1, *row = r2;
	for (int j = 0; j <= lb; j++)
		prev[j] = j;
	for (int i = 1; i <= la; i++) {
		row[0] = i;
		int best = i;
		for (int j = 1; j <= lb; j++) {
			int v = prev[j - 1] + (a[i - 1] != b[j - 1]);
			if (row[j - 1] + 1 < v)
				v = row[j - 1] + 1;
			if (prev[j] + 1 < v)
				v = prev[j] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && pp[j - 2] + 1 < v)
				v = pp[j - 2] + 1;
			row[j] = v;
			if (v < best)
				best = v;
		}
		if (best > limit)
			return limit + 1;
		int *t = pp;
		pp = prev;
		prev = row;
		row = t;
	}
	return prev[lb];
}

void suggest_init(Suggest *s, const char *word)
{
	int limit = (int)strlen(word) / 5;
	*s = (Suggest){ word, NULL, 1 << 30, limit < 1 ? 1 : limit > 3 ? 3 : limit };
}

void suggest_offer(Suggest *s, const char *cand)
{
	if (!cand || !strcmp(cand, s->word))
		return;
	int d = suggest_distance(s->word, cand, s->limit);
	if (d <= s->limit && d < s->dist) {
		s->dist = d;
		s->best = cand;
	}
}
