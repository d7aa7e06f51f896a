# TAP for the test scripts (tests/layout, tests/pkg), read by tests/run.sh
# as it reads cmocka's results. Sourced; the script ends with
# `echo "1..$n"; [ "$failed" -eq 0 ]`.
n=0 failed=0

tap() {	# tap OK|FAIL description [details, one "# " line each]
	local status=$1 desc=$2
	shift 2
	n=$((n + 1))
	if [ "$status" = OK ]; then
		echo "ok $n - $desc"
	else
		failed=$((failed + 1))
		echo "not ok $n - $desc"
		[ $# -eq 0 ] || printf '%s\n' "$@" | sed 's/^/# /'
	fi
}

skip() {	# skip reason: tests/run.sh counts it (and fails a CI run on it)
	echo "not ok - # SKIP $*"
}
