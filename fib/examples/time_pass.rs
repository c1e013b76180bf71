//! Times the Fib pass on generated collector traces (rank 0 takes every
//! other rank's message each round, a third of the rounds with
//! `MPI_ANY_SOURCE`, a barrier every fourth round) of about 10 000, 100 000
//! and 1 000 000 calls, and prints calls per second:
//!
//! ```sh
//! cargo run --release -p fib --example time_pass
//! ```

#[path = "../tests/common/collector.rs"]
mod collector;

use std::time::Instant;

use collector::{trace, Shape};

fn main() {
    for calls in [10_000usize, 100_000, 1_000_000] {
        let ranks = 8;
        let shape = Shape {
            ranks,
            rounds: calls / (2 * (ranks - 1)),
            barrier_every: 4,
            wildcard_every: 3,
        };
        let (ops, fired) = trace(shape);
        let t = Instant::now();
        let a = fib::analyze(&ops, &fired);
        let each = t.elapsed();
        let t = Instant::now();
        let g = fib::analyze_grouped(&ops, &fired, &|m| ops[m[0].rank][m[0].index].site);
        let one = t.elapsed();
        assert_eq!(a.relevant.len(), shape.relevant());
        assert_eq!(g.relevant.len(), 1);
        let n = shape.calls();
        println!(
            "{n:>9} calls, {:>6} barriers, {:>6} relevant: {:>8.1} ms ({:>5.2} M calls/s); one group: {:>8.1} ms",
            a.barriers.len(),
            a.relevant.len(),
            each.as_secs_f64() * 1e3,
            n as f64 / each.as_secs_f64() / 1e6,
            one.as_secs_f64() * 1e3,
        );
    }
}
