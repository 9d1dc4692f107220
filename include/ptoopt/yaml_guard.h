/* yaml_guard.h - checks of a YAML text (pipeline and registry files) that
 * libyaml does not make: nesting bounded before libyaml spends quadratic
 * time on it, one document only, no key twice in a mapping. */
#ifndef PTOOPT_YAML_GUARD_H
#define PTOOPT_YAML_GUARD_H

#include <stdbool.h>
#include <stddef.h>
#include <yaml.h>

/* Deeper YAML than this is refused (a pipeline file needs four levels). */
#define YAML_MAX_DEPTH 64

/* Before parsing: false with *line / *col (1-based) and a message when the
 * text nests deeper than YAML_MAX_DEPTH (flow brackets, block indentation
 * and sequence dashes together). */
bool yaml_guard_depth(const char *text, size_t len, int *line, int *col, const char **why);
/* After parsing one document: false with the second document's mark when
 * the text holds another (the parser is left after it). */
bool yaml_guard_single(yaml_parser_t *parser, int *line, int *col);
/* The first key that a mapping of doc holds twice (NULL when none), in
 * document order; *node is that second key. */
const char *yaml_guard_duplicate_key(yaml_document_t *doc, yaml_node_t **node);

#endif
