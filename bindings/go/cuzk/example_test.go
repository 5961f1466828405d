// SPDX-License-Identifier: Apache-2.0 OR MIT

package cuzk_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"math/big"
	"time"

	"cuzk.dev/cuzk"
)

// A scheduler's proving task (Curio's, say): one buffer reused for every
// proof of a shape, the witness written in place, a deadline on the proof.
// docs/CLIENTS.md shows this example.
func Example() {
	c, err := cuzk.Connect("/run/cuzk/cuzkd.sock", nil)
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()

	// PoRep 32 GiB: 10 partitions of about this shape (take the exact counts
	// from your circuit; `cuzk params list` shows the parameters' inputs and
	// aux).  Allocate once and keep the buffer in a pool.
	dims := cuzk.Dims{NumConstraints: 130_278_869, NumInputs: 328, NumAux: 130_169_893,
		NumPartitions: 10, Montgomery: true}
	buf, err := cuzk.AllocBuffer(c, dims)
	if err != nil {
		log.Fatal(err)
	}
	defer buf.Free()
	fmt.Printf("%d GiB per partition, %v pages\n", dims.PartitionBytes()>>30, buf.Pages())

	for i := 0; i < int(dims.NumPartitions); i++ {
		p, err := buf.Partition(i)
		if err != nil {
			log.Fatal(err)
		}
		// Write p.A, p.B, p.C, p.Input, p.Aux and the three density bitmaps
		// here (a synthesizer writes them in place; see the Rust crate's
		// ConstraintWriter).  p.Input[0] is the constant 1.
		p.Input[0] = cuzk.MontgomeryScalar(big.NewInt(1))
	}

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	done, err := c.Prove(ctx, buf, cuzk.Request{SRS: "porep-32g", Priority: cuzk.PriorityHigh})
	switch {
	case errors.Is(err, cuzk.ErrBusy):
		log.Print("cuzkd is at a limit: retry later")
	case errors.Is(err, context.DeadlineExceeded):
		log.Print("cancelled after the deadline")
	case err != nil:
		log.Fatal(err)
	default:
		fmt.Printf("%d proofs, %v in the daemon\n", len(done.Proofs), done.Phase(cuzk.PhaseTotal))
	}
}
