/* outline_hierarchy.c - OutlineHierarchyScopes (passes.md §6).
 *
 * `with pl.at(level=L[, role=R])` scopes at any level other than CORE_GROUP
 * become Opaque functions carrying the scope's level and role, through the
 * shared outliner (outline.c).  Only Opaque functions are visited and they
 * keep their type.  Names are FUNC_<level>[_orch|_sub_worker]_N; the counter
 * is per parent and shared by all levels.  Store targets are not exported
 * (the caller sees the buffer through the parameter). */
#include <ctype.h>
#include <string.h>

#include "ptoopt/outline.h"
#include "ptoopt/passes.h"

/* "_cluster0_orch_": the level in lower case without underscores before a
 * digit (CLUSTER_0 -> cluster0, CHIP_DIE stays chip_die), then the role. */
static const char *hier_suffix(Arena *a, const Scope *sc)
{
	const char *lv = sc->level == LV_NONE ? "UNDEFINED" : ir_level_name(sc->level);
	char buf[64];
	size_t k = 0;
	buf[k++] = '_';
	for (size_t i = 0; lv[i] && k + 16 < sizeof buf; i++) {
		if (lv[i] == '_' && isdigit((unsigned char)lv[i + 1]))
			continue;
		buf[k++] = (char)tolower((unsigned char)lv[i]);
	}
	buf[k] = 0;
	const char *role = sc->role == RL_NONE ? "" : sc->role == RL_ORCHESTRATOR ? "_orch" : "_sub_worker";
	return arena_printf(a, "%s%s_", buf, role);
}

int outline_hierarchy_program(Program *p, Diag *d)
{
	static const OutlineConfig cfg = {
		.target = SC_HIERARCHY, .fn_type = FT_OPAQUE, .scope_suffix = hier_suffix,
	};
	OutlineRun run;
	outline_run_begin(&run, p, 1u << FT_OPAQUE);
	int rc = 0;
	for (int i = 0; i < run.norder && !rc; i++)
		rc = outline_run_function(&run, p, run.order[i], &cfg, d) < 0;
	return outline_run_end(&run, p, rc);
}
