#!/bin/bash
# Runs cmocka test binaries, shows each result and prints one closing line
# "N passed, N failed, N skipped". Exits non-zero on any failure, and, when
# CI=true, on any skip: a CI run that skipped the BPF tests is not green.
#
# cmocka's standard output, not its TAP: in TAP mode cmocka 1.1 drops the
# text of fail_msg() ("ERROR: ..."), which is what says why a test failed.
# Results are read from the per-test lines before the "N test(s) run."
# summary (which lists the failures again); failures are shown as
# "not ok - NAME" with the test's messages and notes.
set -u
passed=0 failed=0 skipped=0
unset CMOCKA_MESSAGE_OUTPUT
# Under `make asan`: the libraries' known leaks (tests/lsan.supp, each with
# its reason); every other leak fails the test. Debian's libbpf has no frame
# pointers: the fast unwinder stops inside it, and no suppression could
# tell whose leak it saw.
export LSAN_OPTIONS="suppressions=$(cd "$(dirname "$0")" && pwd)/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
export ASAN_OPTIONS="${ASAN_OPTIONS:-fast_unwind_on_malloc=0}"
for bin in "$@"; do
	name=${bin#"${OUTPUT:-build}"/tests/}
	start=$SECONDS
	out=$("$bin" 2>&1)
	rc=$?
	took=$((SECONDS - start))
	out=$(sed '/^\[==========\] [0-9]* test(s) run\./q' <<<"$out" |
	      sed -e 's/^\[  FAILED  \] /not ok - /' -e 's/^\[  SKIPPED \] /not ok - # SKIP /')
	# cmocka's "[ OK ]" lines; the tests/layout scripts print TAP "ok N".
	p=$(grep -cE '^(\[       OK \] |ok [0-9]+ )' <<<"$out")
	s=$(grep -c '^not ok - # SKIP' <<<"$out")
	f=$(grep '^not ok ' <<<"$out" | grep -vc '# SKIP')
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		f=1	# crashed or aborted outside a test
		out="$out
# $name exited with status $rc"
	fi
	passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
	# Its time, so that a slow binary (CI's budget, `make asan`) is seen.
	printf '%-40s %3d passed %3d failed %3d skipped %5ds\n' "$name" "$p" "$f" "$s" "$took"
	if [ "$f" -ne 0 ] || [ "$s" -ne 0 ]; then
		grep -E '^(not ok|# |ERROR:|\[  ERROR   \]|\[   LINE   \])' <<<"$out" | sed 's/^/    /'
	fi
done
echo "tests: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ] || exit 1
if [ "${CI:-}" = true ] && [ "$skipped" -ne 0 ]; then
	echo "tests: CI=true and $skipped test(s) skipped: the BPF tests must run in CI" >&2
	exit 1
fi
exit 0
