# The recording reader's libFuzzer target, run by `make fuzz` with the
# other parsers' (mk/fuzz.mk, which this file joins when it is there):
# `spinscope report` and `diff` read recordings from other machines.
# Seeds: the committed recordings of tests/fixtures/recording.
FUZZ_SRCS_recording_read := $(addprefix user/report/,recording_read.c recording.c recording_diff.c \
	advice.c samples_report.c) $(addprefix user/model/,profile.c stacks.c samples_result.c) \
	user/syms/hot_insns.c $(wildcard advisor/*.c)
FUZZ_LIBS_recording_read := -ljson-c -lzstd -lm
FUZZ_SEEDS_recording_read := tests/fixtures/recording

ifdef FUZZ_OUT
FUZZ_NAMES += recording_read
fuzz-build: $(FUZZ_OUT)/fuzz_recording_read
fuzz: fuzz-run-recording_read
$(FUZZ_OUT)/fuzz_recording_read: $(FUZZ_SRCS_recording_read)
endif
