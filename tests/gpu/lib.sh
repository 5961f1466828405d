# SPDX-License-Identifier: Apache-2.0 OR MIT
# Sourced by the GPU machine's scripts (tests/gpu/run.sh, scripts/gpu-porep.sh):
# a table of timed steps.  The caller sets OUT (where the logs go), TABLE (the
# table file), optionally ROW_WIDTH (the name column), and failed=0, which
# counts the steps that failed.
now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }
row() { printf "%-${ROW_WIDTH:-44}s %-6s %s\n" "$1" "$2" "$3" | tee -a "$TABLE"; }

# step NAME LOG CMD...: runs CMD with its output appended to OUT/LOG (under a
# header line naming it), then one row: PASS or FAIL with the time, or SKIP
# with the reason the command printed last (exit 77).  Returns CMD's status.
step() {
	name=$1 log=$2
	shift 2
	echo "== $name: $*" >>"$OUT/$log"
	t0=$(now)
	"$@" >>"$OUT/$log" 2>&1
	rc=$?
	t=$(secs "$t0" "$(now)")
	case $rc in
	0) row "$name" PASS "${t}s" ;;
	77) row "$name" SKIP "$(tail -1 "$OUT/$log")" ;;
	*) row "$name" FAIL "rc $rc after ${t}s, see $log"; failed=$((failed + 1)) ;;
	esac
	return $rc
}
