// SPDX-License-Identifier: GPL-2.0
/* `spinscope --version`: the version from git and what this build was made
 * with, the libraries' versions read at run time (what is loaded, which is
 * what a bug report needs). */
#include <stdio.h>
#include <bpf/libbpf.h>
#include <elfutils/libdwfl.h>
#include <microhttpd.h>
#include <protobuf-c/protobuf-c.h>
#include <zstd.h>
#include <json-c/json_c_version.h>
#include "cli.h"
#include "common/version.h"

void ss_print_version(FILE *out)
{
	fprintf(out, "spinscope %s\n", SS_VERSION);
	fprintf(out, "  libbpf %s; BPF objects embedded (with and without kfuncs)\n",
		libbpf_version_string());
	fprintf(out, "  unwinder: .eh_frame tables in BPF (elfutils libdw %s), frame pointers\n",
		dwfl_version(NULL));
	fprintf(out, "  exports: pprof (protobuf-c %s), Prometheus (libmicrohttpd %s), HTML, folded, "
		"JSON (json-c %s, zstd %s)\n",
		protobuf_c_version(), MHD_get_version(), json_c_version(), ZSTD_versionString());
}
