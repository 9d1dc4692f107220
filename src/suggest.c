/* suggest.c - the nearest name by edit distance (see suggest.h). */
#include "ptoopt/suggest.h"

#include <stdlib.h>
#include <string.h>

int suggest_distance(const char *a, const char *b, int limit)
{
	int la = (int)strlen(a), lb = (int)strlen(b);
	if (la > 64 || lb > 64 || abs(la - lb) > limit)
		return limit + 1;
	/* one row of the table; names are short */
	int row[65];
	for (int j = 0; j <= lb; j++)
		row[j] = j;
	for (int i = 1; i <= la; i++) {
		int diag = row[0], best;
		row[0] = best = i;
		for (int j = 1; j <= lb; j++) {
			int up = row[j];
			int v = diag + (a[i - 1] != b[j - 1]);
			if (row[j - 1] + 1 < v)
				v = row[j - 1] + 1;
			if (up + 1 < v)
				v = up + 1;
			row[j] = v;
			diag = up;
			if (v < best)
				best = v;
		}
		if (best > limit)
			return limit + 1;
	}
	return row[lb];
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
