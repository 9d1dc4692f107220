/* pipeline.c - the pass registry (one table), pass contracts, pipelines
 * with per-step options (--passes with {k=v}, --pass-option) and the
 * runner. */
#include "ptoopt/pipeline.h"
#include "ptoopt/suggest.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <string.h>

#include "ptoopt/arena.h"
#include "ptoopt/passes.h"
#include "ptoopt/verify.h"

static const PassOptSpec infer_directions_opts[] = {
	{ "mode", "exact|raise-only" },
	{ "functions", NULL },
	{ "reset", "true|false" },
	{ NULL, NULL },
};


static bool verify_flattened(Program *p, Diag *d);
static bool verify_outline_incore(Program *p, Diag *d);
static bool verify_outline_hierarchy(Program *p, Diag *d);

/* Designated fields: a pass without options leaves options / run_opts NULL.
 * The contracts follow the reference's pass properties (pass_properties.h);
 * infer-directions, which the reference does not have, rewrites parameter
 * directions only and needs nothing. */
static const PassInfo passes[] = {
	{ .structural_after = true, .function_local = true, .name = "convert-to-ssa", .ref_name = "ConvertToSSA",
	  .summary = "versions re-assigned variables; loop carries and if merges via pl.yield_",
	  .run = ssa_convert_program, .produces = PROP_SSA, .invalidates = PROP_NORMALIZED },
	{ .function_local = true, .name = "outline-incore", .ref_name = "OutlineIncoreScopes", .summary = "InCore scopes (pl.at(level=CORE_GROUP)) become InCore functions",
	  .run = outline_incore_program, .requires = PROP_SSA, .produces = PROP_SSA | PROP_INCORE_OUTLINED,
	  .verify_before = verify_no_nested_incore,
	  .verify_after = verify_outline_incore },
	{ .function_local = true, .name = "outline-cluster", .ref_name = "OutlineClusterScopes",
	  .summary = "pl.cluster scopes become Group functions, standalone pl.spmd scopes Spmd functions",
	  .run = outline_cluster_program, .requires = PROP_SSA, .produces = PROP_SSA | PROP_CLUSTERS_OUTLINED,
	  .verify_after = verify_clusters_outlined },
	{ .function_local = true, .name = "outline-hierarchy", .ref_name = "OutlineHierarchyScopes",
	  .summary = "hierarchy scopes (pl.at(level=HOST ...)) become functions at that level",
	  .run = outline_hierarchy_program, .requires = PROP_SSA, .produces = PROP_SSA | PROP_HIERARCHY_OUTLINED,
	  .verify_after = verify_outline_hierarchy },
	{ .name = "infer-directions", .ref_name = "InferDirections", .summary = "recomputes In / Out / InOut of kernel parameters from their bodies",
	  .options = infer_directions_opts, .run_opts = infer_directions_program },
	{ .name = "derive-call-directions", .ref_name = "DeriveCallDirections",
	  .summary = "call-site arg_directions attrs from callee directions and buffer roots",
	  .run = dcd_run_program, .requires = PROP_INCORE_OUTLINED, .produces = PROP_CALL_DIRECTIONS,
	  .verify_after = verify_call_directions },
	/* The reference's front end (its Default strategy runs them before the
	 * outliners); run is NULL until each lands. */
	{ .structural_after = true, .function_local = true, .local_unless = "Inline", .name = "inline-functions", .ref_name = "InlineFunctions",
	  .summary = "splices FunctionType.Inline functions into their callers and drops them",
	  .run = inline_functions_program, .produces = PROP_INLINED, .verify_after = verify_inline_eliminated },
	{ .structural_after = true, .function_local = true, .name = "unroll-loops", .ref_name = "UnrollLoops", .summary = "expands pl.unroll loops",
	  .run = unroll_loops_program, .produces = PROP_UNROLLED },
	{ .structural_after = true, .function_local = true, .name = "ctrl-flow-transform", .ref_name = "CtrlFlowTransform",
	  .summary = "break / continue into structured control flow (if / else, while loops with a break flag)",
	  .run = cft_run_program, .produces = PROP_STRUCTURED_CF, .verify_after = cft_verify_structured },
	{ .structural_after = true, .function_local = true, .name = "simplify", .ref_name = "Simplify",
	  .summary = "constant propagation, arithmetic simplification, dead-code elimination",
	  .run = simplify_program },
	{ .structural_after = true, .function_local = true, .name = "normalize-stmt-structure", .ref_name = "NormalizeStmtStructure",
	  .summary = "normalizes statement sequences and bodies", .run = normalize_stmt_structure_program,
	  .produces = PROP_NORMALIZED, .verify_after = verify_normalized },
	{ .structural_after = true, .function_local = true, .name = "flatten-call-expr", .ref_name = "FlattenCallExpr", .summary = "nested calls into temporaries",
	  .run = flatten_call_expr_program, .requires = PROP_SSA | PROP_NORMALIZED,
	  .produces = PROP_SSA | PROP_NO_NESTED_CALLS | PROP_NORMALIZED, .verify_after = verify_flattened },
};

#define NPASSES ((int)(sizeof passes / sizeof passes[0]))

static bool check_ssa(Program *p, Diag *d) { return verify_ssa_ref(p, d, NULL); }

/* After flatten-call-expr, as the reference's post-verification: SSA form
 * (a hoisted while condition that reads the loop's own variables is used
 * before its definition) and no nested calls (a call the pass does not
 * look at, in a loop's init values, is still nested). */
static bool verify_flattened(Program *p, Diag *d)
{
	return verify_ssa_ref(p, d, "flatten-call-expr") && verify_no_nested_calls(p, d);
}

/* After outline-incore: SplitIncoreOrch and AivSplitValid; after
 * outline-hierarchy: OrchestrationReferencesResolved (the properties the
 * reference's passes produce, verified after them). */
static bool verify_outline_incore(Program *p, Diag *d)
{
	return verify_incore_outlined(p, d) && verify_aiv_split(p, d, "OutlineIncoreScopes");
}

static bool verify_outline_hierarchy(Program *p, Diag *d)
{
	return verify_orch_references(p, d, "OutlineHierarchyScopes");
}

/* What each property is called, the pass that establishes it, and the
 * verifier that decides it on a program (NULL: not decidable here, never
 * assumed of an input). */
static const struct {
	unsigned bit;
	const char *name, *words, *producer;
	bool (*check)(Program *p, Diag *d);
} props[PROP_COUNT] = {
	{ PROP_SSA, "SSAForm", "SSA form", "convert-to-ssa", check_ssa },
	{ PROP_INCORE_OUTLINED, "SplitIncoreOrch", "outlined InCore scopes", "outline-incore", verify_incore_outlined },
	{ PROP_CLUSTERS_OUTLINED, "ClusterOutlined", "outlined cluster scopes", "outline-cluster",
	  verify_clusters_outlined },
	{ PROP_HIERARCHY_OUTLINED, "HierarchyOutlined", "outlined hierarchy scopes", "outline-hierarchy", NULL },
	{ PROP_CALL_DIRECTIONS, "CallDirectionsResolved", "resolved call directions", "derive-call-directions",
	  verify_call_directions },
	{ PROP_INLINED, "InlineFunctionsEliminated", "no Inline functions", "inline-functions", NULL },
	{ PROP_UNROLLED, "UnrollResolved", "no pl.unroll loops", "unroll-loops", NULL },
	{ PROP_STRUCTURED_CF, "StructuredCtrlFlow", "structured control flow", "ctrl-flow-transform", NULL },
	{ PROP_NORMALIZED, "NormalizedStmtStructure", "normalized statement structure", "normalize-stmt-structure",
	  verify_normalized },
	{ PROP_NO_NESTED_CALLS, "NoNestedCalls", "no nested calls", "flatten-call-expr", verify_no_nested_calls },
};

/* The reference's Default strategy (python/pypto/ir/pass_manager.py) up to
 * OutlineClusterScopes. */
static const PipePreset presets[] = {
	{ "pypto-default",
	  "inline-functions,unroll-loops,ctrl-flow-transform,convert-to-ssa,simplify,normalize-stmt-structure,"
	  "flatten-call-expr,outline-hierarchy,outline-incore,outline-cluster",
	  "the reference's Default strategy up to outline_cluster_scopes" },
};
#define NPRESETS ((int)(sizeof presets / sizeof presets[0]))

const PipePreset *pipe_presets(int *n)
{
	*n = NPRESETS;
	return presets;
}

const char *pipe_preset(const char *name, size_t len)
{
	for (int i = 0; i < NPRESETS; i++)
		if (strlen(presets[i].name) == len && strncmp(presets[i].name, name, len) == 0)
			return presets[i].passes;
	return NULL;
}

static int prop_index(unsigned bit)
{
	for (int i = 0; i < PROP_COUNT; i++)
		if (props[i].bit == bit)
			return i;
	return 0;
}

const char *pipe_property_name(unsigned bit) { return props[prop_index(bit)].name; }
const char *pipe_property_words(unsigned bit) { return props[prop_index(bit)].words; }

const char *pipe_pass_names(void)
{
	static char known[512];
	if (!*known)
		for (int i = 0; i < NPASSES; i++) {
			strcat(known, i ? ", " : "");
			strcat(known, passes[i].name);
		}
	return known;
}

const PassInfo *pipe_passes(int *n)
{
	*n = NPASSES;
	return passes;
}

const PassInfo *pipe_find(const char *name)
{
	for (int i = 0; i < NPASSES; i++)
		if (strcmp(passes[i].name, name) == 0)
			return &passes[i];
	return NULL;
}

static const PassInfo *find_n(const char *name, size_t l)
{
	for (int i = 0; i < NPASSES; i++)
		if (strlen(passes[i].name) == l && strncmp(passes[i].name, name, l) == 0)
			return &passes[i];
	return NULL;
}

/* "a|b|c" -> is v one of them? */
static bool one_of(const char *choices, const char *v)
{
	size_t l = strlen(v);
	for (const char *s = choices; s;) {
		const char *e = strchr(s, '|');
		size_t n = e ? (size_t)(e - s) : strlen(s);
		if (n == l && strncmp(s, v, l) == 0)
			return true;
		s = e ? e + 1 : NULL;
	}
	return false;
}

/* "; did you mean 'X'?" for a misspelt word among the comma-separated
 * names of list (or the pass names when list is NULL), else "". */
const char *pipe_did_you_mean(const char *word, size_t wl, const char *list)
{
	static char out[160];
	char w[101], names[1024];
	snprintf(w, sizeof w, "%.*s", (int)(wl > 100 ? 100 : wl), word);
	if (!list) {
		names[0] = 0;
		for (int i = 0; i < NPASSES; i++)
			snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", i ? "," : "", passes[i].name);
		for (int i = 0; i < NPRESETS; i++)
			snprintf(names + strlen(names), sizeof names - strlen(names), ",%s", presets[i].name);
	} else {
		snprintf(names, sizeof names, "%s", list);
	}
	Suggest sg;
	suggest_init(&sg, w);
	const char *best = NULL;
	size_t bl = 0;
	for (char *p = names; *p;) {
		while (*p == ',' || *p == ' ' || *p == '|')
			p++;
		char *e = p + strcspn(p, ", |");
		char save = *e;
		*e = 0;
		const char *before = sg.best;
		suggest_offer(&sg, p);
		if (sg.best != before) {
			best = p;
			bl = (size_t)(e - p);
			snprintf(out, sizeof out, "; did you mean '%.*s'?", (int)bl, best);
		}
		*e = save;
		p = e;
	}
	if (!best)
		out[0] = 0;
	return out;
}

const char *pipe_check_option(const PassInfo *pi, const char *key, size_t kl, const char *val)
{
	static char msg[512];
	if (!pi->options) {
		char with[256] = "";
		for (int i = 0; i < NPASSES; i++)
			if (passes[i].options) {
				strcat(with, *with ? ", " : "");
				strcat(with, passes[i].name);
			}
		snprintf(msg, sizeof msg, "pass '%s' has no options (passes with options: %s)", pi->name, with);
		return msg;
	}
	const PassOptSpec *sp = NULL;
	char known[256] = "";
	for (const PassOptSpec *q = pi->options; q->key; q++) {
		if (strlen(q->key) == kl && strncmp(q->key, key, kl) == 0)
			sp = q;
		strcat(known, q == pi->options ? "" : ", ");
		strcat(known, q->key);
	}
	if (!sp) {
		snprintf(msg, sizeof msg, "pass '%s' has no option '%.*s'%s (valid: %s)", pi->name, (int)(kl > 100 ? 100 : kl),
			 key, pipe_did_you_mean(key, kl, known), known);
		return msg;
	}
	if (sp->values ? !one_of(sp->values, val) : !*val) {
		snprintf(msg, sizeof msg, "invalid value '%.100s' for %s.%s%s (valid: %s)", val, pi->name, sp->key,
			 sp->values ? pipe_did_you_mean(val, strlen(val), sp->values) : "",
			 sp->values ? sp->values : "a comma-separated list of names");
		return msg;
	}
	return NULL;
}

PipeStep *pipe_add_step(Pipeline *pl, const PassInfo *pi)
{
	if (pl->n == pl->cap) {
		pl->cap = pl->cap ? 2 * pl->cap : 8;
		pl->steps = xrealloc(pl->steps, (size_t)pl->cap * sizeof *pl->steps);
	}
	PipeStep *s = &pl->steps[pl->n++];
	*s = (PipeStep){ .pass = pi };
	return s;
}

static char *dup_n(const char *s, size_t n)
{
	char *r = xmalloc(n + 1);
	memcpy(r, s, n);
	r[n] = 0;
	return r;
}

void pipe_step_set(PipeStep *s, const char *key, const char *value)
{
	if (s->nopts == s->capopts) {
		s->capopts = s->capopts ? 2 * s->capopts : 4;
		s->opts = xrealloc(s->opts, (size_t)s->capopts * sizeof *s->opts);
	}
	s->opts[s->nopts++] = (PassOpt){ dup_n(key, strlen(key)), dup_n(value, strlen(value)) };
}

void pipe_release(Pipeline *pl)
{
	for (int i = 0; i < pl->n; i++) {
		for (int k = 0; k < pl->steps[i].nopts; k++) {
			free((char *)pl->steps[i].opts[k].key);
			free((char *)pl->steps[i].opts[k].value);
		}
		free(pl->steps[i].opts);
	}
	free(pl->steps);
	*pl = (Pipeline){ 0 };
}

/* Parse "k=v,k2=v2" (the text between braces) into step s. */
static bool parse_inline_opts(PipeStep *s, const char *t, size_t n, Diag *d)
{
	char *buf = dup_n(t, n);
	char *key = NULL;
	StrBuf val = { 0 };
	bool ok = true;
	char *p = buf;
	for (;;) {
		char *e = strchr(p, ',');
		if (e)
			*e = 0;
		char *eq = strchr(p, '=');
		if (eq) {
			if (key) {
				sb_putc(&val, 0);
				pipe_step_set(s, key, val.data);
			}
			*eq = 0;
			key = p;
			val.len = 0;
			sb_puts(&val, eq + 1);
		} else if (key) {
			sb_putc(&val, ',');
			sb_puts(&val, p);
		} else if (*p || e) {
			diag_error(d, 0, 0, "pass '%s': option '%s' needs KEY=VALUE", s->pass->name, p);
			ok = false;
			break;
		}
		if (!e)
			break;
		p = e + 1;
	}
	if (ok && key) {
		sb_putc(&val, 0);
		pipe_step_set(s, key, val.data);
	}
	for (int i = 0; ok && i < s->nopts; i++) {
		const char *err = pipe_check_option(s->pass, s->opts[i].key, strlen(s->opts[i].key), s->opts[i].value);
		if (err) {
			diag_error(d, 0, 0, "--passes: %s", err);
			ok = false;
		}
	}
	sb_release(&val);
	free(buf);
	return ok;
}

bool pipe_parse_list(const char *list, Pipeline *pl, Diag *d)
{
	const char *s = list;
	while (*s) {
		size_t l = strcspn(s, ",{");
		if (l == 0 && *s == ',') {
			s++;
			continue;
		}
		const PassInfo *pi = find_n(s, l);
		const char *preset = pi ? NULL : pipe_preset(s, l);
		if (preset) {
			if (s[l] == '{') {
				diag_error(d, 0, 0, "--passes: the pipeline '%.*s' takes no options; give them to its passes "
					   "with --pass-option", (int)l, s);
				return false;
			}
			if (!pipe_parse_list(preset, pl, d))
				return false;
			s += l;
			continue;
		}
		if (!pi) {
			diag_error(d, 0, 0, "unknown pass '%.*s'%s (known passes: %s)", (int)(l > 100 ? 100 : l), s,
				   pipe_did_you_mean(s, l, NULL), pipe_pass_names());
			return false;
		}
		PipeStep *st = pipe_add_step(pl, pi);
		s += l;
		if (*s == '{') {
			const char *close = strchr(s, '}');
			if (!close) {
				diag_error(d, 0, 0, "--passes: missing '}' after the options of '%s'", pi->name);
				return false;
			}
			if (!parse_inline_opts(st, s + 1, (size_t)(close - s - 1), d))
				return false;
			s = close + 1;
			if (*s && *s != ',') {
				diag_error(d, 0, 0, "--passes: expected ',' after '}', got '%c'", *s);
				return false;
			}
		}
	}
	return true;
}

void pipe_format_inline(StrBuf *b, const Pipeline *pl)
{
	for (int i = 0; i < pl->n; i++) {
		const PipeStep *s = &pl->steps[i];
		sb_puts(b, i ? "," : "");
		sb_puts(b, s->pass->name);
		for (int k = 0; k < s->nopts; k++) {
			sb_puts(b, k ? "," : "{");
			sb_printf(b, "%s=%s", s->opts[k].key, s->opts[k].value);
		}
		if (s->nopts)
			sb_putc(b, '}');
	}
}

bool pipe_parse_option(const char *arg, PipeOptions *o, Diag *d)
{
	const char *dot = strchr(arg, '.'), *eq = strchr(arg, '=');
	if (!dot || !eq || eq < dot) {
		diag_error(d, 0, 0, "--pass-option expects PASS.KEY=VALUE, got '%s'", arg);
		return false;
	}
	const PassInfo *pi = find_n(arg, (size_t)(dot - arg));
	if (!pi) {
		diag_error(d, 0, 0, "--pass-option: unknown pass '%.*s'%s (known passes: %s)", (int)(dot - arg), arg,
			   pipe_did_you_mean(arg, (size_t)(dot - arg), NULL), pipe_pass_names());
		return false;
	}
	const char *key = dot + 1, *val = eq + 1;
	size_t kl = (size_t)(eq - key);
	const char *err = pipe_check_option(pi, key, kl, val);
	if (err) {
		diag_error(d, 0, 0, "--pass-option: %s", err);
		return false;
	}
	const PassOptSpec *sp = pi->options;
	while (strlen(sp->key) != kl || strncmp(sp->key, key, kl) != 0)
		sp++;
	if (o->n == o->cap) {
		o->cap = o->cap ? 2 * o->cap : 8;
		o->pass = xrealloc(o->pass, (size_t)o->cap * sizeof *o->pass);
		o->opt = xrealloc(o->opt, (size_t)o->cap * sizeof *o->opt);
	}
	o->pass[o->n] = pi;
	o->opt[o->n++] = (PassOpt){ sp->key, val };
	return true;
}

void pipe_options_release(PipeOptions *o)
{
	free(o->pass);
	free(o->opt);
	*o = (PipeOptions){ 0 };
}

void pipe_apply_options(Pipeline *pl, const PipeOptions *o)
{
	for (int i = 0; i < pl->n; i++)
		for (int k = 0; k < o->n; k++)
			if (o->pass[k] == pl->steps[i].pass)
				pipe_step_set(&pl->steps[i], o->opt[k].key, o->opt[k].value);
}

const char *pipe_opt(const PassOpts *o, const char *key)
{
	const char *v = NULL;
	for (int i = 0; o && i < o->n; i++)
		if (strcmp(o->items[i].key, key) == 0)
			v = o->items[i].value;
	return v;
}

/* ------------------------------------------------------------ contracts */

/* Does the input program have property i?  Decided on the IR once, quietly;
 * *why receives the verifier's message (malloc'd) when it does not. */
static bool input_has(Program *p, int i, signed char *memo, char **why, Diag *d)
{
	if (memo[i] < 0) {
		memo[i] = 0;
		if (props[i].check) {
			Diag q = *d;
			size_t n = 0;
			q.out = open_memstream(why, &n);
			if (!q.out) {
				*why = NULL;
				return false;
			}
			memo[i] = props[i].check(p, &q) ? 1 : 0;
			fclose(q.out);
		}
	}
	return memo[i] == 1;
}

/* The first step (from 0) whose requirement fails; -1 when none.  *bit is
 * the missing property. */
static int first_violation(Program *p, const PassInfo **ps, int n, signed char *memo, char **why, unsigned *bit, Diag *d)
{
	unsigned known = 0, held = 0; /* known: decided by an earlier pass */
	for (int k = 0; k < n; k++) {
		for (int i = 0; i < PROP_COUNT; i++) {
			unsigned b = props[i].bit;
			if (!(ps[k]->requires & b))
				continue;
			/* a property an earlier pass invalidated is decided on the
			 * IR when the pass that needs it runs (pipe_run), as the
			 * reference's pass context verifies required properties
			 * on the IR rather than tracking them; without a verifier
			 * it is missing */
			bool ok = (known & b) ? (held & b) != 0 || props[i].check : input_has(p, i, memo, &why[i], d);
			if (!ok) {
				*bit = b;
				return k;
			}
		}
		known |= ps[k]->produces | ps[k]->invalidates;
		held = (held & ~ps[k]->invalidates) | ps[k]->produces;
	}
	return -1;
}

bool pipe_check_contracts(Program *p, const Pipeline *pl, Diag *d)
{
	signed char memo[PROP_COUNT];
	char *why[PROP_COUNT] = { 0 };
	memset(memo, -1, sizeof memo);
	unsigned bit = 0;
	const PassInfo **ps = xmalloc((size_t)(pl->n + 1) * sizeof *ps);
	for (int i = 0; i < pl->n; i++)
		ps[i] = pl->steps[i].pass;
	int bad = first_violation(p, ps, pl->n, memo, why, &bit, d);
	if (bad < 0) {
		for (int k = 0; k < PROP_COUNT; k++)
			free(why[k]);
		free(ps);
		return true;
	}
	int i = prop_index(bit);
	const PassInfo *fail = ps[bad];
	/* The fix: insert the producer of each missing property before the pass
	 * that needs it, until nothing is missing (bounded: every insertion adds
	 * a producer, and there are few properties). */
	Pipeline fixed = { 0 };
	for (int k = 0; k < pl->n; k++) {
		PipeStep *s = pipe_add_step(&fixed, pl->steps[k].pass);
		for (int o = 0; o < pl->steps[k].nopts; o++)
			pipe_step_set(s, pl->steps[k].opts[o].key, pl->steps[k].opts[o].value);
	}
	bool fixable = true;
	for (int round = 0; round < 4 * PROP_COUNT; round++) {
		const PassInfo **fps = xmalloc((size_t)(fixed.n + 1) * sizeof *fps);
		for (int k = 0; k < fixed.n; k++)
			fps[k] = fixed.steps[k].pass;
		unsigned b = 0;
		int at = first_violation(p, fps, fixed.n, memo, why, &b, d);
		free(fps);
		if (at < 0)
			break;
		const PassInfo *prod = pipe_find(props[prop_index(b)].producer);
		if (!prod || (at > 0 && fixed.steps[at - 1].pass == prod) || round == 4 * PROP_COUNT - 1) {
			fixable = false;
			break;
		}
		pipe_add_step(&fixed, prod);
		memmove(&fixed.steps[at + 1], &fixed.steps[at], (size_t)(fixed.n - 1 - at) * sizeof *fixed.steps);
		fixed.steps[at] = (PipeStep){ .pass = prod };
	}
	if (fixable) {
		StrBuf sb = { 0 };
		pipe_format_inline(&sb, &fixed);
		sb_putc(&sb, 0);
		diag_error(d, 0, 0, "%s requires %s; run %s first (--passes=%s)", fail->name, props[i].words,
			   props[i].producer, sb.data);
		sb_release(&sb);
	} else {
		diag_error(d, 0, 0, "%s requires %s; run %s first", fail->name, props[i].words, props[i].producer);
	}
	/* where the input falls short, when that was decided on the input: the
	 * verifier's message (with its source line and caret) as a note */
	const char *m = why[i] ? strstr(why[i], "error: ") : NULL;
	if (m) {
		size_t len = strlen(m + 7);
		fprintf(d->out, "%.*snote: the input lacks %s: %.*s", (int)(m - why[i]), why[i], props[i].words,
			(int)(len > 2000 ? 2000 : len), m + 7);
	}
	for (int k = 0; k < PROP_COUNT; k++)
		free(why[k]);
	pipe_release(&fixed);
	free(ps);
	return false;
}

/* ------------------------------------------------------------ running */

/* verify_structural on the functions the last check did not accept as they
 * are now (a function it accepted would be again: the checks look at one
 * function at a time, the front-end passes change no parameter direction,
 * and InOutUseValid only ever stops applying); all accepted after it. */
static bool verify_structural_again(Program *p, Diag *d, const char *when, const char *pass, bool dirs_ours)
{
	int k = 0;
	while (k < p->nfuncs && p->funcs[k]->verified)
		k++;
	if (k == p->nfuncs)
		return true;
	if (!verify_structural(p, d, when, pass, dirs_ours))
		return false;
	for (k = 0; k < p->nfuncs; k++)
		p->funcs[k]->verified = true;
	return true;
}

static int run_one(Program *p, const PipeStep *s, Diag *d)
{
	if (!s->pass->run_opts)
		return s->pass->run(p, d);
	PassOpts po = { s->opts, s->nopts };
	return s->pass->run_opts(p, &po, d);
}

static double now_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int pipe_run(Program *p, const Pipeline *pl, const PipeHooks *hooks, Diag *d)
{
	static const PipeHooks none = { 0 };
	if (!hooks)
		hooks = &none;
	unsigned held = 0; /* established by a pass of this run */
	unsigned lost = 0; /* invalidated by a pass of this run, not established again since */
	bool strict_ssa = false; /* SSA form made by convert-to-ssa in this run */
	/* parameter directions set by a pass of this run (the outliners',
	 * infer-directions'): ptoopt's, which InOutUseValid does not judge */
	bool dirs_ours = false;
	for (int i = 0; i < p->nfuncs; i++)
		p->funcs[i]->verified = false;
	for (int i = 0; i < pl->n; i++) {
		const PassInfo *pi = pl->steps[i].pass;
		if (!pi->run && !pi->run_opts) {
			diag_error(d, 0, 0, "pass '%s' is not implemented in this version of ptoopt", pi->name);
			return 1;
		}
		/* after the first pass the previous pass's post-check saw this program */
		if (i == 0 && !verify_structural_again(p, d, "before", pi->ref_name, dirs_ours))
			return 1;
		if (pi->verify_before && !pi->verify_before(p, d))
			return 1;
		/* required properties an earlier pass of this run invalidated:
		 * verified on the IR now (pipe_check_contracts deferred them) */
		for (int k = 0; k < PROP_COUNT; k++) {
			if (!(pi->requires & lost & props[k].bit) || !props[k].check)
				continue;
			if (!props[k].check(p, d)) {
				diag_note(d, 0, 0, "pre-verification failed before pass '%s': it requires %s (%s)", pi->name,
					  props[k].name, props[k].words);
				return 1;
			}
		}
		if (hooks->before_pass && hooks->before_pass(hooks->ctx, i, &pl->steps[i], p) != 0)
			return 1;
		double t0 = now_seconds();
		p->unchanged = p->touch_marks = false;
		for (int k = 0; k < p->nfuncs; k++)
			p->funcs[k]->touched = false;
		if (run_one(p, &pl->steps[i], d) != 0)
			return 1;
		/* what the pass may have changed is no longer verified */
		for (int k = 0; k < p->nfuncs && !p->unchanged; k++)
			if (!p->touch_marks || p->funcs[k]->touched)
				p->funcs[k]->verified = false;
		double dt = now_seconds() - t0;
		if (pi->verify_after && !pi->verify_after(p, d))
			return 1;
		dirs_ours = dirs_ours || !strncmp(pi->name, "outline-", 8) || !strcmp(pi->name, "infer-directions");
		/* after convert-to-ssa and the front-end passes, which rebuild
		 * statements (the reference checks after every pass; the
		 * outliners and the direction passes keep these properties and
		 * have their own checks after them: skipping the walk there saves
		 * a third of a three-pass run); only on the functions changed since
		 * the last check */
		if (pi->structural_after && !verify_structural_again(p, d, "after", pi->ref_name, dirs_ours))
			return 1;
		held = (held & ~pi->invalidates) | pi->produces;
		lost = (lost | pi->invalidates) & ~pi->produces;
		strict_ssa = (pi->produces & PROP_SSA) && !(pi->requires & PROP_SSA) ? true : strict_ssa && (held & PROP_SSA);
		if (hooks->verify_each) {
			for (int k = 0; k < PROP_COUNT; k++) {
				if (!(held & props[k].bit) || !props[k].check)
					continue;
				/* after convert-to-ssa proper SSA (parameters included);
				 * else the reference's notion, which the input had */
				bool ok = props[k].bit != PROP_SSA ? props[k].check(p, d)
					  : strict_ssa ? verify_ssa(p, d, pi->name) : verify_ssa_ref(p, d, pi->name);
				if (!ok) {
					if (props[k].bit != PROP_SSA)
						diag_note(d, 0, 0, "%s (%s) no longer holds after pass '%s'", props[k].name,
							  props[k].words, pi->name);
					return 1;
				}
			}
		}
		if (hooks->after_pass && hooks->after_pass(hooks->ctx, i, &pl->steps[i], p, dt) != 0)
			return 1;
	}
	return 0;
}
