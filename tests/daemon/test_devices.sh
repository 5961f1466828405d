#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 OR MIT
# The multi-device scheduler without a GPU: cuzkd's CPU backend split into
# three pseudo-devices (cpu_devices = 3, one worker each), which the engine
# treats as it treats GPUs.  One-partition requests on an idle daemon must
# rotate over the devices (never always the first), and the partitions of
# one request must spread over several devices.  Every proof verifies.
set -u
srcdir=${srcdir:-.}
cuzk=./src/cli/cuzk
cuzkd=./src/daemon/cuzkd
join=./tests/cli/join_witness
work=tests/daemon/devices.$$
. "$srcdir/tests/testlib.sh"
test_begin "$cuzk" "$cuzkd" "$join"
mkdir -p "$work/srs" || exit 1
command -v jq >/dev/null || { echo "SKIP: jq is not installed"; exit 77; }

expect 0 "gen-circuit 2^12" "$cuzk" gen-circuit --log-constraints 12 --inputs 3 --r1cs "$work/c.r1cs" --wtns "$work/c.wtns"
expect 0 "setup" "$cuzk" setup --r1cs "$work/c.r1cs" --params "$work/srs/c.params" --seed 3
expect 0 "synth" "$cuzk" synth --r1cs "$work/c.r1cs" --wtns "$work/c.wtns" --out "$work/c.witness"
expect 0 "a 3-partition witness" "$join" "$work/p3.witness" "$work/c.witness" "$work/c.witness" "$work/c.witness"

printf '[engine]\ncpu_devices = 3\ncpu_workers = 1\n' >"$work/cuzkd.conf"
"$cuzkd" --config "$work/cuzkd.conf" --socket "$work/sock" --srs-dir "$work/srs" --backend cpu \
	>"$work/cuzkd.log" 2>&1 &
daemon=$!
trap 'kill $daemon 2>/dev/null' EXIT
# Bounded waits for states the daemon reaches on its own threads.
wait_for() { n=0; until "$@"; do n=$((n + 1)); [ $n -ge 200 ] && return 1; sleep 0.05; done; }
status() { "$cuzk" status --socket "$work/sock" --json 2>/dev/null; }
all_idle() { [ "$(status | jq -r '.idle')" = 3 ]; }
parts() { status | jq -c '[.devices[].partitions]'; }

wait_for test -S "$work/sock" || { cat "$work/cuzkd.log"; fail "the daemon did not start"; test_result; }
wait_for all_idle && pass "3 devices, 3 idle workers" || fail "3 devices, 3 idle workers"
[ "$(status | jq -r '[.devices[].kind] | join(",")')" = cpu,cpu,cpu ] && pass "  reported as 3 cpu devices" ||
	fail "  reported as 3 cpu devices"

for i in 1 2 3; do
	expect 0 "one-partition request $i" "$cuzk" submit --socket "$work/sock" --srs c.params --witness "$work/c.witness" --out "$work/s$i.proof"
	expect 0 "  verifies" "$cuzk" verify --params "$work/srs/c.params" --proof "$work/s$i.proof" --witness "$work/c.witness"
done
wait_for all_idle
[ "$(parts)" = "[1,1,1]" ] && pass "three one-partition requests went to three devices" ||
	fail "three one-partition requests went to three devices: $(parts)"

expect 0 "a 3-partition request" "$cuzk" submit --socket "$work/sock" --srs c.params --witness "$work/p3.witness" --out "$work/p3.proof"
expect 0 "  its 3 proofs verify" "$cuzk" verify --params "$work/srs/c.params" --proof "$work/p3.proof" --witness "$work/p3.witness"
wait_for all_idle
# All three devices are idle and each is woken for one partition; a device
# that finishes first may take a partition whose own device has not yet been
# scheduled (2 cores here), so demand a spread, not an exact one.
spread=$(parts | jq '[.[] | select(. > 1)] | length')
total=$(parts | jq 'add')
[ "$total" = 6 ] && [ "$spread" -ge 2 ] && pass "the partitions of one request spread over $spread devices" ||
	fail "the partitions of one request spread over several devices: $(parts)"

kill -TERM $daemon && wait $daemon
[ $? = 0 ] && pass "daemon drained and exited 0" || fail "daemon exit status"
trap - EXIT
test_result
