// SPDX-License-Identifier: GPL-2.0
/*
 * Scaled table cells (calib_table.h): a copy of the figure with its median
 * scaled, handed to calib_json__cell so that every table marks spread and
 * warnings the same way.
 */
#include "calib_json.h"
#include "calib_table.h"

const char *calib_table__cell(const json_object *obj, const char *key, double scale,
			      const char *fmt, char *buf, size_t len)
{
	json_object *fig, *copy = NULL, *view;

	if (scale == 1 || !json_object_object_get_ex(obj, key, &fig) ||
	    !json_object_is_type(fig, json_type_object) ||
	    json_object_deep_copy(fig, &copy, NULL))
		return calib_json__cell(obj, key, fmt, buf, len);
	json_object_object_add(copy, "median",
			       json_object_new_double(calib_json__double(fig, "median", 0) / scale));
	view = json_object_new_object();
	json_object_object_add(view, key, copy);
	calib_json__cell(view, key, fmt, buf, len);
	json_object_put(view);
	return buf;
}
