// SPDX-License-Identifier: Apache-2.0 OR MIT

package cuzk

/*
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdlib.h>
#include <sys/mman.h>
#include <cuzk.h>
*/
import "C"

import (
	"context"
	"fmt"
	"os"
	"unsafe"
)

// TraceFile is a new memory file (a memfd, close-on-exec) for SubmitTraced.
// The daemon writes timelines only into memory files (a memfd, a file on
// tmpfs such as /dev/shm), never into a file on disk.  It writes at the
// file's offset, which this process shares: once the completion arrived,
// read from where the offset was (0 for a new file: f.ReadAt or
// f.Seek(0, io.SeekStart) then io.ReadAll).  Close it when done.
func TraceFile() (*os.File, error) {
	name := C.CString("cuzk-trace")
	defer C.free(unsafe.Pointer(name))
	fd, err := C.memfd_create(name, C.MFD_CLOEXEC)
	if fd < 0 {
		return nil, &Error{Status: StatusIO, Message: fmt.Sprintf("memfd_create: %v", err)}
	}
	return os.NewFile(uintptr(fd), "cuzk-trace"), nil
}

// SubmitTraced is Submit asking the daemon to write the request's timeline
// (Chrome trace-event JSON: docs/OPERATIONS.md, "Timelines of requests")
// into trace before it posts the completion, whatever the request's
// outcome.  trace is a TraceFile, or another memory file open for writing;
// the caller keeps it.  The connection must have been made with
// ConnectOptions.Trace, else ErrUnsupported; a file the daemon refuses (on
// disk, a pipe or socket, read-only: StatusBadFd; sealed: StatusSeals) is a
// rejection whose message names the trace fd.  ProveTraced does it all and
// returns the timeline.
func (c *Client) SubmitTraced(b *Buffer, r Request, trace *os.File) (Submitted, error) {
	if trace == nil {
		return Submitted{}, &Error{Status: StatusInvalidArgument, Message: "SubmitTraced: trace is nil"}
	}
	raw, err := trace.SyscallConn()
	if err != nil {
		return Submitted{}, &Error{Status: StatusInvalidArgument, Message: fmt.Sprintf("trace file: %v", err)}
	}
	var s Submitted
	var serr error
	// Control keeps the descriptor open for the call.
	if err := raw.Control(func(fd uintptr) {
		opts := C.struct_cuzk_submit_opts{flags: C.CUZK_SUBMIT_TRACE, trace_fd: C.int32_t(fd)}
		s, serr = c.submit(b, r, &opts)
	}); err != nil {
		return Submitted{}, &Error{Status: StatusInvalidArgument, Message: fmt.Sprintf("trace file: %v", err)}
	}
	return s, serr
}

// ProveTraced is Prove with the request's timeline: it makes a TraceFile
// for the request and returns the completion, the timeline (Chrome
// trace-event JSON; a failed request has one too, up to where it failed)
// and Prove's error.  The timeline is nil when the daemon did not write it
// (whole): when the proofs were made, done.Message then says why ("trace
// not written: ...").  The connection must have been made with ConnectOptions.Trace.
func (c *Client) ProveTraced(ctx context.Context, b *Buffer, r Request) (done *Completion, timeline []byte, err error) {
	f, err := TraceFile()
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	done, err = c.prove(ctx, b, r, f)
	if done == nil {
		return nil, nil, err
	}
	if done.Err == nil && done.Message != "" {
		// A proved request with a message: its timeline was not written
		// (or not whole).
		return done, nil, err
	}
	timeline, terr := readTimeline(f)
	if err == nil {
		err = terr
	}
	return done, timeline, err
}

// readTimeline is the whole of a trace memfd ProveTraced made, or nil.
func readTimeline(f *os.File) ([]byte, error) {
	st, err := f.Stat()
	if err != nil {
		return nil, &Error{Status: StatusIO, Message: fmt.Sprintf("trace memfd: %v", err)}
	}
	if st.Size() == 0 {
		return nil, nil
	}
	b := make([]byte, st.Size())
	if _, err := f.ReadAt(b, 0); err != nil {
		return nil, &Error{Status: StatusIO, Message: fmt.Sprintf("trace memfd: %v", err)}
	}
	return b, nil
}

// abiSizes and abiOffsets are the header's, for TestABI: the sizes of
// cuzk_connect_opts and cuzk_submit_opts, and the offsets of the former's
// flags, reserved0 and reserved and the latter's flags, trace_fd and
// reserved.
func abiSizes() [2]uintptr {
	return [2]uintptr{C.sizeof_struct_cuzk_connect_opts, C.sizeof_struct_cuzk_submit_opts}
}

func abiOffsets() [6]uintptr {
	var c C.struct_cuzk_connect_opts
	var s C.struct_cuzk_submit_opts
	return [6]uintptr{unsafe.Offsetof(c.flags), unsafe.Offsetof(c.reserved0), unsafe.Offsetof(c.reserved),
		unsafe.Offsetof(s.flags), unsafe.Offsetof(s.trace_fd), unsafe.Offsetof(s.reserved)}
}
