/* config.c - pipeline configuration files (--config FILE, YAML via libyaml)
 * and printing the resolved pipeline back as such a file (--print-pipeline).
 *
 * Schema (every key optional; man/ptoopt.1 "PIPELINE FILES"):
 *
 *   passes:                 # run in order
 *     - convert-to-ssa      # a pass without options
 *     - name: infer-directions
 *       options: {mode: raise-only, functions: [k1, k2], reset: true}
 *   output: program         # program | diff
 *   verify-each: false
 *   print-after-all: false
 *   print-changed: false
 *   time-passes: false
 *   dump-dir: dumps         # one file per pass
 *   ops: [extra_ops.yaml]   # op registry files, loaded in order
 *
 * Every mistake is reported at its place in the file (FILE:LINE:COL, the
 * line and a caret) naming what would be valid.
 */
#include "ptoopt/config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "ptoopt/arena.h"
#include "ptoopt/file_read.h"
#include "ptoopt/op_registry.h"
#include "ptoopt/yaml_guard.h"

typedef struct Loader {
	yaml_document_t doc;
	Diag *d;
	DriverConfig *c;
} Loader;

static void err_at(Loader *L, const yaml_node_t *n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void err_at(Loader *L, const yaml_node_t *n, const char *fmt, ...)
{
	char msg[600];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	diag_error(L->d, (int)n->start_mark.line + 1, (int)n->start_mark.column + 1, "%s", msg);
}

static const char *node_kind(const yaml_node_t *n)
{
	return n->type == YAML_MAPPING_NODE ? "a mapping" : n->type == YAML_SEQUENCE_NODE ? "a list" : "a scalar";
}

static const char *scalar(const yaml_node_t *n)
{
	return (const char *)n->data.scalar.value;
}

/* YAML's spellings of true / false (plain scalars only); -1 otherwise. */
static int as_bool(const yaml_node_t *n)
{
	if (n->type != YAML_SCALAR_NODE || n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return -1;
	static const char *const t[] = { "true", "True", "TRUE", "yes", "Yes", "YES", "on", "On", "ON" };
	static const char *const f[] = { "false", "False", "FALSE", "no", "No", "NO", "off", "Off", "OFF" };
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
		if (strcmp(scalar(n), t[i]) == 0)
			return 1;
		if (strcmp(scalar(n), f[i]) == 0)
			return 0;
	}
	return -1;
}

static bool get_bool(Loader *L, const char *key, const yaml_node_t *v, bool *out)
{
	int b = as_bool(v);
	if (b < 0) {
		err_at(L, v, "'%s' expects true or false, got %s%s%s%s", key, node_kind(v),
		       v->type == YAML_SCALAR_NODE ? " '" : "", v->type == YAML_SCALAR_NODE ? scalar(v) : "",
		       v->type == YAML_SCALAR_NODE ? "'" : "");
		return false;
	}
	*out = b;
	return true;
}

static bool get_string(Loader *L, const char *key, const yaml_node_t *v, const char **out)
{
	if (v->type != YAML_SCALAR_NODE || !*scalar(v)) {
		err_at(L, v, "'%s' expects a non-empty string, got %s", key, v->type == YAML_SCALAR_NODE ? "an empty one" : node_kind(v));
		return false;
	}
	*out = driver_keep(L->c, scalar(v));
	return true;
}

/* One option of a pass: a scalar, or a list of scalars (joined by ','). */
static bool load_option(Loader *L, PipeStep *st, const yaml_node_t *k, const yaml_node_t *v)
{
	if (k->type != YAML_SCALAR_NODE) {
		err_at(L, k, "an option name must be a scalar");
		return false;
	}
	const char *key = scalar(k);
	StrBuf val = { 0 };
	if (v->type == YAML_SCALAR_NODE) {
		int b = as_bool(v);
		sb_puts(&val, b == 1 ? "true" : b == 0 ? "false" : scalar(v));
	} else if (v->type == YAML_SEQUENCE_NODE) {
		for (yaml_node_item_t *it = v->data.sequence.items.start; it < v->data.sequence.items.top; it++) {
			const yaml_node_t *e = yaml_document_get_node(&L->doc, *it);
			if (e->type != YAML_SCALAR_NODE) {
				err_at(L, e, "option '%s' of %s: list items must be names, got %s", key, st->pass->name, node_kind(e));
				sb_release(&val);
				return false;
			}
			if (it != v->data.sequence.items.start)
				sb_putc(&val, ',');
			sb_puts(&val, scalar(e));
		}
	} else {
		err_at(L, v, "option '%s' of %s expects a value or a list of names, got a mapping", key, st->pass->name);
		return false;
	}
	sb_putc(&val, 0);
	const char *bad = pipe_check_option(st->pass, key, strlen(key), val.data);
	if (bad) {
		/* an unknown key is reported at the key, a bad value at the value */
		bool key_ok = false;
		for (const PassOptSpec *q = st->pass->options; q && q->key; q++)
			key_ok |= strcmp(q->key, key) == 0;
		err_at(L, key_ok ? v : k, "%s", bad);
		sb_release(&val);
		return false;
	}
	pipe_step_set(st, key, val.data);
	sb_release(&val);
	return true;
}

static const PassInfo *find_pass(Loader *L, const yaml_node_t *n)
{
	if (n->type != YAML_SCALAR_NODE) {
		err_at(L, n, "a pass name must be a scalar, got %s", node_kind(n));
		return NULL;
	}
	const PassInfo *pi = pipe_find(scalar(n));
	if (!pi)
		err_at(L, n, "unknown pass '%s'%s (known passes: %s)", scalar(n), pipe_did_you_mean(scalar(n), strlen(scalar(n)), NULL),
		       pipe_pass_names());
	return pi;
}

static bool load_pass(Loader *L, Pipeline *pl, const yaml_node_t *n)
{
	if (n->type == YAML_SCALAR_NODE) {
		const char *preset = pipe_preset(scalar(n), strlen(scalar(n)));
		if (preset) /* a constant list of known passes: cannot fail */
			return pipe_parse_list(preset, pl, &(Diag){ .out = stderr });
		const PassInfo *pi = find_pass(L, n);
		return pi && pipe_add_step(pl, pi);
	}
	if (n->type != YAML_MAPPING_NODE) {
		err_at(L, n, "a pass is a name or a mapping with 'name' and 'options', got a list");
		return false;
	}
	const yaml_node_t *name = NULL, *opts = NULL;
	for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
		const yaml_node_t *k = yaml_document_get_node(&L->doc, p->key);
		const yaml_node_t *v = yaml_document_get_node(&L->doc, p->value);
		if (k->type == YAML_SCALAR_NODE && strcmp(scalar(k), "name") == 0)
			name = v;
		else if (k->type == YAML_SCALAR_NODE && strcmp(scalar(k), "options") == 0)
			opts = v;
		else {
			err_at(L, k, "unknown key %s%s%s in a pass (valid: name, options)", k->type == YAML_SCALAR_NODE ? "'" : "",
			       k->type == YAML_SCALAR_NODE ? scalar(k) : node_kind(k), k->type == YAML_SCALAR_NODE ? "'" : "");
			return false;
		}
	}
	if (!name) {
		err_at(L, n, "a pass mapping needs 'name' (known passes: %s)", pipe_pass_names());
		return false;
	}
	const PassInfo *pi = find_pass(L, name);
	if (!pi)
		return false;
	PipeStep *st = pipe_add_step(pl, pi);
	if (!opts)
		return true;
	if (opts->type != YAML_MAPPING_NODE) {
		err_at(L, opts, "'options' of %s expects a mapping KEY: VALUE, got %s", pi->name, node_kind(opts));
		return false;
	}
	for (yaml_node_pair_t *p = opts->data.mapping.pairs.start; p < opts->data.mapping.pairs.top; p++)
		if (!load_option(L, st, yaml_document_get_node(&L->doc, p->key), yaml_document_get_node(&L->doc, p->value)))
			return false;
	return true;
}

static bool load_passes(Loader *L, const yaml_node_t *v)
{
	if (v->type != YAML_SEQUENCE_NODE) {
		err_at(L, v, "'passes' expects a list of passes, got %s", node_kind(v));
		return false;
	}
	Pipeline pl = { 0 };
	for (yaml_node_item_t *it = v->data.sequence.items.start; it < v->data.sequence.items.top; it++)
		if (!load_pass(L, &pl, yaml_document_get_node(&L->doc, *it))) {
			pipe_release(&pl);
			return false;
		}
	pipe_release(&L->c->pipeline);
	L->c->pipeline = pl;
	return true;
}

static bool load_ops(Loader *L, const yaml_node_t *v)
{
	if (v->type == YAML_SCALAR_NODE)
		return config_load_ops(L->c, scalar(v), L->d);
	if (v->type != YAML_SEQUENCE_NODE) {
		err_at(L, v, "'ops' expects a list of op registry files, got a mapping");
		return false;
	}
	for (yaml_node_item_t *it = v->data.sequence.items.start; it < v->data.sequence.items.top; it++) {
		const yaml_node_t *e = yaml_document_get_node(&L->doc, *it);
		if (e->type != YAML_SCALAR_NODE) {
			err_at(L, e, "'ops' items must be file names, got %s", node_kind(e));
			return false;
		}
		if (!config_load_ops(L->c, scalar(e), L->d))
			return false;
	}
	return true;
}

#define TOP_KEYS \
	"passes, output, verify-each, print-after-all, print-changed, time-passes, dump-dir, ops, allow-unregistered-ops"

static bool load_top(Loader *L, const yaml_node_t *root)
{
	DriverConfig *c = L->c;
	if (root->type != YAML_MAPPING_NODE) {
		err_at(L, root, "a pipeline file is a mapping (keys: " TOP_KEYS "), got %s", node_kind(root));
		return false;
	}
	for (yaml_node_pair_t *p = root->data.mapping.pairs.start; p < root->data.mapping.pairs.top; p++) {
		const yaml_node_t *k = yaml_document_get_node(&L->doc, p->key);
		const yaml_node_t *v = yaml_document_get_node(&L->doc, p->value);
		const char *key = k->type == YAML_SCALAR_NODE ? scalar(k) : "";
		bool ok;
		if (strcmp(key, "passes") == 0)
			ok = load_passes(L, v);
		else if (strcmp(key, "output") == 0) {
			const char *m = NULL;
			ok = get_string(L, key, v, &m);
			if (ok && strcmp(m, "program") == 0)
				c->output_mode = OUT_PROGRAM;
			else if (ok && strcmp(m, "diff") == 0)
				c->output_mode = OUT_DIFF;
			else if (ok) {
				err_at(L, v, "invalid value '%s' for 'output'%s (valid: program, diff)", m,
				       pipe_did_you_mean(m, strlen(m), "program,diff"));
				ok = false;
			}
		} else if (strcmp(key, "verify-each") == 0)
			ok = get_bool(L, key, v, &c->verify_each);
		else if (strcmp(key, "print-after-all") == 0)
			ok = get_bool(L, key, v, &c->print_after_all);
		else if (strcmp(key, "print-changed") == 0)
			ok = get_bool(L, key, v, &c->print_changed);
		else if (strcmp(key, "time-passes") == 0)
			ok = get_bool(L, key, v, &c->time_passes);
		else if (strcmp(key, "dump-dir") == 0)
			ok = get_string(L, key, v, &c->dump_dir);
		else if (strcmp(key, "ops") == 0)
			ok = load_ops(L, v);
		else if (strcmp(key, "allow-unregistered-ops") == 0)
			ok = get_bool(L, key, v, &ops_default()->allow_unregistered);
		else {
			err_at(L, k, "unknown key %s%s%s%s (valid: " TOP_KEYS ")", *key ? "'" : "", *key ? key : node_kind(k),
			       *key ? "'" : "", *key ? pipe_did_you_mean(key, strlen(key), TOP_KEYS) : "");
			ok = false;
		}
		if (!ok)
			return false;
	}
	return true;
}

bool config_load_ops(DriverConfig *c, const char *path, Diag *d)
{
	if (!ops_load_file(ops_default(), path, d))
		return false;
	c->ops_files = xrealloc(c->ops_files, (size_t)(c->nops + 1) * sizeof *c->ops_files);
	c->ops_files[c->nops++] = (char *)driver_keep(c, path);
	return true;
}

/* A pipeline file is a few lines; anything this big is a wrong path. */
#define CONFIG_MAX_BYTES (16 << 20)

bool config_load(DriverConfig *c, const char *path)
{
	size_t len = 0;
	bool too_big;
	char *text = file_read(path, CONFIG_MAX_BYTES, &len, &too_big);
	if (!text) {
		if (too_big)
			fprintf(stderr, "ptoopt: error: '%s' is larger than %d bytes: not a pipeline file\n", path, CONFIG_MAX_BYTES);
		else
			fprintf(stderr, "ptoopt: error: cannot read '%s': %s\n", path, strerror(errno));
		return false;
	}
	Diag d;
	diag_init(&d, driver_keep(c, path), text, len);
	Loader L = { .d = &d, .c = c };
	yaml_parser_t parser;
	yaml_parser_initialize(&parser);
	yaml_parser_set_input_string(&parser, (const unsigned char *)(text), len);
	bool ok;
	int gl, gc;
	const char *why;
	yaml_node_t *dup;
	if (!yaml_guard_depth(text, len, &gl, &gc, &why)) {
		diag_error(&d, gl, gc, "YAML: %s (a pipeline file needs four)", why);
		ok = false;
	} else if (!yaml_parser_load(&parser, &L.doc)) {
		diag_error(&d, (int)parser.problem_mark.line + 1, (int)parser.problem_mark.column + 1, "YAML: %s%s%s",
			   parser.problem ? parser.problem : "syntax error", parser.context ? " " : "",
			   parser.context ? parser.context : "");
		ok = false;
	} else {
		const yaml_node_t *root = yaml_document_get_root_node(&L.doc);
		const char *k = root ? yaml_guard_duplicate_key(&L.doc, &dup) : NULL;
		if (k) {
			diag_error(&d, (int)dup->start_mark.line + 1, (int)dup->start_mark.column + 1, "YAML: key '%s' given twice", k);
			ok = false;
		} else if (root && !yaml_guard_single(&parser, &gl, &gc)) {
			diag_error(&d, gl, gc, "YAML: a second document; a pipeline file is one");
			ok = false;
		} else {
			ok = !root || load_top(&L, root); /* an empty file configures nothing */
		}
		yaml_document_delete(&L.doc);
	}
	yaml_parser_delete(&parser);
	file_free(text);
	return ok;
}

/* ------------------------------------------------------------ printing */

/* A YAML double-quoted scalar. */
static void put_quoted(StrBuf *b, const char *s)
{
	sb_putc(b, '"');
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			sb_printf(b, "\\%c", *p);
		else if (*p < 0x20 || *p == 0x7f)
			sb_printf(b, "\\x%02x", *p);
		else
			sb_putc(b, (char)*p);
	}
	sb_putc(b, '"');
}

void config_print(StrBuf *b, const DriverConfig *c)
{
	sb_puts(b, "# ptoopt pipeline (ptoopt --config FILE reads it back)\n");
	const Pipeline *pl = &c->pipeline;
	sb_puts(b, pl->n ? "passes:\n" : "passes: []\n");
	for (int i = 0; i < pl->n; i++) {
		const PipeStep *s = &pl->steps[i];
		if (!s->nopts) {
			sb_printf(b, "  - %s\n", s->pass->name);
			continue;
		}
		sb_printf(b, "  - name: %s\n    options:\n", s->pass->name);
		/* the value in effect per key (the last), in first-given order */
		for (int k = 0; k < s->nopts; k++) {
			bool seen = false;
			for (int j = 0; j < k; j++)
				seen |= strcmp(s->opts[j].key, s->opts[k].key) == 0;
			if (seen)
				continue;
			const char *v = s->opts[k].value;
			for (int j = k + 1; j < s->nopts; j++)
				if (strcmp(s->opts[j].key, s->opts[k].key) == 0)
					v = s->opts[j].value;
			sb_printf(b, "      %s: ", s->opts[k].key);
			put_quoted(b, v);
			sb_putc(b, '\n');
		}
	}
	sb_printf(b, "output: %s\n", c->output_mode == OUT_DIFF ? "diff" : "program");
	sb_printf(b, "verify-each: %s\n", c->verify_each ? "true" : "false");
	sb_printf(b, "print-after-all: %s\n", c->print_after_all ? "true" : "false");
	sb_printf(b, "print-changed: %s\n", c->print_changed ? "true" : "false");
	sb_printf(b, "time-passes: %s\n", c->time_passes ? "true" : "false");
	sb_printf(b, "allow-unregistered-ops: %s\n", ops_default()->allow_unregistered ? "true" : "false");
	if (c->dump_dir) {
		sb_puts(b, "dump-dir: ");
		put_quoted(b, c->dump_dir);
		sb_putc(b, '\n');
	}
	if (c->nops) {
		sb_puts(b, "ops:\n");
		for (int i = 0; i < c->nops; i++) {
			sb_puts(b, "  - ");
			put_quoted(b, c->ops_files[i]);
			sb_putc(b, '\n');
		}
	}
}
