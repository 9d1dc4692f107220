/* pipeline.c - the pass registry (one table) and the pass runner. */
#include "ptoopt/pipeline.h"

#include <stdlib.h>
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

/* Designated fields: a pass without options leaves options / run_opts NULL. */
static const PassInfo passes[] = {
	{ .name = "convert-to-ssa",
	  .summary = "versions re-assigned variables; loop carries and if merges via pl.yield_",
	  .run = ssa_convert_program, .produces_ssa = true, .keeps_ssa = true },
	{ .name = "outline-incore", .summary = "InCore scopes (pl.at(level=CORE_GROUP)) become InCore functions",
	  .run = outline_incore_program, .keeps_ssa = true, .verify_before = verify_no_nested_incore,
	  .verify_after = verify_incore_outlined },
	{ .name = "outline-cluster",
	  .summary = "pl.cluster scopes become Group functions, standalone pl.spmd scopes Spmd functions",
	  .run = outline_cluster_program, .keeps_ssa = true, .verify_after = verify_clusters_outlined },
	{ .name = "outline-hierarchy",
	  .summary = "hierarchy scopes (pl.at(level=HOST ...)) become functions at that level",
	  .run = outline_hierarchy_program, .keeps_ssa = true },
	{ .name = "infer-directions", .summary = "recomputes In / Out / InOut of kernel parameters from their bodies",
	  .keeps_ssa = true, .options = infer_directions_opts, .run_opts = infer_directions_program },
	{ .name = "derive-call-directions",
	  .summary = "call-site arg_directions attrs from callee directions and buffer roots",
	  .run = dcd_run_program, .keeps_ssa = true, .verify_after = verify_call_directions },
};

const PassInfo *pipe_passes(int *n)
{
	*n = (int)(sizeof passes / sizeof passes[0]);
	return passes;
}

const PassInfo *pipe_find(const char *name)
{
	for (size_t i = 0; i < sizeof passes / sizeof passes[0]; i++)
		if (strcmp(passes[i].name, name) == 0)
			return &passes[i];
	return NULL;
}

bool pipe_parse_list(const char *list, const PassInfo ***out, int *n, Diag *d)
{
	size_t len = strlen(list);
	const PassInfo **v = xmalloc((len / 2 + 2) * sizeof *v);
	int k = 0;
	const char *s = list;
	while (*s) {
		const char *e = strchr(s, ',');
		size_t l = e ? (size_t)(e - s) : strlen(s);
		char name[128];
		if (l == 0) {
			s = e ? e + 1 : s + l;
			continue;
		}
		if (l >= sizeof name)
			l = sizeof name - 1;
		memcpy(name, s, l);
		name[l] = 0;
		const PassInfo *pi = pipe_find(name);
		if (!pi) {
			int np;
			const PassInfo *all = pipe_passes(&np);
			char known[512] = "";
			for (int i = 0; i < np; i++) {
				strcat(known, i ? ", " : "");
				strcat(known, all[i].name);
			}
			diag_error(d, 0, 0, "unknown pass '%s' (known passes: %s)", name, known);
			free(v);
			return false;
		}
		v[k++] = pi;
		s = e ? e + 1 : s + l;
	}
	*out = v;
	*n = k;
	return true;
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

bool pipe_parse_option(const char *arg, PipeOptions *o, Diag *d)
{
	const char *dot = strchr(arg, '.'), *eq = strchr(arg, '=');
	if (!dot || !eq || eq < dot) {
		diag_error(d, 0, 0, "--pass-option expects PASS.KEY=VALUE, got '%s'", arg);
		return false;
	}
	char name[128];
	size_t l = (size_t)(dot - arg);
	if (l >= sizeof name)
		l = sizeof name - 1;
	memcpy(name, arg, l);
	name[l] = 0;
	const PassInfo *pi = pipe_find(name);
	if (!pi || !pi->options) {
		char with[256] = "";
		for (size_t i = 0; i < sizeof passes / sizeof passes[0]; i++)
			if (passes[i].options) {
				strcat(with, *with ? ", " : "");
				strcat(with, passes[i].name);
			}
		diag_error(d, 0, 0, "--pass-option: %s '%s' (passes with options: %s)",
			   pi ? "no options for pass" : "unknown pass", name, with);
		return false;
	}
	const char *key = dot + 1, *val = eq + 1;
	size_t kl = (size_t)(eq - key);
	const PassOptSpec *sp = NULL;
	char known[256] = "";
	for (const PassOptSpec *q = pi->options; q->key; q++) {
		if (strlen(q->key) == kl && strncmp(q->key, key, kl) == 0)
			sp = q;
		strcat(known, q == pi->options ? "" : ", ");
		strcat(known, q->key);
	}
	if (!sp) {
		diag_error(d, 0, 0, "--pass-option: pass '%s' has no option '%.*s' (valid: %s)", name, (int)kl, key, known);
		return false;
	}
	if (sp->values ? !one_of(sp->values, val) : !*val) {
		diag_error(d, 0, 0, "--pass-option: invalid value '%s' for %s.%s (valid: %s)", val, name, sp->key,
			   sp->values ? sp->values : "a comma-separated list of names");
		return false;
	}
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

const char *pipe_opt(const PassOpts *o, const char *key)
{
	const char *v = NULL;
	for (int i = 0; o && i < o->n; i++)
		if (strcmp(o->items[i].key, key) == 0)
			v = o->items[i].value;
	return v;
}

static int run_one(Program *p, const PassInfo *pi, const PipeOptions *opts, Diag *d)
{
	if (!pi->run_opts)
		return pi->run(p, d);
	int n = 0;
	PassOpt *mine = xmalloc((size_t)((opts ? opts->n : 0) + 1) * sizeof *mine);
	for (int i = 0; opts && i < opts->n; i++)
		if (opts->pass[i] == pi)
			mine[n++] = opts->opt[i];
	PassOpts po = { mine, n };
	int rc = pi->run_opts(p, &po, d);
	free(mine);
	return rc;
}

int pipe_run(Program *p, const PassInfo **ps, int n, const PipeOptions *opts, Diag *d, bool verify_each)
{
	bool ssa = false;
	for (int i = 0; i < n; i++) {
		if (!ps[i]->run && !ps[i]->run_opts) {
			diag_error(d, 0, 0, "pass '%s' is not implemented in this version of ptoopt", ps[i]->name);
			return 1;
		}
		if (ps[i]->verify_before && !ps[i]->verify_before(p, d))
			return 1;
		if (run_one(p, ps[i], opts, d) != 0)
			return 1;
		if (ps[i]->verify_after && !ps[i]->verify_after(p, d))
			return 1;
		ssa = ps[i]->produces_ssa || (ssa && ps[i]->keeps_ssa);
		if (verify_each && ssa && !verify_ssa(p, d, ps[i]->name))
			return 1;
	}
	return 0;
}
