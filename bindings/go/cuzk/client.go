// SPDX-License-Identifier: Apache-2.0 OR MIT

// Package cuzk is a client of cuzkd, the Groth16 proving service for
// BLS12-381, over libcuzk (cgo; include/cuzk.h).  A witness is written in
// place into a Buffer (a memfd the daemon maps too: no serialisation, no
// copy), submitted, and its proofs come back through shared memory.
//
//	c, err := cuzk.Connect("/run/cuzk/cuzkd.sock", nil)
//	buf, err := cuzk.AllocBuffer(c, dims)         // once: reuse it
//	p, err := buf.Partition(0)                     // write p.A, p.B, p.C, p.Input, p.Aux, densities
//	done, err := c.Prove(ctx, buf, cuzk.Request{SRS: "porep-32g", Priority: cuzk.PriorityHigh})
//	// done.Proofs[i]: 192 bytes per partition
//
// A request's timeline (Chrome trace-event JSON): connect with
// ConnectOptions{Trace: true}, then ProveTraced (the timeline returned), or
// SubmitTraced with a TraceFile or another memory file of yours.
//
// docs/CLIENTS.md has a complete example.
package cuzk

/*
#cgo LDFLAGS: -lcuzk
#include <stdlib.h>
#include <cuzk.h>
*/
import "C"

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"syscall"
	"time"
	"unsafe"
)

// ProofBytes is the size of one proof: A (compressed G1) ‖ B (G2) ‖ C (G1),
// bellperson's encoding.
const ProofBytes = C.CUZK_PROOF_BYTES

// Priority orders the daemon's queue; FIFO within one priority.
type Priority uint32

const (
	PriorityCritical Priority = 0 // WinningPoSt: seconds to land on chain
	PriorityHigh     Priority = 1
	PriorityNormal   Priority = 2
	PriorityLow      Priority = 3
)

// Phase indexes Completion.PhaseNs.
type Phase int

const (
	PhaseCheck Phase = iota
	PhaseQueue
	PhaseSRS
	PhaseRegister
	PhaseUpload
	PhaseNTT
	PhaseMSM
	PhaseAssemble
	PhaseTotal
)

// Request says what to prove a buffer with.
type Request struct {
	// SRS is a parameter file's name in the daemon's srs_dir directories,
	// or a proof kind: "porep-32g", "window-post-32g", "winning-post-32g",
	// "snap-32g", and the -64g ones (KindParams).
	SRS      string
	Priority Priority
	// FixedRS, for tests only: r and s from Seed, so that proofs of one
	// witness compare byte for byte; such proofs are not zero-knowledge.
	FixedRS bool
	Seed    uint64
}

// Submitted identifies an accepted request: ID is this connection's (its
// completion carries it), JobID the daemon's (logs, `cuzk cancel`).
type Submitted struct {
	ID    uint64
	JobID uint64
}

// Completion is a finished request: Proofs (one per partition) when Err is
// nil, the daemon's error otherwise.
type Completion struct {
	RequestID uint64
	Err       error
	Proofs    [][ProofBytes]byte
	PhaseNs   [C.CUZK_PHASE_SLOTS]uint64
	// Message is the daemon's one-line message: on failure the error's
	// (also in Err); on success "", except for a traced request whose
	// timeline could not be written ("trace not written: ...": the proofs
	// are still there).
	Message string
}

// Phase is how long the request spent in phase p.
func (c *Completion) Phase(p Phase) time.Duration { return time.Duration(c.PhaseNs[p]) }

// Limits are the daemon's limits for this connection.
type Limits struct {
	MaxInflight     uint32
	MaxPartitions   uint32
	MaxWitnessBytes uint64
	RingSlots       uint32
}

// ConnectOptions are wishes for the connection; 0: the daemon's default.
type ConnectOptions struct {
	MaxInflight uint32
	RingSlots   uint32
	// Trace: this connection will ask for timelines (SubmitTraced,
	// ProveTraced; libcuzk's CUZK_CONNECT_TRACE).  A cuzkd older than
	// traces refuses such a connection (StatusProtocol, "unknown flags"):
	// set it only when a timeline is wanted.
	Trace bool
}

// Client is a connection to cuzkd.  Its methods may be called from several
// goroutines; Prove is made for that.  Use either Prove or Submit with
// Wait/Poll on one client, not both: Prove's dispatcher takes every
// completion.  Close must be the last call.
type Client struct {
	c *C.cuzk_client

	mu          sync.Mutex
	closed      bool
	pending     map[uint64]chan *Completion
	dispatching bool
	stopR       int // the dispatcher's wake-up (a pipe)
	stopW       int
	stopped     chan struct{}
}

// Connect connects to the daemon's socket (e.g. /run/cuzk/cuzkd.sock).
// opts may be nil.
func Connect(socket string, opts *ConnectOptions) (*Client, error) {
	p := C.CString(socket)
	defer C.free(unsafe.Pointer(p))
	var o C.struct_cuzk_connect_opts
	if opts != nil {
		o.max_inflight = C.uint32_t(opts.MaxInflight)
		o.ring_slots = C.uint32_t(opts.RingSlots)
		if opts.Trace {
			o.flags = C.CUZK_CONNECT_TRACE
		}
	}
	var c *C.cuzk_client
	var e C.cuzk_error
	if rc := C.cuzk_connect(&c, p, &o, &e); rc < 0 {
		return nil, cError(rc, &e)
	}
	return &Client{c: c, pending: map[uint64]chan *Completion{}, stopR: -1, stopW: -1}, nil
}

var errClosed = &Error{Status: StatusInvalidArgument, Message: "the client is closed"}

// Limits returns the daemon's limits for this connection.
func (c *Client) Limits() Limits {
	var l C.struct_cuzk_limits
	C.cuzk_client_limits(c.c, &l)
	return Limits{uint32(l.max_inflight), uint32(l.max_partitions), uint64(l.max_witness_bytes), uint32(l.ring_slots)}
}

// Submit seals the buffer and sends it.  The daemon checks it before it
// answers, so a rejection (unknown SRS, bad shape, a limit) is an error here
// and produces no completion; an accepted request produces exactly one.
// Do not write the buffer until its completion arrived.
func (c *Client) Submit(b *Buffer, r Request) (Submitted, error) {
	return c.submit(b, r, nil)
}

// submit is cuzk_submit_ex; opts may be nil (then it is cuzk_submit).
func (c *Client) submit(b *Buffer, r Request, opts *C.struct_cuzk_submit_opts) (Submitted, error) {
	if strings.IndexByte(r.SRS, 0) >= 0 {
		return Submitted{}, &Error{Status: StatusInvalidArgument, Message: "SRS name contains a NUL byte"}
	}
	srs := C.CString(r.SRS)
	defer C.free(unsafe.Pointer(srs))
	var req C.struct_cuzk_request
	req.srs = srs
	req.priority = C.uint32_t(r.Priority)
	if r.FixedRS {
		req.flags = C.CUZK_REQ_FIXED_RS
		req.seed = C.uint64_t(r.Seed)
	}
	var id, job C.uint64_t
	var e C.cuzk_error
	if rc := C.cuzk_submit_ex(c.c, b.b, &req, opts, &id, &job, &e); rc < 0 {
		return Submitted{}, cError(rc, &e)
	}
	return Submitted{ID: uint64(id), JobID: uint64(job)}, nil
}

func completionOf(cc *C.struct_cuzk_completion) *Completion {
	out := &Completion{RequestID: uint64(cc.request_id), Message: C.GoString(&cc.message[0])}
	for i := range out.PhaseNs {
		out.PhaseNs[i] = uint64(cc.phase_ns[i])
	}
	if cc.status != 0 {
		out.Err = &Error{Status: Status(cc.status), Message: out.Message}
		return out
	}
	out.Proofs = make([][ProofBytes]byte, int(cc.num_partitions))
	for i := range out.Proofs {
		copy(out.Proofs[i][:], C.GoBytes(unsafe.Pointer(&cc.proof[i][0]), ProofBytes))
	}
	return out
}

// waitFd is cuzk_wait_fd with the completion in C memory (12.7 KiB).
func (c *Client) waitFd(timeoutMs int, wakeFd int) (*Completion, error) {
	cc := (*C.struct_cuzk_completion)(C.malloc(C.sizeof_struct_cuzk_completion))
	defer C.free(unsafe.Pointer(cc))
	var e C.cuzk_error
	rc := C.cuzk_wait_fd(c.c, cc, C.int(timeoutMs), C.int(wakeFd), &e)
	if rc < 0 {
		return nil, cError(rc, &e)
	}
	if rc == 0 {
		return nil, nil
	}
	return completionOf(cc), nil
}

func (c *Client) dispatcherRunning() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.dispatching
}

// Poll returns a completion if one is waiting, or nil; it never sleeps.
func (c *Client) Poll() (*Completion, error) {
	if c.dispatcherRunning() {
		return nil, &Error{Status: StatusInvalidArgument, Message: "Poll on a client that Prove uses"}
	}
	return c.waitFd(0, -1)
}

// Wait returns the next completion, sleeping until one arrives or ctx is
// done (then ctx.Err()).  An error when the daemon closed the connection.
func (c *Client) Wait(ctx context.Context) (*Completion, error) {
	if c.dispatcherRunning() {
		return nil, &Error{Status: StatusInvalidArgument, Message: "Wait on a client that Prove uses"}
	}
	if ctx.Done() == nil {
		return c.waitFd(-1, -1)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	// ctx's cancellation reaches libcuzk's poll through a pipe.
	var p [2]int
	if err := syscall.Pipe2(p[:], syscall.O_CLOEXEC|syscall.O_NONBLOCK); err != nil {
		return nil, &Error{Status: StatusIO, Message: fmt.Sprintf("pipe2: %v", err)}
	}
	stop, gone := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(gone)
		select {
		case <-ctx.Done():
			syscall.Write(p[1], []byte{1})
		case <-stop:
		}
	}()
	comp, err := c.waitFd(-1, p[0])
	close(stop)
	<-gone
	syscall.Close(p[0])
	syscall.Close(p[1])
	if e, ok := err.(*Error); ok && e.Status == StatusCancelled && ctx.Err() != nil {
		return nil, ctx.Err()
	}
	return comp, err
}

// Prove submits the buffer and waits for its completion, or for ctx: when
// ctx is done first, the request is cancelled, its completion awaited, and
// ctx.Err() returned.  Any number of goroutines may Prove on one client; a
// dispatcher goroutine (started on first use, stopped by Close) hands each
// its completion.  The error is the submission's rejection or the
// completion's failure (errors.Is(err, cuzk.ErrBusy), ...).
func (c *Client) Prove(ctx context.Context, b *Buffer, r Request) (*Completion, error) {
	return c.prove(ctx, b, r, nil)
}

// prove is Prove, traced into trace unless it is nil.
func (c *Client) prove(ctx context.Context, b *Buffer, r Request, trace *os.File) (*Completion, error) {
	ch := make(chan *Completion, 1)
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil, errClosed
	}
	// Submitted and registered under mu: the dispatcher, which routes
	// under mu, cannot see this completion before it is registered.
	var s Submitted
	var err error
	if trace != nil {
		s, err = c.SubmitTraced(b, r, trace)
	} else {
		s, err = c.Submit(b, r)
	}
	if err != nil {
		c.mu.Unlock()
		return nil, err
	}
	c.pending[s.ID] = ch
	if !c.dispatching {
		if err := c.startDispatcher(); err != nil {
			delete(c.pending, s.ID)
			c.mu.Unlock()
			c.Cancel(s.ID)
			return nil, err
		}
	}
	c.mu.Unlock()
	select {
	case comp := <-ch:
		return comp, comp.Err
	case <-ctx.Done():
		c.Cancel(s.ID) // NotFound: it completed meanwhile
		comp := <-ch
		return comp, ctx.Err()
	}
}

// startDispatcher runs with mu held.
func (c *Client) startDispatcher() error {
	if c.stopR < 0 {
		var p [2]int
		if err := syscall.Pipe2(p[:], syscall.O_CLOEXEC|syscall.O_NONBLOCK); err != nil {
			return &Error{Status: StatusIO, Message: fmt.Sprintf("pipe2: %v", err)}
		}
		c.stopR, c.stopW = p[0], p[1]
	}
	c.dispatching = true
	c.stopped = make(chan struct{})
	go c.dispatch()
	return nil
}

// dispatch sleeps in libcuzk for every Prove and routes each completion to
// its caller; on a broken connection it fails them all.
func (c *Client) dispatch() {
	defer close(c.stopped)
	for {
		comp, err := c.waitFd(-1, c.stopR)
		c.mu.Lock()
		if err != nil {
			if c.closed {
				err = errClosed
			}
			for id, ch := range c.pending {
				ch <- &Completion{RequestID: id, Err: err}
				delete(c.pending, id)
			}
			c.dispatching = false
			c.mu.Unlock()
			return
		}
		if comp != nil {
			if ch, ok := c.pending[comp.RequestID]; ok {
				ch <- comp
				delete(c.pending, comp.RequestID)
			}
		}
		c.mu.Unlock()
	}
}

// Cancel cancels an accepted request of this connection; its completion
// still arrives (cancelled, or its result if it finished first).
// ErrNotFound when it already completed.
func (c *Client) Cancel(id uint64) error {
	var e C.cuzk_error
	if rc := C.cuzk_cancel(c.c, C.uint64_t(id), &e); rc < 0 {
		return cError(rc, &e)
	}
	return nil
}

// CancelJob cancels a daemon job by its job id, possibly another
// connection's (allowed to the job owner's uid and to root).
func (c *Client) CancelJob(jobID uint64) error {
	var e C.cuzk_error
	if rc := C.cuzk_cancel_job(c.c, C.uint64_t(jobID), &e); rc < 0 {
		return cError(rc, &e)
	}
	return nil
}

const (
	statusText   = 0
	statusJSON   = 1
	statusParams = 2
)

func (c *Client) text(format int, metrics bool) (string, error) {
	var p *C.char
	var n C.size_t
	var e C.cuzk_error
	var rc C.int
	if metrics {
		rc = C.cuzk_daemon_metrics(c.c, &p, &n, &e)
	} else {
		rc = C.cuzk_daemon_status(c.c, uint32(format), &p, &n, &e)
	}
	if rc < 0 {
		return "", cError(rc, &e)
	}
	defer C.free(unsafe.Pointer(p))
	return C.GoStringN(p, C.int(n)), nil
}

// Status is the daemon's status (queues, workers, devices, caches), as
// text or JSON.
func (c *Client) Status(json bool) (string, error) {
	if json {
		return c.text(statusJSON, false)
	}
	return c.text(statusText, false)
}

// Metrics is the daemon's Prometheus text.
func (c *Client) Metrics() (string, error) { return c.text(0, true) }

// EventFd is the eventfd the daemon signals after writing completions, for
// callers with their own poll loop (then call Poll until it returns nil).
func (c *Client) EventFd() int { return int(C.cuzk_client_eventfd(c.c)) }

// Close stops Prove's dispatcher (its callers get an error) and
// disconnects; the daemon cancels what is still in flight.  No other call
// on the client may run meanwhile or after.
func (c *Client) Close() error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.closed = true
	running, stopped := c.dispatching, c.stopped
	c.mu.Unlock()
	if running {
		syscall.Write(c.stopW, []byte{1})
		<-stopped
	}
	C.cuzk_disconnect(c.c)
	if c.stopR >= 0 {
		syscall.Close(c.stopR)
		syscall.Close(c.stopW)
	}
	return nil
}
