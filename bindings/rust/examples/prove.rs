// SPDX-License-Identifier: Apache-2.0 OR MIT
//! A client that proves through cuzkd: one buffer allocated once and reused,
//! every partition synthesized on its own thread straight into the buffer,
//! then proved.  docs/CLIENTS.md shows this file.
//!
//!   cargo run --example prove -- /run/cuzk/cuzkd.sock porep-32g
//!
//! The circuit here is a stand-in (x·x = y, y public, per partition): put
//! yours in `synthesize`, and name its parameters (a file in the daemon's
//! srs_dir, or a kind such as porep-32g) on the command line.

use cuzk::{Client, ConstraintWriter, Dims, Fr, Priority, Request};

/// One partition of the circuit, written as it is synthesized.
fn synthesize(w: &mut ConstraintWriter<'_>, x: u64) -> cuzk::Result<()> {
    let y = w.alloc_input(Fr::from_u64(x * x))?;
    let x = w.alloc_aux(Fr::from_u64(x))?;
    w.enforce([(x, Fr::ONE)], [(x, Fr::ONE)], [(y, Fr::ONE)])?;
    Ok(())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let socket = args.get(1).map_or("/run/cuzk/cuzkd.sock", String::as_str);
    let srs = args.get(2).map_or("porep-32g", String::as_str);

    let client = Client::connect(socket)?;
    // Per partition: 1 constraint, 2 inputs (the constant 1 and y), 1 aux.
    let dims = Dims::for_circuit(1, 2, 1, 2);
    // Allocate once: a reused buffer costs neither page faults nor pinning.
    let mut buf = client.alloc(&dims)?;
    println!("buffer: {} bytes on {:?} pages", buf.as_bytes().len(), buf.pages());

    for round in 0..3u64 {
        // Every partition at once, each on its own thread.
        let parts = buf.partitions_mut()?;
        std::thread::scope(|s| {
            let jobs: Vec<_> = parts
                .into_iter()
                .enumerate()
                .map(|(i, part)| {
                    s.spawn(move || -> cuzk::Result<()> {
                        let mut w = ConstraintWriter::new(part)?;
                        synthesize(&mut w, 3 + round + i as u64)?;
                        w.finish()
                    })
                })
                .collect();
            jobs.into_iter().try_for_each(|j| j.join().expect("a synthesis thread panicked"))
        })?;
        // Blocks until the daemon answers; the buffer must not be written
        // meanwhile.  Several threads may call prove on one client.
        match client.prove(&buf, &Request::new(srs).priority(Priority::High)) {
            Ok(proofs) => println!("round {}: {} proofs of 192 bytes", round, proofs.len()),
            Err(e) if e.kind() == cuzk::ErrorKind::Busy => eprintln!("round {}: daemon busy, retry later: {}", round, e),
            Err(e) => return Err(e.into()),
        }
    }
    Ok(())
}
