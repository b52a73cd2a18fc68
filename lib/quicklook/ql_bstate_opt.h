/* SPDX-License-Identifier: BSD-3-Clause */
/* The sampler verdict's thresholds (struct qlb_cfg) as lib/opt rows, one
 * owner for their names, ranges and help: codifcheck bstate's options and
 * the keys of the capture's --sampler-levels. Header only (lib/opt's
 * struct opt_def); the includer links lib/opt. */
#ifndef QL_BSTATE_OPT_H
#define QL_BSTATE_OPT_H

#include <stdint.h>

#include "opt.h"
#include "ql_bstate.h"

/**
 * The five rows, stored in struct T at M(under), M(over), M(dead), M(sat)
 * and M(min_samples), where M maps a member of struct qlb_cfg to where it
 * is in T (e.g. #define M(f) bs.cfg.f).
 */
#define QLB_CFG_OPT_ROWS(T, M) \
	{"under", .kind = OPT_DOUBLE, .metavar = "F", .dmin = 0, .dmax = 1, \
	 OPT_AT(T, M(under)), .help = "under-driven below F x the optimal RMS"}, \
	{"over", .kind = OPT_DOUBLE, .metavar = "F", .dmin = 1, .dmax = 1000, \
	 OPT_AT(T, M(over)), .help = "over-driven above F x the optimal RMS"}, \
	{"dead", .kind = OPT_DOUBLE, .metavar = "FRACTION", .dmin = 0.5, .dmax = 1, \
	 OPT_AT(T, M(dead)), .help = "dead from this share of the zero code"}, \
	{"saturated", .kind = OPT_DOUBLE, .metavar = "FRACTION", .dmin = 0.5, .dmax = 1, \
	 OPT_AT(T, M(sat)), .help = "saturated from this share of the extreme codes"}, \
	{"min-samples", .kind = OPT_UINT, .metavar = "N", .min = 1, .max = UINT64_MAX, \
	 OPT_AT(T, M(min_samples)), .help = "fewer samples: nodata"}

#endif /* QL_BSTATE_OPT_H */
