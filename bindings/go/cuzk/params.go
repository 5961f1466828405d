// SPDX-License-Identifier: Apache-2.0 OR MIT

package cuzk

/*
#include <stdlib.h>
#include <cuzk.h>
*/
import "C"

import (
	"fmt"
	"strconv"
	"strings"
	"unsafe"
)

// Kinds are Filecoin's circuits by name; a Request may name one instead of
// a parameter file, and the daemon serves its v28 file.
var Kinds = []string{
	"porep-32g", "porep-64g", "window-post-32g", "window-post-64g",
	"winning-post-32g", "winning-post-64g", "snap-32g", "snap-64g",
}

// KindParams is Filecoin's v28 parameter file name for kind, and false when
// kind is not one of Kinds.
func KindParams(kind string) (string, bool) {
	k := C.CString(kind)
	defer C.free(unsafe.Pointer(k))
	p := C.cuzk_kind_params(k)
	if p == nil {
		return "", false
	}
	return C.GoString(p), true
}

// ParamFile is one line of the daemon's listing (`cuzk params list`;
// docs/PROTOCOL.md, STATUS format PARAMS).  Numbers are -1 when unknown.
type ParamFile struct {
	Kind   string // "" when the file is no kind's
	Name   string
	Dir    string // "" for an absent kind
	Bytes  int64
	Domain int64 // evaluation domain: at most this many constraints, input rows included
	Inputs int64 // the constant 1 included
	Aux    int64
	State  string // loaded, loading, available, absent, or error
	Error  string // why, when State is "error"
}

// Params lists the parameter files the daemon serves.
func (c *Client) Params() ([]ParamFile, error) {
	text, err := c.text(statusParams, false)
	if err != nil {
		return nil, err
	}
	return parseParams(text)
}

func parseParams(text string) ([]ParamFile, error) {
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	num := func(s string) int64 {
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return -1
		}
		return v
	}
	dash := func(s string) string {
		if s == "-" {
			return ""
		}
		return s
	}
	var out []ParamFile
	for _, l := range lines[1:] {
		f := strings.Split(l, "\t")
		if len(f) != 8 {
			return nil, &Error{Status: StatusProtocol, Message: fmt.Sprintf("params listing: malformed line %q", l)}
		}
		p := ParamFile{Kind: dash(f[0]), Name: f[1], Dir: dash(f[2]), Bytes: num(f[3]), Domain: num(f[4]),
			Inputs: num(f[5]), Aux: num(f[6]), State: f[7]}
		if strings.HasPrefix(p.State, "error: ") {
			p.State, p.Error = "error", strings.TrimPrefix(f[7], "error: ")
		}
		out = append(out, p)
	}
	return out, nil
}
