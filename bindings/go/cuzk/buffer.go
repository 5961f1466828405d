// SPDX-License-Identifier: Apache-2.0 OR MIT

package cuzk

/*
#include <stdlib.h>
#include <cuzk.h>
*/
import "C"

import (
	"fmt"
	"math/big"
	"unsafe"
)

// Scalar is one element of BLS12-381's scalar field as a witness section
// holds it: four little-endian 64-bit limbs, in Montgomery form (x·2^256 mod
// r, as bellperson and blstrs keep scalars) in a buffer with Dims.Montgomery
// set, canonical otherwise.
type Scalar [4]uint64

// Modulus is r, the order of BLS12-381's scalar field.
var Modulus, _ = new(big.Int).SetString("73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001", 16)

var montR = new(big.Int).Lsh(big.NewInt(1), 256)

func limbsOf(x *big.Int) Scalar {
	var s Scalar
	b := x.FillBytes(make([]byte, 32))
	for i := 0; i < 4; i++ {
		for j := 0; j < 8; j++ {
			s[i] |= uint64(b[31-8*i-j]) << (8 * j)
		}
	}
	return s
}

func (s Scalar) bigInt() *big.Int {
	b := make([]byte, 32)
	for i := 0; i < 4; i++ {
		for j := 0; j < 8; j++ {
			b[31-8*i-j] = byte(s[i] >> (8 * j))
		}
	}
	return new(big.Int).SetBytes(b)
}

// MontgomeryScalar is x mod r in Montgomery form.
func MontgomeryScalar(x *big.Int) Scalar {
	v := new(big.Int).Mul(new(big.Int).Mod(x, Modulus), montR)
	return limbsOf(v.Mod(v, Modulus))
}

// CanonicalScalar is x mod r as an integer.
func CanonicalScalar(x *big.Int) Scalar {
	return limbsOf(new(big.Int).Mod(x, Modulus))
}

// FromMontgomery is the integer a Montgomery-form scalar stands for.
func (s Scalar) FromMontgomery() *big.Int {
	inv := new(big.Int).ModInverse(montR, Modulus)
	v := new(big.Int).Mul(s.bigInt(), inv)
	return v.Mod(v, Modulus)
}

// Dims is the shape of every partition of a buffer.
type Dims struct {
	NumConstraints uint64 // a, b, c length: the circuit's constraints plus one per public input
	NumInputs      uint64 // public inputs, the constant 1 included
	NumAux         uint64
	NumPartitions  uint32
	Montgomery     bool // scalars in Montgomery form (what bellperson writes)
}

// PartitionBytes is what one partition's sections take in a buffer: a, b,
// c, inputs and aux at 32 bytes a scalar, three density bitmaps at a bit a
// variable, each section rounded up to 64 bytes.
func (d Dims) PartitionBytes() uint64 {
	round := func(n uint64) uint64 { return (n + 63) / 64 * 64 }
	words := func(bits uint64) uint64 { return (bits + 63) / 64 * 8 }
	return 3*round(32*d.NumConstraints) + round(32*d.NumInputs) + round(32*d.NumAux) +
		2*round(words(d.NumAux)) + round(words(d.NumInputs))
}

// PageKind says which pages back a buffer (docs/OPERATIONS.md, "Huge pages
// for witness buffers").
type PageKind int

const (
	PagesHugeTLB PageKind = 0 // MFD_HUGETLB, from the hugetlb pool
	PagesTHP     PageKind = 1 // shmem with MADV_HUGEPAGE
	PagesSmall   PageKind = 2 // 4 KiB pages
)

// Partition is one partition's sections: slices straight over the mapped
// memfd, so what is written here is what the daemon reads.  They stay valid
// until the buffer is freed, and must not be written while a proof of the
// buffer runs.
type Partition struct {
	A, B, C       []Scalar
	Input         []Scalar // Input[0] is the constant 1
	Aux           []Scalar
	AAuxDensity   []uint64 // bit i of word i/64: aux i is in some A
	BInputDensity []uint64
	BAuxDensity   []uint64
}

// Buffer is a witness buffer: a memfd libcuzk created and mapped.  Reuse it
// for proof after proof (its pages are faulted in and pinned once); Free it
// when done: it holds memory the garbage collector does not see.
type Buffer struct {
	b    *C.cuzk_buffer
	dims Dims
}

func (d Dims) c() C.struct_cuzk_dims {
	var cd C.struct_cuzk_dims
	cd.num_constraints = C.uint64_t(d.NumConstraints)
	cd.num_inputs = C.uint64_t(d.NumInputs)
	cd.num_aux = C.uint64_t(d.NumAux)
	cd.num_partitions = C.uint32_t(d.NumPartitions)
	if d.Montgomery {
		cd.flags = C.CUZK_WITNESS_FLAG_MONTGOMERY
	}
	return cd
}

func clientPtr(c *Client) *C.cuzk_client {
	if c == nil {
		return nil
	}
	return c.c
}

// AllocBuffer allocates a buffer of these dims.  c may be nil; given, it
// logs why the buffer did not get huge pages, if it did not.
func AllocBuffer(c *Client, d Dims) (*Buffer, error) {
	cd := d.c()
	var b *C.cuzk_buffer
	var e C.cuzk_error
	if rc := C.cuzk_buffer_alloc(clientPtr(c), &b, &cd, &e); rc < 0 {
		return nil, cError(rc, &e)
	}
	return &Buffer{b: b, dims: d}, nil
}

// LoadBufferFile allocates a buffer shaped like a witness file (as `cuzk
// synth` writes it) and copies the file in: one copy of every byte, for
// tools and tests.
func LoadBufferFile(c *Client, path string) (*Buffer, error) {
	p := C.CString(path)
	defer C.free(unsafe.Pointer(p))
	var b *C.cuzk_buffer
	var e C.cuzk_error
	if rc := C.cuzk_buffer_load_file(clientPtr(c), &b, p, &e); rc < 0 {
		return nil, cError(rc, &e)
	}
	buf := &Buffer{b: b}
	h := buf.Bytes()[:64]
	le := func(o, n int) uint64 {
		var v uint64
		for i := n - 1; i >= 0; i-- {
			v = v<<8 | uint64(h[o+i])
		}
		return v
	}
	buf.dims = Dims{NumConstraints: le(24, 8), NumInputs: le(32, 8), NumAux: le(40, 8),
		NumPartitions: uint32(le(16, 4)), Montgomery: le(12, 4)&1 != 0}
	return buf, nil
}

// Dims is the buffer's shape.
func (b *Buffer) Dims() Dims { return b.dims }

// Bytes is the whole mapping (header, partition table, sections), in whole
// pages: what the daemon receives.
func (b *Buffer) Bytes() []byte {
	return unsafe.Slice((*byte)(C.cuzk_buffer_data(b.b)), int(C.cuzk_buffer_size(b.b)))
}

// Pages says which pages the buffer got.
func (b *Buffer) Pages() PageKind { return PageKind(C.cuzk_buffer_pages(b.b)) }

// Fd is the memfd (owned by the buffer).
func (b *Buffer) Fd() int { return int(C.cuzk_buffer_fd(b.b)) }

func scalars(p unsafe.Pointer, n uint64) []Scalar {
	if n == 0 {
		return nil
	}
	return unsafe.Slice((*Scalar)(p), int(n))
}

func words(p *C.uint64_t, bits uint64) []uint64 {
	if bits == 0 {
		return nil
	}
	return unsafe.Slice((*uint64)(unsafe.Pointer(p)), int((bits+63)/64))
}

// Partition returns partition i's sections.
func (b *Buffer) Partition(i int) (*Partition, error) {
	var p C.struct_cuzk_partition
	if i < 0 || i > int(^uint32(0)) || C.cuzk_buffer_partition(b.b, C.uint32_t(i), &p) < 0 {
		return nil, &Error{Status: StatusInvalidArgument,
			Message: fmt.Sprintf("partition %d of a buffer of %d", i, b.dims.NumPartitions)}
	}
	d := b.dims
	return &Partition{
		A:             scalars(p.a, d.NumConstraints),
		B:             scalars(p.b, d.NumConstraints),
		C:             scalars(p.c, d.NumConstraints),
		Input:         scalars(p.input, d.NumInputs),
		Aux:           scalars(p.aux, d.NumAux),
		AAuxDensity:   words(p.a_aux_density, d.NumAux),
		BInputDensity: words(p.b_input_density, d.NumInputs),
		BAuxDensity:   words(p.b_aux_density, d.NumAux),
	}, nil
}

// Free unmaps and closes the buffer.  Safe while a proof of it runs (the
// daemon holds its own reference); the partitions' slices die with it.
func (b *Buffer) Free() {
	if b.b != nil {
		C.cuzk_buffer_free(b.b)
		b.b = nil
	}
}
