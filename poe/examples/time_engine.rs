//! Times the engine alone, fed as `poe::sim` feeds a run's calls: what a
//! call costs the scheduler apart from MPI, the sockets and the ranks. Two
//! workloads: a ping-pong's calls, with and without buffering, and an
//! exchange among 16 ranks in which every rank posts a receive from every
//! other, sends to every other and waits for all of them (240 channels,
//! each with calls pending at once).
//!
//! A third times a rank of threads: two threads of rank 1 take rank 0's
//! messages of one tag, whichever posted first (the calls of
//! `osu_latency_mt`), at two lengths, so that a cost that grows with the
//! run's length shows.
//!
//! `cargo run --release -p poe --example time_engine [ROUNDS]` (default
//! 50 000 round trips, 200 000 calls; the exchange makes about as many,
//! the threads a tenth and a fifth as many); `scripts/bench.sh` runs it.

use std::time::Instant;

// The `fib` binary's allocator, so that the engine is timed as it runs there.
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

use fib_wire::{Op, SendMode, Site};
use poe::engine::Config;
use poe::sim::{rerun_calls, run_threads_once, Step, ThreadedProgram, Turns};

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

/// `n` ranks' calls: each round, every rank posts a nonblocking receive
/// from every other rank, sends to every other rank without blocking, and
/// waits for all of them; then all finalize.
fn exchange(n: i32, rounds: u32) -> Vec<Vec<(Site, Op)>> {
    let mut ranks = vec![Vec::new(); n as usize];
    for (me, calls) in ranks.iter_mut().enumerate() {
        let me = me as i32;
        let mut req = 0u32;
        for _ in 0..rounds {
            let mut reqs = Vec::new();
            for peer in (0..n).filter(|&p| p != me) {
                calls.push((
                    Site::Table(0),
                    Op::Recv {
                        src: peer,
                        tag: 0,
                        comm: 0,
                        req,
                        blocking: false,
                    },
                ));
                reqs.push(req);
                req += 1;
            }
            for peer in (0..n).filter(|&p| p != me) {
                calls.push((
                    Site::Table(1),
                    Op::Send {
                        mode: SendMode::Standard,
                        dest: peer,
                        tag: 0,
                        comm: 0,
                        req: Some(req),
                    },
                ));
                reqs.push(req);
                req += 1;
            }
            calls.push((
                Site::Table(2),
                Op::Wait {
                    kind: fib_wire::WaitKind::All,
                    reqs,
                },
            ));
        }
        calls.push((Site::Table(3), Op::Finalize));
    }
    ranks
}

/// Rank 0 sends `rounds` messages of tag 1 to rank 1 and waits for each
/// answer (tag 2); two threads of rank 1 each receive half of them and
/// answer, as `osu_latency_mt`'s receiving threads do.
fn thread_pingpong(rounds: u32) -> ThreadedProgram {
    let send = |dest, tag| {
        Step::Call(Op::Send {
            mode: SendMode::Standard,
            dest,
            tag,
            comm: 0,
            req: None,
        })
    };
    let recv = |src, tag| {
        Step::Call(Op::Recv {
            src,
            tag,
            comm: 0,
            req: 0,
            blocking: true,
        })
    };
    let mut sender = Vec::new();
    for _ in 0..rounds {
        sender.push(send(1, 1));
        sender.push(recv(1, 2));
    }
    sender.push(Step::Call(Op::Finalize));
    let mut thread = Vec::new();
    for _ in 0..rounds / 2 {
        thread.push(recv(0, 1));
        thread.push(send(0, 2));
    }
    let receiver = vec![vec![Step::Call(Op::Finalize)], thread.clone(), thread];
    vec![vec![sender], receiver]
}

/// The best of five runs of `calls`, printed as time per call.
fn time(label: &str, calls: &[Vec<(Site, Op)>], cfg: Config) {
    let n: usize = calls.iter().map(Vec::len).sum();
    let mut best = f64::MAX;
    for _ in 0..5 {
        let start = Instant::now();
        let run = rerun_calls(calls, cfg);
        best = best.min(start.elapsed().as_secs_f64());
        assert_eq!(run.end, poe::engine::RunEnd::Completed);
    }
    println!(
        "{n} calls {label}: {:.1} ms, {:.0} ns per call, {:.2} M calls/s",
        best * 1e3,
        best * 1e9 / n as f64,
        n as f64 / best / 1e6
    );
}

fn main() {
    let rounds: u32 = std::env::args()
        .nth(1)
        .map_or(50_000, |a| a.parse().expect("ROUNDS is a number"));
    let calls = pingpong(rounds);
    for zero_buffer in [false, true] {
        let cfg = Config {
            nprocs: 2,
            zero_buffer,
            exchange: false,
        };
        let label = if zero_buffer {
            "without buffering"
        } else {
            "buffered"
        };
        time(label, &calls, cfg);
    }
    let n = 16;
    let calls = exchange(n, (rounds * 4 / (n as u32 * 31)).max(1));
    let cfg = Config {
        nprocs: n as usize,
        zero_buffer: false,
        exchange: false,
    };
    time("of a 16-rank exchange", &calls, cfg);
    for rounds in [rounds / 20, rounds / 10] {
        let program = thread_pingpong(rounds);
        let n = rounds as usize * 4 + 2;
        let cfg = Config {
            nprocs: 2,
            zero_buffer: false,
            exchange: false,
        };
        let mut best = f64::MAX;
        for _ in 0..5 {
            let start = Instant::now();
            let run = run_threads_once(&program, cfg, Vec::new(), Turns::Forward);
            best = best.min(start.elapsed().as_secs_f64());
            assert_eq!(run.end, poe::engine::RunEnd::Completed);
        }
        println!(
            "{n} calls of two threads taking one sender's messages: {:.1} ms, {:.0} ns per call",
            best * 1e3,
            best * 1e9 / n as f64,
        );
    }
}
