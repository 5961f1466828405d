// SPDX-License-Identifier: Apache-2.0 OR MIT

// Tests against a cuzkd of their own (CPU backend) on a temporary socket,
// with parameters and witness from circom fixtures through the cuzk
// command: a witness written in place into a buffer's sections, proved, and
// verified by the project's verifier; two goroutines proving on one client;
// contexts that cancel; proof kinds and the daemon's listing; typed errors;
// traced requests' timelines.
// make check (tests/bindings/go.sh) sets CUZK_BIN, CUZKD_BIN and
// CUZK_FIXTURES; without them the tests skip, saying so.
package cuzk

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

type testEnv struct {
	cuzk, cuzkd, fixtures, dir string
}

func newEnv(t *testing.T) *testEnv {
	e := &testEnv{os.Getenv("CUZK_BIN"), os.Getenv("CUZKD_BIN"), os.Getenv("CUZK_FIXTURES"), ""}
	if e.cuzk == "" || e.cuzkd == "" || e.fixtures == "" {
		t.Skip("SKIP: CUZK_BIN, CUZKD_BIN and CUZK_FIXTURES are not set (make check sets them)")
	}
	base := os.Getenv("CUZK_TEST_TMP")
	if base == "" {
		base = os.TempDir()
	}
	dir, err := os.MkdirTemp(base, "cuzk-go-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	e.dir = dir
	return e
}

func (e *testEnv) path(name string) string { return filepath.Join(e.dir, name) }

func (e *testEnv) run(t *testing.T, args ...string) string {
	out, err := exec.Command(e.cuzk, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("cuzk %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// startDaemon runs cuzkd until the test ends; it returns once cuzkd said
// READY=1 on the notify socket.
func (e *testEnv) startDaemon(t *testing.T) (socket, srsDir string) {
	socket, srsDir = e.path("s"), e.path("srs")
	if err := os.Mkdir(srsDir, 0o700); err != nil {
		t.Fatal(err)
	}
	conf := fmt.Sprintf("[daemon]\nsocket = %s\nsrs_dir = %s\nbackend = cpu\n[engine]\ncpu_workers = 1\n", socket, srsDir)
	if err := os.WriteFile(e.path("cuzkd.conf"), []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	notify, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: e.path("notify"), Net: "unixgram"})
	if err != nil {
		t.Fatal(err)
	}
	defer notify.Close()
	log, _ := os.Create(e.path("cuzkd.log"))
	cmd := exec.Command(e.cuzkd, "--config", e.path("cuzkd.conf"))
	cmd.Env = append(os.Environ(), "NOTIFY_SOCKET="+e.path("notify"), "LISTEN_FDS=", "JOURNAL_STREAM=")
	cmd.Stderr = log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
		log.Close()
		if t.Failed() {
			b, _ := os.ReadFile(e.path("cuzkd.log"))
			t.Logf("cuzkd log:\n%s", b)
		}
	})
	notify.SetReadDeadline(time.Now().Add(120 * time.Second))
	buf := make([]byte, 4096)
	for {
		n, err := notify.Read(buf)
		if err != nil {
			t.Fatalf("cuzkd never said READY=1: %v", err)
		}
		if strings.Contains(string(buf[:n]), "READY=1") {
			return
		}
	}
}

// circuit makes fixture's parameters as srsDir/name, its verifying key and
// cuzk synth's witness file.
func (e *testEnv) circuit(t *testing.T, srsDir, fixture, name string) (vk, witness string) {
	r1cs := filepath.Join(e.fixtures, fixture+".r1cs")
	vk, witness = e.path(fixture+".vk"), e.path(fixture+".witness")
	e.run(t, "setup", "--r1cs", r1cs, "--params", filepath.Join(srsDir, name), "--vk", vk, "--seed", "5")
	e.run(t, "synth", "--r1cs", r1cs, "--wtns", filepath.Join(e.fixtures, fixture+".wtns"), "--out", witness)
	return
}

// witnessFile is a one-partition witness file: its dims and its sections.
type witnessFile struct {
	dims     Dims
	sections [8][]byte
}

func readWitness(t *testing.T, path string) *witnessFile {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	le := binary.LittleEndian
	w := &witnessFile{dims: Dims{NumConstraints: le.Uint64(b[24:]), NumInputs: le.Uint64(b[32:]),
		NumAux: le.Uint64(b[40:]), NumPartitions: 1, Montgomery: le.Uint32(b[12:])&1 != 0}}
	d := w.dims
	lens := []uint64{32 * d.NumConstraints, 32 * d.NumConstraints, 32 * d.NumConstraints, 32 * d.NumInputs,
		32 * d.NumAux, (d.NumAux + 63) / 64 * 8, (d.NumInputs + 63) / 64 * 8, (d.NumAux + 63) / 64 * 8}
	for i := range w.sections {
		off := le.Uint64(b[64+8*i:])
		w.sections[i] = b[off : off+lens[i]]
	}
	return w
}

func scalarBytes(dst []Scalar, src []byte) {
	for i := range dst {
		for j := 0; j < 4; j++ {
			dst[i][j] = binary.LittleEndian.Uint64(src[32*i+8*j:])
		}
	}
}

func wordBytes(dst []uint64, src []byte) {
	for i := range dst {
		dst[i] = binary.LittleEndian.Uint64(src[8*i:])
	}
}

// writeInPlace writes w into every partition of b through its slices.
func writeInPlace(t *testing.T, b *Buffer, w *witnessFile) {
	for i := 0; i < int(b.Dims().NumPartitions); i++ {
		p, err := b.Partition(i)
		if err != nil {
			t.Fatal(err)
		}
		for k, s := range [][]Scalar{p.A, p.B, p.C, p.Input, p.Aux} {
			scalarBytes(s, w.sections[k])
		}
		for k, s := range [][]uint64{p.AAuxDensity, p.BInputDensity, p.BAuxDensity} {
			wordBytes(s, w.sections[5+k])
		}
	}
}

func (e *testEnv) verify(t *testing.T, vk, witness string, proofs [][ProofBytes]byte) {
	for i, p := range proofs {
		f := e.path(fmt.Sprintf("p%d.proof", i))
		if err := os.WriteFile(f, p[:], 0o600); err != nil {
			t.Fatal(err)
		}
		e.run(t, "verify", "--vk", vk, "--proof", f, "--witness", witness)
	}
}

func TestProve(t *testing.T) {
	e := newEnv(t)
	socket, srs := e.startDaemon(t)
	vk, witness := e.circuit(t, srs, "bits", "bits.params")
	w := readWitness(t, witness)
	c, err := Connect(socket, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()

	d := w.dims
	d.NumPartitions = 2
	buf, err := AllocBuffer(c, d)
	if err != nil {
		t.Fatal(err)
	}
	defer buf.Free()
	if got, want := uint64(len(buf.Bytes())), 64+64*2+2*d.PartitionBytes(); got < want {
		t.Fatalf("buffer of %d bytes, want at least %d", got, want)
	}
	writeInPlace(t, buf, w)

	// Submit and Wait, with a context.
	s, err := c.Submit(buf, Request{SRS: "bits.params", Priority: PriorityHigh})
	if err != nil || s.JobID == 0 {
		t.Fatalf("submit: %v %+v", err, s)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	done, err := c.Wait(ctx)
	if err != nil || done.RequestID != s.ID || done.Err != nil || len(done.Proofs) != 2 {
		t.Fatalf("wait: %v %+v", err, done)
	}
	if done.Phase(PhaseTotal) <= 0 {
		t.Error("no total time")
	}
	e.verify(t, vk, witness, done.Proofs)
	if p, err := c.Poll(); p != nil || err != nil {
		t.Fatalf("poll: %v %v", p, err)
	}

	// A wait whose context ends: no completion is due, it returns promptly.
	short, cancel2 := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel2()
	t0 := time.Now()
	if _, err := c.Wait(short); !errors.Is(err, context.DeadlineExceeded) || time.Since(t0) > 10*time.Second {
		t.Fatalf("wait with a deadline: %v after %v", err, time.Since(t0))
	}

	// Two goroutines proving on the client, each its own buffer.
	one := w.dims
	buf2, err := AllocBuffer(c, one)
	if err != nil {
		t.Fatal(err)
	}
	defer buf2.Free()
	writeInPlace(t, buf2, w)
	var wg sync.WaitGroup
	results := make([]*Completion, 2)
	errs := make([]error, 2)
	for i, b := range []*Buffer{buf, buf2} {
		wg.Add(1)
		go func(i int, b *Buffer) {
			defer wg.Done()
			results[i], errs[i] = c.Prove(context.Background(), b, Request{SRS: "bits.params"})
		}(i, b)
	}
	wg.Wait()
	for i := range results {
		if errs[i] != nil {
			t.Fatalf("prove %d: %v", i, errs[i])
		}
	}
	e.verify(t, vk, witness, results[1].Proofs)
	if len(results[0].Proofs) != 2 {
		t.Fatalf("%d proofs", len(results[0].Proofs))
	}
	if _, err := c.Wait(context.Background()); !errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("Wait on a Prove client: %v", err)
	}

	// Prove with a context already cancelled: the request is cancelled.
	gone, cancel3 := context.WithCancel(context.Background())
	cancel3()
	if _, err := c.Prove(gone, buf2, Request{SRS: "bits.params"}); !errors.Is(err, context.Canceled) {
		t.Fatalf("prove with a cancelled context: %v", err)
	}
	// And the client still proves.
	if done, err := c.Prove(context.Background(), buf2, Request{SRS: "bits.params"}); err != nil {
		t.Fatal(err)
	} else {
		e.verify(t, vk, witness, done.Proofs)
	}
}

func TestKindsAndErrors(t *testing.T) {
	e := newEnv(t)
	if _, err := Connect(e.path("none.sock"), nil); !errors.Is(err, ErrNotFound) {
		t.Fatalf("connect to nothing: %v", err)
	}
	socket, srs := e.startDaemon(t)
	winning, ok := KindParams("winning-post-32g")
	if !ok || !strings.HasPrefix(winning, "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-8-0-559e581f") {
		t.Fatalf("KindParams: %q %v", winning, ok)
	}
	if _, ok := KindParams("winning-post-16g"); ok {
		t.Fatal("an unknown kind")
	}
	vk, witness := e.circuit(t, srs, "mulchain", winning)
	c, err := Connect(socket, &ConnectOptions{MaxInflight: 4})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if c.Limits().MaxInflight != 4 {
		t.Errorf("limits %+v", c.Limits())
	}
	buf, err := LoadBufferFile(c, witness)
	if err != nil {
		t.Fatal(err)
	}
	defer buf.Free()

	_, err = c.Submit(buf, Request{SRS: "nope.params"})
	var ce *Error
	if !errors.As(err, &ce) || ce.Status != StatusNotFound || !strings.Contains(ce.Message, "unknown SRS 'nope.params'") {
		t.Fatalf("unknown SRS: %v", err)
	}
	if _, err := c.Submit(buf, Request{SRS: "snap-64g"}); !errors.Is(err, ErrNotFound) {
		t.Fatalf("a kind without its file: %v", err)
	}
	if _, err := c.Submit(buf, Request{SRS: "../x"}); !errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("a path: %v", err)
	}
	if err := c.Cancel(424242); !errors.Is(err, ErrNotFound) {
		t.Fatalf("cancel: %v", err)
	}
	// A witness of another shape than the parameters: the completion fails.
	other, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	_, bitsWitness := e.circuit(t, srs, "bits", "bits.params")
	wrong, err := LoadBufferFile(c, bitsWitness)
	if err != nil {
		t.Fatal(err)
	}
	defer wrong.Free()
	if _, err := c.Prove(other, wrong, Request{SRS: "winning-post-32g"}); !errors.Is(err, ErrMismatch) {
		t.Fatalf("wrong shape: %v", err)
	}

	done, err := c.Prove(other, buf, Request{SRS: "winning-post-32g", Priority: PriorityCritical, FixedRS: true, Seed: 4})
	if err != nil {
		t.Fatal(err)
	}
	e.verify(t, vk, witness, done.Proofs)

	files, err := c.Params()
	if err != nil {
		t.Fatal(err)
	}
	var seen bool
	for _, f := range files {
		if f.Kind == "winning-post-32g" {
			seen = f.State == "loaded" && f.Dir == srs && f.Name == winning && f.Inputs > 0 && f.Domain > 0
		}
		if f.Kind == "porep-32g" && (f.State != "absent" || f.Dir != "" || f.Bytes != -1) {
			t.Errorf("porep-32g: %+v", f)
		}
	}
	if !seen {
		t.Errorf("winning-post-32g not listed as loaded: %+v", files)
	}
	if s, err := c.Status(true); err != nil || !strings.HasPrefix(s, "{") {
		t.Errorf("status: %v %q", err, s)
	}
	if m, err := c.Metrics(); err != nil || !strings.Contains(m, "cuzk_proofs_total") {
		t.Errorf("metrics: %v", err)
	}
}

func TestScalars(t *testing.T) {
	one := MontgomeryScalar(big.NewInt(1))
	// 2^256 mod r: one in Montgomery form.
	if one != (Scalar{0x00000001fffffffe, 0x5884b7fa00034802, 0x998c4fefecbc4ff5, 0x1824b159acc5056f}) {
		t.Fatalf("one: %x", one)
	}
	x, _ := new(big.Int).SetString("123456789012345678901234567890", 10)
	if MontgomeryScalar(x).FromMontgomery().Cmp(x) != 0 {
		t.Fatal("round trip")
	}
	if CanonicalScalar(big.NewInt(7)) != (Scalar{7}) || Status(17).String() != "busy" {
		t.Fatal("canonical, names")
	}
	if _, err := parseParams("kind\tname\n-\tx\n"); !errors.Is(err, &Error{Status: StatusProtocol}) {
		t.Fatalf("a malformed listing: %v", err)
	}
}

// checkTimeline fails t unless text is a whole timeline (Chrome trace-event
// JSON as cuzkd writes it) of a job (job 0: any) with parts partitions,
// verified when proved.
func checkTimeline(t *testing.T, text string, job uint64, parts int, proved bool) {
	t.Helper()
	if !strings.HasPrefix(text, "{") || !strings.HasSuffix(text, "\n]}\n") || !strings.Contains(text, `"traceEvents"`) {
		t.Fatalf("not a whole timeline:\n%s", text)
	}
	name := "cuzkd job "
	if job != 0 {
		name = fmt.Sprintf("cuzkd job %d\"", job)
	}
	for _, want := range []string{name, `"check request"`, `"srs wait"`, fmt.Sprintf(`"partition": %d`, parts-1)} {
		if !strings.Contains(text, want) {
			t.Fatalf("%s missing from the timeline:\n%s", want, text)
		}
	}
	if strings.Contains(text, `"verify"`) != proved {
		t.Fatalf("verify spans: want %v:\n%s", proved, text)
	}
}

func TestTrace(t *testing.T) {
	e := newEnv(t)
	socket, srs := e.startDaemon(t)
	vk, witness := e.circuit(t, srs, "mulchain", "mulchain.params")
	req := Request{SRS: "mulchain.params"}
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	d := readWitness(t, witness).dims
	d.NumPartitions = 2
	buf, err := AllocBuffer(nil, d)
	if err != nil {
		t.Fatal(err)
	}
	defer buf.Free()
	writeInPlace(t, buf, readWitness(t, witness))

	// A connection made without asking for traces refuses traced submits,
	// before anything reaches the daemon.
	plain, err := Connect(socket, nil)
	if err != nil {
		t.Fatal(err)
	}
	f, err := TraceFile()
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := plain.SubmitTraced(buf, req, f); !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), "CUZK_CONNECT_TRACE") {
		t.Fatalf("a traced submit without the connection's flag: %v", err)
	}
	if _, _, err := plain.ProveTraced(ctx, buf, req); !errors.Is(err, ErrUnsupported) {
		t.Fatalf("ProveTraced without the connection's flag: %v", err)
	}
	if st, _ := f.Stat(); st.Size() != 0 {
		t.Fatalf("%d bytes in the trace file", st.Size())
	}
	if p, err := plain.Poll(); p != nil || err != nil {
		t.Fatalf("a refused submit made a completion: %v %v", p, err)
	}
	plain.Close()

	c, err := Connect(socket, &ConnectOptions{Trace: true})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	// SubmitTraced into the caller's file, then Wait: the timeline is whole
	// when the completion arrives, at the file's offset (shared with the
	// daemon's copy of the descriptor).
	s, err := c.SubmitTraced(buf, req, f)
	if err != nil {
		t.Fatal(err)
	}
	done, err := c.Wait(ctx)
	if err != nil || done.RequestID != s.ID || done.Err != nil || done.Message != "" {
		t.Fatalf("wait: %v %+v", err, done)
	}
	e.verify(t, vk, witness, done.Proofs)
	if at, err := f.Seek(0, io.SeekCurrent); err != nil || at == 0 {
		t.Fatalf("the trace file's offset: %d %v", at, err)
	}
	f.Seek(0, io.SeekStart)
	text, err := io.ReadAll(f)
	if err != nil {
		t.Fatal(err)
	}
	checkTimeline(t, string(text), s.JobID, 2, true)

	// ProveTraced: the proofs and the timeline.
	done, timeline, err := c.ProveTraced(ctx, buf, req)
	if err != nil || len(done.Proofs) != 2 {
		t.Fatalf("ProveTraced: %v %+v", err, done)
	}
	e.verify(t, vk, witness, done.Proofs)
	checkTimeline(t, string(timeline), 0, 2, true)

	// A request that fails has its timeline too, up to where it failed: a
	// witness of another circuit fails the shape check before any MSM.
	_, bitsWitness := e.circuit(t, srs, "bits", "bits.params")
	wrong, err := LoadBufferFile(c, bitsWitness)
	if err != nil {
		t.Fatal(err)
	}
	defer wrong.Free()
	done, timeline, err = c.ProveTraced(ctx, wrong, req)
	if !errors.Is(err, ErrMismatch) || done == nil || !errors.Is(done.Err, ErrMismatch) {
		t.Fatalf("a witness of another shape: %v %+v", err, done)
	}
	checkTimeline(t, string(timeline), 0, 1, false)

	// A descriptor the daemon does not write into (a pipe; a file on disk
	// likewise) is a rejection that names the trace fd; nil is refused.
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	defer pw.Close()
	if _, err := c.SubmitTraced(buf, req, pw); !errors.Is(err, ErrBadFd) || !strings.Contains(err.Error(), "trace") {
		t.Fatalf("a pipe for the trace: %v", err)
	}
	if _, err := c.SubmitTraced(buf, req, nil); !errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("no trace file: %v", err)
	}
	// Still serving, traced or not.
	if done, err := c.Prove(ctx, buf, req); err != nil {
		t.Fatal(err)
	} else {
		e.verify(t, vk, witness, done.Proofs)
	}
}

func TestABI(t *testing.T) {
	// include/cuzk.h's (src/client/test_abi.c asserts the same, as does the
	// Rust crate's abi_matches_the_header).
	if got := abiSizes(); got != [2]uintptr{56, 32} {
		t.Errorf("sizes of cuzk_connect_opts, cuzk_submit_opts: %v", got)
	}
	if got := abiOffsets(); got != [6]uintptr{24, 28, 32, 0, 4, 8} {
		t.Errorf("offsets of the 0.3 fields: %v", got)
	}
	if err := error(&Error{Status: 14}); !errors.Is(err, ErrUnsupported) || Status(14).String() != "unsupported" {
		t.Errorf("status 14: %v", err)
	}
}
