//! Times the engine alone on a ping-pong's calls, with and without
//! buffering, fed as `poe::sim` feeds a run's calls: what a call costs the
//! scheduler apart from MPI, the sockets and the ranks.
//!
//! `cargo run --release -p poe --example time_engine [ROUNDS]` (default
//! 50 000 round trips, 200 000 calls); `scripts/bench.sh` runs it.

use std::time::Instant;

// The `fib` binary's allocator, so that the engine is timed as it runs there.
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

use fib_wire::{Op, SendMode, Site};
use poe::engine::Config;
use poe::sim::rerun_calls;

/// Two ranks' calls: rank 0 sends and receives, rank 1 receives and sends
/// back, `rounds` times, then both finalize.
fn pingpong(rounds: u32) -> Vec<Vec<(Site, Op)>> {
    let send = |dest| Op::Send {
        mode: SendMode::Standard,
        dest,
        tag: 0,
        comm: 0,
        req: None,
    };
    let recv = |src, req| Op::Recv {
        src,
        tag: 0,
        comm: 0,
        req,
        blocking: true,
    };
    let mut ranks = vec![Vec::new(), Vec::new()];
    for i in 0..rounds {
        ranks[0].push((Site::Table(0), send(1)));
        ranks[0].push((Site::Table(1), recv(1, i)));
        ranks[1].push((Site::Table(2), recv(0, i)));
        ranks[1].push((Site::Table(3), send(0)));
    }
    for rank in &mut ranks {
        rank.push((Site::Table(4), Op::Finalize));
    }
    ranks
}

fn main() {
    let rounds: u32 = std::env::args()
        .nth(1)
        .map_or(50_000, |a| a.parse().expect("ROUNDS is a number"));
    let calls = pingpong(rounds);
    let n: usize = calls.iter().map(Vec::len).sum();
    for zero_buffer in [false, true] {
        let cfg = Config {
            nprocs: 2,
            zero_buffer,
            exchange: false,
        };
        let mut best = f64::MAX;
        for _ in 0..5 {
            let start = Instant::now();
            let run = rerun_calls(&calls, cfg);
            best = best.min(start.elapsed().as_secs_f64());
            assert_eq!(run.end, poe::engine::RunEnd::Completed);
        }
        println!(
            "{} calls {}: {:.1} ms, {:.0} ns per call, {:.2} M calls/s",
            n,
            if zero_buffer {
                "without buffering"
            } else {
                "buffered"
            },
            best * 1e3,
            best * 1e9 / n as f64,
            n as f64 / best / 1e6
        );
    }
}
