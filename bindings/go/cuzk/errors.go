// SPDX-License-Identifier: Apache-2.0 OR MIT

package cuzk

/*
#include <cuzk.h>
*/
import "C"

import "fmt"

// Status is a cuzk status code: the values of docs/PROTOCOL.md ("Errors"),
// shared by libcuzk, the daemon's replies and completions.
type Status int

const (
	StatusInvalidArgument Status = 1
	StatusIO              Status = 2
	StatusOutOfMemory     Status = 3
	StatusFormat          Status = 4
	StatusVersion         Status = 5
	StatusLength          Status = 6
	StatusFlags           Status = 7
	StatusNonCanonical    Status = 8
	StatusNotOnCurve      Status = 9
	StatusNotInSubgroup   Status = 10
	StatusUnsatisfied     Status = 11
	StatusMismatch        Status = 12
	StatusVerifyFailed    Status = 13
	StatusUnsupported     Status = 14
	StatusGPU             Status = 15
	StatusCancelled       Status = 16
	StatusBusy            Status = 17
	StatusNotFound        Status = 18
	StatusPermission      Status = 19
	StatusVRAMBudget      Status = 20
	StatusProtocol        Status = 21
	StatusBadFd           Status = 22
	StatusSeals           Status = 23
	StatusShuttingDown    Status = 24
	StatusInternal        Status = 25
)

// String is libcuzk's short name of the status, e.g. "busy".
func (s Status) String() string {
	return C.GoString(C.cuzk_status_name(C.int(s)))
}

// Error is a failure from libcuzk or the daemon: its status and a one-line
// message naming what failed.  errors.Is(err, cuzk.ErrBusy) compares the
// status only.
type Error struct {
	Status  Status
	Message string
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s (%s)", e.Message, e.Status)
}

// Is matches another *Error of the same status (its message is ignored).
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Status == e.Status
}

// Sentinels for errors.Is.
var (
	ErrInvalidArgument = &Error{Status: StatusInvalidArgument}
	ErrIO              = &Error{Status: StatusIO}
	ErrMismatch        = &Error{Status: StatusMismatch}
	ErrUnsupported     = &Error{Status: StatusUnsupported}
	ErrCancelled       = &Error{Status: StatusCancelled}
	ErrBusy            = &Error{Status: StatusBusy}
	ErrNotFound        = &Error{Status: StatusNotFound}
	ErrPermission      = &Error{Status: StatusPermission}
	ErrVRAMBudget      = &Error{Status: StatusVRAMBudget}
	ErrProtocol        = &Error{Status: StatusProtocol}
	ErrBadFd           = &Error{Status: StatusBadFd}
	ErrShuttingDown    = &Error{Status: StatusShuttingDown}
)

// cError turns a libcuzk return value and its cuzk_error into an *Error.
func cError(rc C.int, e *C.cuzk_error) error {
	code := int(rc)
	if code < 0 {
		code = -code
	}
	return &Error{Status: Status(code), Message: C.GoString(&e.msg[0])}
}
