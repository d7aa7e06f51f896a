/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Table cells in the unit a person reads (M acq/s, us) for figures stored
 * in base units (acq/s, ns): calib_json__cell's format, spread and warning
 * mark, applied to the median divided by a scale.
 */
#ifndef SPINSCOPE_CALIB_TABLE_H
#define SPINSCOPE_CALIB_TABLE_H

#include <stddef.h>
#include <json-c/json.h>

/* obj[key] as calib_json__cell prints it, the median divided by scale
 * ("12.3 ±4%!"); "-" when absent. Returns buf. */
const char *calib_table__cell(const json_object *obj, const char *key, double scale,
			      const char *fmt, char *buf, size_t len);

#endif
