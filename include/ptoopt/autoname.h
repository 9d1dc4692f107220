/* autoname.h - generated variable names "base__[qualifier_][role_]vN"
 * (autoname.c): split one into its parts, or build one from them. */
#ifndef PTOOPT_AUTONAME_H
#define PTOOPT_AUTONAME_H

#include <stdbool.h>

#include "ptoopt/arena.h"

typedef struct AutoName {
	const char *base;      /* interned */
	const char *qualifier; /* interned, "" when absent */
	const char *role;      /* static string, "" when absent */
	int version;           /* -1 when absent */
	bool has_delim;        /* the name contains "__" */
} AutoName;
AutoName autoname_parse(Arena *a, const char *name);
const char *autoname_build(Arena *a, const char *base, const char *qual, const char *role, int version);

#endif
