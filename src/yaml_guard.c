/* yaml_guard.c - nesting, document and duplicate-key checks of YAML texts
 * (see yaml_guard.h). */
#include "ptoopt/yaml_guard.h"

#include <stdlib.h>
#include <string.h>

#include "ptoopt/arena.h"

bool yaml_guard_depth(const char *text, size_t len, int *line, int *col, const char **why)
{
	int indents[YAML_MAX_DEPTH + 2], nind = 0, flow = 0, ln = 1;
	const char *p = text, *end = text + len;
	while (p < end) {
		const char *e = memchr(p, '\n', (size_t)(end - p));
		if (!e)
			e = end;
		const char *q = p;
		while (q < e && *q == ' ')
			q++;
		bool blank = q == e || *q == '#';
		if (!blank && flow == 0) {
			/* block structure: the indentation levels still open, plus
			 * the dashes of nested sequence items on this line */
			int c = (int)(q - p);
			while (nind && indents[nind - 1] >= c)
				nind--;
			if (nind <= YAML_MAX_DEPTH)
				indents[nind++] = c;
			int dashes = 0;
			for (const char *d = q; d + 1 < e && d[0] == '-' && d[1] == ' ';) {
				dashes++;
				d += 2;
				while (d < e && *d == ' ')
					d++;
			}
			if (nind + dashes > YAML_MAX_DEPTH) {
				*line = ln, *col = c + 1, *why = "nested deeper than 64 levels";
				return false;
			}
		}
		/* flow collections: brackets outside quotes and comments */
		char quote = 0;
		for (const char *c = q; c < e; c++) {
			if (quote) {
				if (*c == '\\' && quote == '"')
					c++;
				else if (*c == quote)
					quote = 0;
				continue;
			}
			if (*c == '"' || *c == '\'') {
				quote = *c;
			} else if (*c == '#' && (c == q || c[-1] == ' ')) {
				break;
			} else if (*c == '[' || *c == '{') {
				if (++flow + nind > YAML_MAX_DEPTH) {
					*line = ln, *col = (int)(c - p) + 1, *why = "nested deeper than 64 levels";
					return false;
				}
			} else if ((*c == ']' || *c == '}') && flow > 0) {
				flow--;
			}
		}
		p = e + 1;
		ln++;
	}
	return true;
}

bool yaml_guard_single(yaml_parser_t *parser, int *line, int *col)
{
	yaml_event_t ev;
	if (!yaml_parser_parse(parser, &ev))
		return true; /* an error after the document: libyaml's to report, if anyone's */
	bool another = ev.type == YAML_DOCUMENT_START_EVENT;
	*line = (int)ev.start_mark.line + 1;
	*col = (int)ev.start_mark.column + 1;
	yaml_event_delete(&ev);
	return !another;
}

typedef struct KeyRef {
	const char *s;
	int order;
	yaml_node_t *node;
} KeyRef;

static int cmp_key(const void *a, const void *b)
{
	const KeyRef *x = a, *y = b;
	int c = strcmp(x->s, y->s);
	return c ? c : x->order - y->order;
}

const char *yaml_guard_duplicate_key(yaml_document_t *doc, yaml_node_t **node)
{
	const char *found = NULL;
	size_t found_at = (size_t)-1;
	for (yaml_node_t *n = doc->nodes.start; n < doc->nodes.top; n++) {
		if (n->type != YAML_MAPPING_NODE)
			continue;
		yaml_node_pair_t *p0 = n->data.mapping.pairs.start, *p1 = n->data.mapping.pairs.top;
		size_t k = (size_t)(p1 - p0);
		if (k < 2)
			continue;
		/* sorted by text, then order: equal neighbours are duplicates */
		KeyRef *v = xmalloc(k * sizeof *v);
		size_t m = 0;
		for (size_t i = 0; i < k; i++) {
			yaml_node_t *kn = yaml_document_get_node(doc, p0[i].key);
			if (kn && kn->type == YAML_SCALAR_NODE)
				v[m++] = (KeyRef){ (const char *)kn->data.scalar.value, (int)i, kn };
		}
		qsort(v, m, sizeof *v, cmp_key);
		for (size_t i = 1; i < m; i++)
			if (!strcmp(v[i].s, v[i - 1].s) && v[i].node->start_mark.index < found_at) {
				found = v[i].s;
				found_at = v[i].node->start_mark.index;
				*node = v[i].node;
			}
		free(v);
	}
	return found;
}
