/* pipeline.c - the pass registry (one table) and the pass runner. */
#include "ptoopt/pipeline.h"

#include <stdlib.h>
#include <string.h>

#include "ptoopt/arena.h"
#include "ptoopt/passes.h"
#include "ptoopt/verify.h"

static const PassInfo passes[] = {
	{ "convert-to-ssa", "versions re-assigned variables; loop carries and if merges via pl.yield_",
	  ssa_convert_program, true, true },
	{ "outline-incore", "InCore scopes (pl.at(level=CORE_GROUP)) become InCore functions",
	  outline_incore_program, false, true },
	{ "outline-cluster", "pl.cluster scopes become Group functions, standalone pl.spmd scopes Spmd functions",
	  outline_cluster_program, false, true },
	{ "outline-hierarchy", "hierarchy scopes (pl.at(level=HOST ...)) become functions at that level",
	  outline_hierarchy_program, false, true },
	{ "infer-directions", "recomputes In / Out / InOut of kernel parameters from their bodies", NULL, false, true },
	{ "derive-call-directions", "call-site arg_directions attrs from callee directions and buffer roots",
	  dcd_run_program, false, true },
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

int pipe_run(Program *p, const PassInfo **ps, int n, Diag *d, bool verify_each)
{
	bool ssa = false;
	for (int i = 0; i < n; i++) {
		if (!ps[i]->run) {
			diag_error(d, 0, 0, "pass '%s' is not implemented in this version of ptoopt", ps[i]->name);
			return 1;
		}
		if (ps[i]->run(p, d) != 0)
			return 1;
		ssa = ps[i]->produces_ssa || (ssa && ps[i]->keeps_ssa);
		if (verify_each && ssa && !verify_ssa(p, d, ps[i]->name))
			return 1;
	}
	return 0;
}
