#!/bin/bash
# The host agent's shipped files: packaging/spinscope-top.service passes
# systemd-analyze verify and scores at most 2.0 in systemd-analyze
# security (the score is printed; docs/TOP_AGENT.md records it), with
# exactly CAP_BPF and CAP_PERFMON; packaging/spinscope-top.rules.yml passes
# promtool check rules and promtool test rules (tests/pkg/top_rules_test.yml:
# each alert fires for its process and not for the idle, the brief or the
# summed ones). Prints TAP; a missing tool is a skip.
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/pkg/lib.sh
unit=packaging/spinscope-top.service
rules=packaging/spinscope-top.rules.yml
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if command -v systemd-analyze >/dev/null; then
	# The unit as installed, naming the binary built here.
	sed "s|/usr/bin/spinscope|$(realpath "$SPINSCOPE")|" "$unit" >"$tmp/spinscope-top.service"
	out=$(systemd-analyze verify --man=no "$tmp/spinscope-top.service" 2>&1)
	[ $? -eq 0 ] && [ -z "$out" ] && tap OK "systemd-analyze verify $unit" ||
		tap FAIL "systemd-analyze verify $unit" "$out"
	# --threshold is the exposure times ten.
	out=$(systemd-analyze security --offline=true --threshold=20 "$tmp/spinscope-top.service" 2>&1)
	rc=$?
	score=$(sed -n 's/^→ Overall exposure level for [^:]*: \([0-9.]*\).*/\1/p' <<<"$out")
	[ $rc -eq 0 ] && [ -n "$score" ] && tap OK "systemd-analyze security: exposure $score (at most 2.0)" ||
		tap FAIL "systemd-analyze security: exposure at most 2.0" "exposure ${score:-?}, exit $rc" \
			"$(grep '✗' <<<"$out")"
else
	skip "systemd-analyze is not installed (apt-get install systemd)"
fi
caps=$(sed -n 's/^CapabilityBoundingSet=//p' "$unit")
ambient=$(sed -n 's/^AmbientCapabilities=//p' "$unit")
[ "$caps" = "CAP_BPF CAP_PERFMON" ] && [ "$ambient" = "$caps" ] && ! grep -q '^User=root' "$unit" &&
	tap OK "the unit runs unprivileged with CAP_BPF and CAP_PERFMON only" ||
	tap FAIL "the unit runs unprivileged with CAP_BPF and CAP_PERFMON only" "bounding: $caps" "ambient: $ambient"

if command -v promtool >/dev/null; then
	out=$(promtool check rules "$rules" 2>&1)
	[ $? -eq 0 ] && tap OK "promtool check rules $rules: $(grep -o '[0-9]* rules found' <<<"$out")" ||
		tap FAIL "promtool check rules $rules" "$out"
	out=$(cd tests/pkg && promtool test rules top_rules_test.yml 2>&1)
	[ $? -eq 0 ] && tap OK "promtool test rules tests/pkg/top_rules_test.yml" ||
		tap FAIL "promtool test rules tests/pkg/top_rules_test.yml" "$out"
else
	skip "promtool is not installed (apt-get install prometheus)"
fi
echo "1..$n"
[ "$failed" -eq 0 ]
