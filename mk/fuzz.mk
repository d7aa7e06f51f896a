# Fuzzing (`make fuzz`): clang's libFuzzer with ASan and UBSan, one target
# per parser of input spinscope does not control (tests/fuzz/fuzz_*.c):
# the sanitiser of names, the ELF symbol loader, the demangler, the
# runtime detection's reading of an executable, the perf map,
# /proc/PID/maps lines, /proc/PID/status and stat, the calibration file, a
# top recording read back and rendered, a
# recording (-o FILE[.zst]) read back, and checked against its schema, read
# into the model and diffed. Each runs for FUZZ_TIME seconds from its
# committed seeds (tests/fuzz/corpus/NAME, plus FUZZ_SEEDS_NAME); new inputs
# go to a scratch corpus in the build folder, so the committed one stays
# small. Any crash, leak, sanitizer report or slow input fails the target,
# and libFuzzer leaves the input as $(FUZZ_OUT)/crash-* to reproduce with
# `$(FUZZ_OUT)/fuzz_NAME FILE`. .ci/run calls it after `make test`.

# libFuzzer's runtime: only a Recommends of Debian 12's clang-14.
DEB_DEPS += libclang-rt-14-dev

FUZZ_TIME ?= 20
FUZZ_OUT := $(OUTPUT)/fuzz
FUZZ_CFLAGS := -std=gnu11 -g -O1 -D_GNU_SOURCE -I$(OUTPUT) -Iuser -Ibpf -I. \
	-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined

# name -> the sources it links besides tests/fuzz/fuzz_NAME.c, and libraries
FUZZ_SRCS_elf_symtab := $(addprefix user/syms/,elf_symtab.c demangle.c frame_ptr.c strpool.c) user/common/names.c
FUZZ_LIBS_elf_symtab := -lelf -lz -liberty
# Symbol names demangled (C++, Rust legacy and v0), through libiberty.
FUZZ_SRCS_demangle := user/syms/demangle.c
FUZZ_LIBS_demangle := -liberty
# The target's executable, read for its runtime (syms/runtime_detect.c).
FUZZ_SRCS_runtime_detect := user/syms/runtime_detect.c
FUZZ_LIBS_runtime_detect := -lelf
FUZZ_SEEDS_runtime_detect := tests/fuzz/corpus/elf_symtab
FUZZ_SRCS_perfmap := $(addprefix user/syms/,perfmap.c strpool.c proc_root.c) user/common/names.c
FUZZ_SRCS_proc_maps := user/syms/proc_maps.c
FUZZ_SRCS_proc_status := user/common/procfs.c user/common/errors.c user/common/names.c
FUZZ_LIBS_proc_status := -ljson-c
FUZZ_SRCS_calib_load := $(addprefix user/calib/,calib_host.c calib_store.c calib_json.c) \
	$(addprefix user/calib/kern/,calib_util.c calib_stat.c calib_conditions.c fingerprint.c) \
	user/common/cpulist.c user/common/outfile.c user/common/errors.c \
	$(wildcard advisor/*.c)
FUZZ_LIBS_calib_load := -ljson-c -lm
FUZZ_SRCS_recording := user/report/recording.c user/common/outfile.c
FUZZ_LIBS_recording := -lzstd -ljson-c
# A recording of spinscope top read back and rendered (report, diff).
FUZZ_SRCS_top_read := $(addprefix user/top/,top_read.c top_render.c top_render_json.c top_verdict.c) \
	user/common/names.c user/common/errors.c $(wildcard advisor/*.c)
FUZZ_LIBS_top_read := -ljson-c -lm
# The recording read into the model and diffed (spinscope report, diff).
FUZZ_SRCS_recording_read := $(addprefix user/report/,recording_read.c recording_check.c recording.c \
	recording_diff.c advice.c advice_releases.c advice_acquire.c samples_report.c) user/common/outfile.c user/common/names.c \
	$(addprefix user/model/,profile.c stacks.c samples_result.c releases.c) user/syms/hot_insns.c \
	$(wildcard advisor/*.c)
FUZZ_LIBS_recording_read := -ljson-c -lzstd -lm
FUZZ_SEEDS_recording_read := tests/fixtures/recording
# (calib_host.c asks the advisor which calibrated findings a profile will
# have, advisor__will_find: the pure advisor links in whole.)
# (calib_hints.c's inline asm is gcc's: the harness stands in for the one
# function of it that fingerprint.c links, which no loader path calls.)
# Real calibration files are seeds too.
FUZZ_SEEDS_calib_load := tests/fixtures/advice

# The one sanitiser of names from a target (and from recordings).
FUZZ_SRCS_names := user/common/names.c

FUZZ_NAMES := names elf_symtab demangle runtime_detect perfmap proc_maps proc_status calib_load recording recording_read top_read
FUZZ_BINS := $(addprefix $(FUZZ_OUT)/fuzz_,$(FUZZ_NAMES))

$(FUZZ_OUT)/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz_memfd.h $(USER_HDRS) mk/fuzz.mk
	$(call msg,FUZZ-CC,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CLANG) $(FUZZ_CFLAGS) -Itests/fuzz $< $(FUZZ_SRCS_$*) $(FUZZ_LIBS_$*) -o $@

# Each target's sources are prerequisites too.
$(foreach n,$(FUZZ_NAMES),$(eval $(FUZZ_OUT)/fuzz_$(n): $(FUZZ_SRCS_$(n))))

fuzz-build: $(FUZZ_BINS)

fuzz: $(addprefix fuzz-run-,$(FUZZ_NAMES))

fuzz-run-%: $(FUZZ_OUT)/fuzz_%
	$(call msg,FUZZ,$* for $(FUZZ_TIME) s)
	$(Q)mkdir -p $(FUZZ_OUT)/corpus_$* tests/fuzz/corpus/$*
	$(Q)cd $(FUZZ_OUT) && ./fuzz_$* -max_total_time=$(FUZZ_TIME) -max_len=65536 -timeout=10 \
	  -rss_limit_mb=2048 corpus_$* $(addprefix $(CURDIR)/,tests/fuzz/corpus/$* $(FUZZ_SEEDS_$*)) \
	  >fuzz_$*.log 2>&1 || { tail -40 fuzz_$*.log; \
	  echo "fuzz: fuzz_$* found a bug (input and log in $(FUZZ_OUT)/)" >&2; exit 1; }
	$(Q)grep -E '^Done [0-9]+ runs' $(FUZZ_OUT)/fuzz_$*.log | sed 's/^/           /' || true

.PHONY: fuzz fuzz-build
