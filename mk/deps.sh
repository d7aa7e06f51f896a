#!/bin/sh
# Checks (and as root installs) the Debian packages spinscope builds and
# tests with. Usage: deps.sh check|install PKG...
# `check` installs what is missing when run as root with apt-get available,
# otherwise prints the exact apt-get line and fails.
mode=$1; shift
missing=""
for p in "$@"; do
	st=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)
	case "$st" in *" installed") ;; *) missing="$missing $p" ;; esac
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
	echo "spinscope: missing Debian packages:$missing" >&2
	echo "spinscope: install them with: sudo apt-get install -y$missing" >&2
	exit 1
fi
echo "spinscope: installing missing Debian packages:$missing" >&2
export DEBIAN_FRONTEND=noninteractive
# A fresh machine may have empty package lists; update only when needed.
apt-get install -y -q $missing >/dev/null 2>&1 && exit 0
apt-get update -q >/dev/null && apt-get install -y -q $missing >/dev/null || {
	echo "spinscope: apt-get install failed for:$missing" >&2
	exit 1
}
