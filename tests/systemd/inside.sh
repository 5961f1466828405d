#!/bin/bash
# SPDX-License-Identifier: Apache-2.0 OR MIT
# Runs inside a container booted with systemd, where the cuzk package has
# been installed with apt.  Each check prints "ok" or "FAIL"; exit 1 if any
# failed.  Driven by tests/systemd/run.sh.
set -u
fails=0
ok() { echo "ok   - $*"; }
bad() { echo "FAIL - $*"; fails=$((fails + 1)); }
check() { local what=$1; shift; if "$@"; then ok "$what"; else bad "$what"; fi; }
sock=/run/cuzk/cuzkd.sock
params=/var/lib/cuzk/params
# Waits (bounded) until a command succeeds: used for state that systemd or
# the daemon reaches asynchronously, never to paper over a race in cuzk.
wait_for() { local t=$1; shift; local end=$((SECONDS + t)); until "$@"; do [ $SECONDS -ge $end ] && return 1; sleep 0.2; done; }

cd /root || exit 1
# 0. Install the packages: apt install ./cuzk_*.deb, with systemd running.
if DEBIAN_FRONTEND=noninteractive apt-get install -y ./debs/cuzk_*.deb ./debs/libcuzk1_*.deb > apt.log 2>&1; then
	ok "apt install ./cuzk_*.deb"
else
	tail -n 20 apt.log; bad "apt install ./cuzk_*.deb"; exit 1
fi
echo "# $(cuzk --version 2>&1 | head -1)"
check "the cuzk system user exists" id cuzk
check "the params directory exists" test -d $params

# Parameters and witnesses: a small circuit and a larger one for the drain test.
cuzk gen-circuit --log-constraints 10 --inputs 3 --r1cs small.r1cs --wtns small.wtns &&
cuzk setup --r1cs small.r1cs --params "$params/demo.params" --seed 7 &&
cuzk synth --r1cs small.r1cs --wtns small.wtns --out small.witness &&
cuzk gen-circuit --log-constraints 16 --inputs 3 --r1cs big.r1cs --wtns big.wtns &&
cuzk setup --r1cs big.r1cs --params "$params/big.params" --seed 8 &&
cuzk synth --r1cs big.r1cs --wtns big.wtns --out big.witness || { bad "preparing circuits"; exit 1; }
chmod 0644 "$params"/*.params
# Filecoin's directory, served in place (it must exist before the service
# starts): demo's parameters under WinningPoSt's file name, a symlink into
# the other parameter directory (allowed) and one out of both (refused).
fil=/var/tmp/filecoin-proof-parameters
winning=v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-8-0-559e581f022bb4e4ec6e719e563bf0e026ad6de42e56c18714a2c692b1b88d7e.params
mkdir -p -m 0755 $fil && cp "$params/demo.params" "$fil/$winning" && chmod 0644 "$fil/$winning" &&
ln -sf "$params/big.params" "$fil/big-linked.params" && ln -sf /etc/hostname "$fil/escape.params" ||
	{ bad "preparing $fil"; exit 1; }

# 1. After boot: the socket listens, the service is not running.
check "cuzkd.socket is active after boot" test "$(systemctl is-active cuzkd.socket)" = active
check "cuzkd.service is inactive before the first client" test "$(systemctl is-active cuzkd.service)" = inactive
check "socket node exists with mode 0660 group cuzk" test "$(stat -c '%a %G' $sock 2>/dev/null)" = "660 cuzk"

# 2. The first submit starts the service; the proof verifies.
if timeout 300 cuzk submit --socket $sock --srs demo.params --witness small.witness --out small.proof; then
	ok "first submit answered"
	check "proof from the socket-activated daemon verifies" cuzk verify --params "$params/demo.params" --proof small.proof --witness small.witness
else
	bad "first submit answered"
fi
check "cuzkd.service is active after the first connection" test "$(systemctl is-active cuzkd.service)" = active
pid=$(systemctl show -p MainPID --value cuzkd.service)
check "daemon runs as user cuzk under its sandbox" test "$(ps -o user= -p "$pid" 2>/dev/null | tr -d ' ')" = cuzk

# 3. STATUS= shows up in systemctl status.
systemctl status --no-pager cuzkd.service | sed -n '1,12p'
check "systemctl status shows the STATUS= line" bash -c "systemctl status --no-pager cuzkd.service | grep -q 'Status: \"'"

# 3b. Parameters in place in /var/tmp/filecoin-proof-parameters, by kind.
if timeout 300 cuzk submit --socket $sock --kind winning-post-32g --witness small.witness --out kind.proof; then
	check "a kind served from $fil verifies" cuzk verify --params "$params/demo.params" --proof kind.proof --witness small.witness
else
	bad "a kind served from $fil"
fi
cuzk params list --socket $sock | sed 's/^/# /'
check "params list: the kind, loaded, from $fil" bash -c "cuzk params list --socket $sock | grep -E '^winning-post-32g .* loaded +$fil/'"
check "params list: a symlink into /var/lib/cuzk/params is served" bash -c "cuzk params list --socket $sock | grep -E ' available +$fil/big-linked.params'"
check "a symlink out of the parameter directories is refused" bash -c "cuzk submit --socket $sock --srs escape.params --witness small.witness --out x.proof 2>&1 | grep -q 'outside srs_dir'"
pid=$(systemctl show -p MainPID --value cuzkd.service)
check "$fil is mounted read-only in the service's namespace" bash -c "grep ' $fil ' /proc/$pid/mountinfo | grep -qE ' ro[, ]'"
check "the rest of the host's /var/tmp stays hidden" bash -c "touch /var/tmp/host-only && ! nsenter -t $pid -m test -e /var/tmp/host-only"

# 4. Journal records carry the per-worker fields.
journal_has_fields() {
	journalctl -u cuzkd.service -o json --no-pager |
		jq -e -s 'map(select(.CUZK_WORKER != null and .CUZK_PHASE != null and .CUZK_MS != null and .CUZK_JOB != null)) | length > 0' >/dev/null
}
check "journalctl -u cuzkd -o json has CUZK_JOB/CUZK_WORKER/CUZK_PHASE/CUZK_MS" wait_for 10 journal_has_fields
journalctl -u cuzkd.service -o json --no-pager | jq -c 'select(.CUZK_PHASE != null) | {CUZK_JOB, CUZK_WORKER, CUZK_GPU, CUZK_PHASE, CUZK_MS}' | head -5

# 5. The sandbox's exposure score, for docs/OPERATIONS.md.
systemd-analyze security --no-pager cuzkd.service 2>/dev/null | tail -n 1 | sed 's/^/# security: /'

# 6. systemctl stop while a proof runs: the running proof finishes (drain).
timeout 300 cuzk submit --socket $sock --srs big.params --witness big.witness --out big.proof > drain.out 2>&1 &
client=$!
running() { local j; j=$(cuzk status --socket $sock --json 2>/dev/null) && jq -e '.running > 0' <<<"$j" >/dev/null; }
if wait_for 60 running; then
	ok "a proof is running before stop"
	systemctl stop cuzkd.service
	wait $client; crc=$?
	if [ $crc = 0 ] && cuzk verify --params "$params/big.params" --proof big.proof --witness big.witness; then
		ok "the proof running at stop finished and verifies (drained)"
	else
		bad "the proof running at stop finished and verifies (client rc $crc: $(cat drain.out))"
	fi
	check "journal shows the drain" bash -c "journalctl -u cuzkd.service --no-pager | grep -qi drain"
else
	bad "a proof is running before stop"; kill $client 2>/dev/null
fi
check "service inactive after stop" test "$(systemctl is-active cuzkd.service)" = inactive
check "socket still listening after stop" test "$(systemctl is-active cuzkd.socket)" = active

# 7. A broken config makes the unit fail, with the line number in the journal.
cp /etc/cuzk/cuzkd.conf /root/cuzkd.conf.good
printf '\n[daemon]\nno_such_key = 1\n' >> /etc/cuzk/cuzkd.conf
badline=$(grep -n '^no_such_key' /etc/cuzk/cuzkd.conf | cut -d: -f1)
systemctl start cuzkd.service 2>/dev/null
wait_for 10 bash -c '[ "$(systemctl is-active cuzkd.service)" != activating ]'
check "unit fails with a broken config" test "$(systemctl is-active cuzkd.service)" = failed
check "journal names the config line ($badline)" bash -c "journalctl -u cuzkd.service --no-pager | grep -q 'cuzkd.conf:$badline'"
cp /root/cuzkd.conf.good /etc/cuzk/cuzkd.conf
systemctl reset-failed cuzkd.service

# 8. And it comes back through the socket.
if timeout 300 cuzk submit --socket $sock --srs demo.params --witness small.witness --out again.proof; then
	check "after a fixed config the socket starts it again" cuzk verify --params "$params/demo.params" --proof again.proof --witness small.witness
else
	bad "after a fixed config the socket starts it again"
fi

echo "# $fails failed"
[ $fails -eq 0 ]
