/* SPDX-License-Identifier: GPL-2.0 */
/* spinscope's version: the CLI's -V, the report's header and JSON "tool".
 * SS_VERSION comes from git (mk/version.sh) through the generated
 * $(OUTPUT)/common/ss_version.h (mk/version.mk), rewritten only when it changes. */
#ifndef SPINSCOPE_VERSION_H
#define SPINSCOPE_VERSION_H

#include "common/ss_version.h"	/* generated into $(OUTPUT)/common */

#endif
