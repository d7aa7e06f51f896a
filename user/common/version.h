/* SPDX-License-Identifier: GPL-2.0 */
/* spinscope's version: the CLI's -V, the report's header and JSON "tool". */
#ifndef SPINSCOPE_VERSION_H
#define SPINSCOPE_VERSION_H

#define SS_VERSION "0.1.0"

#endif
