# SPDX-License-Identifier: Apache-2.0 OR MIT
# Helpers for the shell tests (sourced; POSIX sh).  The sourcing script sets
# $work (a scratch directory) first, and exits with test_result at the end.

test_failures=0

# test_begin PROGRAM...: each PROGRAM must be built (else FAIL, exit 1); $work
# is made afresh.
test_begin() {
	for prog in "$@"; do
		[ -x "$prog" ] || { echo "FAIL: $prog is not built"; exit 1; }
	done
	rm -rf "$work"
	mkdir -p "$work" || exit 1
}
pass() { echo "ok: $*"; }
fail() { echo "FAIL: $*"; test_failures=$((test_failures + 1)); }

# expect 0|nonzero|N DESCRIPTION CMD...: runs CMD and checks its exit status
# (N: exactly that one); its stdout lands in $work/out and its stderr in
# $work/err (both logged).
expect() {
	want=$1 what=$2
	shift 2
	"$@" >"$work/out" 2>"$work/err"
	rc=$?
	sed 's/^/    /' "$work/out" "$work/err"
	if [ "$want" = 0 ] && [ $rc -eq 0 ]; then pass "$what"
	elif [ "$want" = nonzero ] && [ $rc -ne 0 ]; then pass "$what (exit $rc)"
	elif [ "$want" != 0 ] && [ "$want" != nonzero ] && [ $rc -eq "$want" ]; then pass "$what (exit $rc)"
	else fail "$what (exit $rc, expected $want)"; fi
}

# flip_byte FILE OFFSET MASK: XORs one byte in place (byte 0 of a proof with
# 0x20 negates A: the encoding stays valid and the proof becomes wrong).
flip_byte() {
	b=$(od -An -tu1 -j "$2" -N1 "$1" | tr -d ' ')
	printf "$(printf '\\%03o' $((b ^ $3)))" | dd of="$1" bs=1 seek="$2" count=1 conv=notrunc 2>/dev/null
}

# test_result: exit status for automake; keeps $work when something failed.
test_result() {
	if [ $test_failures -ne 0 ]; then
		echo "$test_failures check(s) failed; files kept in $work"
		exit 1
	fi
	rm -rf "$work"
	exit 0
}
