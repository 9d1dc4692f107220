/* config.h - pipeline files (--config, YAML) and --print-pipeline (config.c). */
#ifndef PTOOPT_CONFIG_H
#define PTOOPT_CONFIG_H

#include <stdbool.h>

#include "ptoopt/driver.h"
#include "ptoopt/strbuf.h"

/* Read a pipeline file into c: what it sets replaces c's settings (its
 * passes replace the pipeline); its op registry files are loaded at once.
 * Mistakes are reported as FILE:LINE:COL naming the valid choices, and
 * false returned. */
bool config_load(DriverConfig *c, const char *path);
/* Load an op registry file (--ops, or 'ops' in a pipeline file) and
 * remember it for --print-pipeline. */
bool config_load_ops(DriverConfig *c, const char *path, Diag *d);
/* The resolved settings as a pipeline file config_load accepts. */
void config_print(StrBuf *out, const DriverConfig *c);

#endif
