/* autoname.c - the grammar of names the passes generate:
 * "base__[qualifier_][role_]vN" (x__ssa_v2, acc__rv_v1, a__tmp_v0, out__store).
 * convert-to-ssa makes them; the outliners and the front-end passes read and
 * extend them, so the grammar lives here rather than in one pass. */
#include "ptoopt/autoname.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static const char *const roles[] = { "ssa", "iter", "rv", "phi", "tile", "tmp", "out", "store", "idx", NULL };

/* The first "__" of name, or NULL (a plain loop: names are short, and
 * convert-to-ssa asks this of every name it checks). */
static const char *double_underscore(const char *name)
{
	for (const char *p = name; *p; p++)
		if (p[0] == '_' && p[1] == '_')
			return p;
	return NULL;
}

AutoName autoname_parse(Arena *a, const char *name)
{
	AutoName an = { name, "", "", -1, false };
	const char *d = double_underscore(name);
	if (!d)
		return an;
	an.has_delim = true;
	an.base = intern(a, name, (size_t)(d - name));
	const char *suf = d + 2;
	size_t n = strlen(suf);
	/* version: last token v<digits> */
	const char *last = strrchr(suf, '_');
	const char *tok = last ? last + 1 : suf;
	if (tok[0] == 'v' && tok[1]) {
		bool digits = true;
		for (const char *c = tok + 1; *c; c++)
			digits &= *c >= '0' && *c <= '9';
		if (digits) {
			an.version = atoi(tok + 1);
			n = last ? (size_t)(last - suf) : 0;
		}
	}
	/* role: the last remaining token */
	if (n > 0) {
		size_t k = n;
		while (k > 0 && suf[k - 1] != '_')
			k--;
		for (int i = 0; roles[i]; i++)
			if (strlen(roles[i]) == n - k && strncmp(suf + k, roles[i], n - k) == 0) {
				an.role = roles[i];
				n = k ? k - 1 : 0;
				break;
			}
	}
	an.qualifier = intern(a, suf, n);
	return an;
}

/* Called once per new SSA version: built by hand, vsnprintf costs ten times more. */
const char *autoname_build(Arena *a, const char *base, const char *qual, const char *role, int version)
{
	char ver[24] = "", *w = ver;
	if (version >= 0) {
		char digits[16];
		int nd = 0;
		unsigned u = (unsigned)version;
		do
			digits[nd++] = (char)('0' + u % 10);
		while ((u /= 10) && nd < (int)sizeof digits);
		*w++ = 'v';
		while (nd)
			*w++ = digits[--nd];
		*w = 0;
	}
	if (!*qual && !*role && !*ver)
		return base;
	const char *parts[] = { base, "__", qual, *qual && (*role || *ver) ? "_" : "", role,
				*role && *ver ? "_" : "", ver };
	size_t len[7], total = 0;
	for (int i = 0; i < 7; i++)
		total += len[i] = strlen(parts[i]);
	char small[256];
	char *buf = total < sizeof small ? small : arena_alloc(a, total + 1);
	size_t n = 0;
	for (int i = 0; i < 7; i++) {
		memcpy(buf + n, parts[i], len[i]);
		n += len[i];
	}
	return intern(a, buf, n);
}

