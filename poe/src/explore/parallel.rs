//! Exploration on several workers with the results of a sequential one.
//!
//! The strategy stays the one authority on what runs: its plans are taken,
//! and its runs committed, in exactly the order [`super::explore`] would
//! take them. What runs in parallel are the plans a strategy knows it will
//! hand out later whatever the runs before them show
//! ([`Strategy::upcoming`]: for a depth-first walk, every alternative not
//! yet taken on its current path). A run depends on its plan alone, so a
//! result made ahead of its turn is the one the sequential walk would have
//! made; it waits until the walk asks for that plan. A run made ahead that
//! the walk never asks for (a limit or a run that stops exploring came
//! first) is thrown away unseen.

use std::sync::mpsc;
use std::sync::Mutex;

use crate::engine::Planned;

use super::{explore_watched, Ran, Stopped, Strategy};

/// One run handed to a worker: its plan, and whether it is the first run of
/// the exploration.
struct Job {
    plan: Vec<Planned>,
    first: bool,
}

/// Runs `strategy`'s interleavings on `jobs` workers: `run` makes one run
/// (on any worker; its second argument says whether it is the first run of
/// the exploration), `commit` takes the runs' results one at a time in the
/// strategy's own order and says what each run took, and `watch` is told
/// where exploration stands as [`explore_watched`] tells it. What `commit`
/// sees, and what is returned, is what a sequential exploration gives: the
/// same runs, in the same order, up to the same limit or stop. With one job
/// nothing runs ahead.
pub fn explore_parallel<S, R, E>(
    strategy: &mut S,
    limit: usize,
    jobs: usize,
    run: impl Fn(Vec<Planned>, bool) -> Result<R, E> + Sync,
    mut commit: impl FnMut(&[Planned], R) -> Ran,
    watch: impl FnMut(usize, Option<usize>),
) -> Result<Stopped, E>
where
    S: Strategy + ?Sized,
    R: Send,
    E: Send,
{
    if jobs <= 1 {
        let mut first = true;
        return explore_watched(
            strategy,
            limit,
            |plan| {
                let r = run(plan.clone(), std::mem::take(&mut first))?;
                Ok(commit(&plan, r))
            },
            watch,
        );
    }
    let (job_tx, job_rx) = mpsc::channel::<Job>();
    let job_rx = Mutex::new(job_rx);
    std::thread::scope(|s| {
        let (done_tx, done_rx) = mpsc::channel();
        for _ in 0..jobs {
            let (job_rx, done_tx, run) = (&job_rx, done_tx.clone(), &run);
            s.spawn(move || loop {
                let next = job_rx.lock().map(|rx| rx.recv());
                let Ok(Ok(job)) = next else { return };
                // A run that panics (a bug in fib) must not leave the
                // coordinator waiting for it: the panic goes to the
                // coordinator, which raises it again.
                let plan = job.plan.clone();
                let result =
                    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run(plan, job.first)));
                if done_tx.send((job.plan, result)).is_err() {
                    return;
                }
            });
        }
        drop(done_tx);
        let mut pool = Pool {
            jobs,
            limit,
            tx: job_tx,
            rx: done_rx,
            running: Vec::new(),
            made: Vec::new(),
        };
        // Dropping the pool closes the job queue: each worker ends after the
        // run it is making, and the scope waits for it.
        pool.drive(strategy, &mut commit, watch)
    })
}

/// A run a worker finished: its plan and its result, or the panic it
/// raised.
type Done<R, E> = (Vec<Planned>, std::thread::Result<Result<R, E>>);

/// The coordinator's view of the workers.
struct Pool<R, E> {
    jobs: usize,
    limit: usize,
    tx: mpsc::Sender<Job>,
    rx: mpsc::Receiver<Done<R, E>>,
    /// Plans handed to a worker and not back yet.
    running: Vec<Vec<Planned>>,
    /// Runs made ahead of their turn, waiting for the walk to ask for them.
    made: Vec<(Vec<Planned>, Result<R, E>)>,
}

impl<R, E> Pool<R, E> {
    /// The sequential loop of [`explore_watched`], with each run's result
    /// fetched from the pool.
    fn drive<S: Strategy + ?Sized>(
        &mut self,
        strategy: &mut S,
        commit: &mut impl FnMut(&[Planned], R) -> Ran,
        mut watch: impl FnMut(usize, Option<usize>),
    ) -> Result<Stopped, E> {
        let mut runs = 0usize;
        watch(runs, strategy.pending());
        loop {
            let Some(plan) = strategy.next_plan() else {
                return Ok(Stopped::Exhausted);
            };
            if runs >= self.limit {
                return Ok(Stopped::Limit);
            }
            let result = self.result_of(&plan, runs == 0, runs, &*strategy);
            let ran = commit(&plan, result?);
            runs += 1;
            strategy.finished(&ran.choices);
            watch(runs, strategy.pending());
            if ran.stop {
                return Ok(Stopped::Asked);
            }
        }
    }

    /// The result of `plan`'s run: made ahead already, or once the worker
    /// making it is done, or started now. While it waits, free workers run
    /// ahead.
    fn result_of<S: Strategy + ?Sized>(
        &mut self,
        plan: &[Planned],
        first: bool,
        runs: usize,
        strategy: &S,
    ) -> Result<R, E> {
        if !self.made.iter().any(|(p, _)| p == plan) && !self.running.iter().any(|p| p == plan) {
            self.start(plan.to_vec(), first);
        }
        loop {
            self.run_ahead(strategy, runs, plan);
            if let Some(i) = self.made.iter().position(|(p, _)| p == plan) {
                return self.made.swap_remove(i).1;
            }
            let (p, r) = self.rx.recv().expect("a worker ended with runs pending");
            let r = r.unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            self.running.retain(|x| *x != p);
            self.made.push((p, r));
        }
    }

    fn start(&mut self, plan: Vec<Planned>, first: bool) {
        self.running.push(plan.clone());
        // The workers outlive the pool; the queue cannot be closed here.
        let _ = self.tx.send(Job { plan, first });
    }

    /// Gives free workers the plans the strategy will ask for later, as long
    /// as the runs waiting for their turn and the limit leave room.
    /// `needed` is the plan the walk waits for (no longer among the ones
    /// it will ask for).
    fn run_ahead<S: Strategy + ?Sized>(&mut self, strategy: &S, runs: usize, needed: &[Planned]) {
        let free = self.jobs.saturating_sub(self.running.len());
        if free == 0 {
            return;
        }
        let ahead = self.running.len() + self.made.len();
        if runs + ahead >= self.limit {
            return;
        }
        // Once runs made ahead fill their room, one whose plan the strategy
        // will no longer hand out (its point fell off the path) waits for
        // nothing: drop it.
        if self.made.len() >= self.jobs {
            self.made
                .retain(|(p, _)| p == needed || strategy.will_hand_out(p));
        }
        let wanted = strategy.upcoming(2 * self.jobs + ahead);
        let ahead = self.running.len() + self.made.len();
        let room = (2 * self.jobs).saturating_sub(ahead);
        let take = free.min(room).min(self.limit.saturating_sub(runs + ahead));
        let fresh: Vec<Vec<Planned>> = wanted
            .into_iter()
            .filter(|w| {
                !self.running.iter().any(|p| p == w) && !self.made.iter().any(|(p, _)| p == w)
            })
            .take(take)
            .collect();
        for plan in fresh {
            self.start(plan, false);
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use fib_wire::Site;

    use super::*;
    use crate::engine::{Alternative, Choice, ChoicePoint, OpId};
    use crate::explore::{explore, DepthFirst, Token};

    fn mix(mut x: u64) -> u64 {
        x ^= x >> 33;
        x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
        x ^= x >> 33;
        x = x.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
        x ^ (x >> 33)
    }

    /// A program of tree `seed`: what a run following `plan` takes. Each
    /// point's alternatives (some of them deferrals, from a small set so
    /// that points share them) and what it wakes depend on the path to it.
    fn random_tree(seed: u64, plan: &[Planned]) -> Vec<Choice> {
        let mut out = Vec::new();
        let mut h = mix(seed);
        for depth in 0..6 {
            h = mix(h ^ depth);
            if depth > 0 && h.is_multiple_of(5) {
                break;
            }
            let n = 1 + (h % 3) as usize;
            let alternatives: Vec<Alternative> = (0..n)
                .map(|k| {
                    let send = Alternative::Send(OpId { rank: 9, index: k });
                    if k > 0 && mix(h ^ k as u64).is_multiple_of(3) {
                        Alternative::Defer {
                            at: OpId {
                                rank: (mix(h + k as u64) % 2) as usize,
                                index: 0,
                            },
                            alt: Box::new(send),
                        }
                    } else {
                        send
                    }
                })
                .collect();
            let taken = plan.get(depth as usize).map_or(0, |p| p.taken);
            let wake = (0..n)
                .filter(|&k| mix(h ^ (k as u64 + 17)).is_multiple_of(2))
                .collect();
            out.push(Choice {
                point: ChoicePoint {
                    at: OpId {
                        rank: depth as usize % 3,
                        index: depth as usize,
                    },
                    site: Site::default(),
                    alternatives,
                },
                taken,
                predicted: vec![],
                wake,
                before: Vec::new(),
            });
            h = mix(h ^ (taken as u64 + 1) << 8);
        }
        out
    }

    fn token(plan: &[Planned]) -> String {
        Token(plan.iter().map(|p| p.taken).collect()).to_string()
    }

    /// The tokens a sequential walk of tree `seed` commits, and why it
    /// stopped, with `stop_at` the run (counting from 1) that asks to stop.
    fn sequential(seed: u64, limit: usize, stop_at: usize) -> (Vec<String>, Stopped) {
        let mut seen = Vec::new();
        let stopped = explore(&mut DepthFirst::new(), limit, |plan| {
            seen.push(token(&plan));
            Ok::<_, ()>(Ran {
                choices: random_tree(seed, &plan),
                stop: seen.len() == stop_at,
            })
        })
        .unwrap();
        (seen, stopped)
    }

    fn parallel(
        seed: u64,
        limit: usize,
        stop_at: usize,
        jobs: usize,
    ) -> (Vec<String>, Stopped, usize) {
        let made = std::sync::atomic::AtomicUsize::new(0);
        let mut seen = Vec::new();
        let mut firsts = Vec::new();
        let stopped = explore_parallel(
            &mut DepthFirst::new(),
            limit,
            jobs,
            |plan, first| {
                made.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                // Runs finish out of order.
                let t = mix(seed ^ plan.len() as u64 ^ token(&plan).len() as u64) % 3;
                std::thread::sleep(Duration::from_micros(200 * t));
                Ok::<_, ()>((random_tree(seed, &plan), first))
            },
            |plan, (choices, first)| {
                seen.push(token(plan));
                firsts.push(first);
                Ran {
                    choices,
                    stop: seen.len() == stop_at,
                }
            },
            |_, _| {},
        )
        .unwrap();
        assert!(firsts.first().is_none_or(|&f| f));
        assert!(
            firsts.iter().skip(1).all(|&f| !f),
            "only the first run is first"
        );
        (seen, stopped, made.into_inner())
    }

    #[test]
    fn parallel_walks_commit_the_sequential_runs_in_order() {
        let mut total = 0;
        for seed in 0..300 {
            let (want, why) = sequential(seed, usize::MAX, 0);
            total += want.len();
            for jobs in [1, 2, 3] {
                let (got, stopped, made) = parallel(seed, usize::MAX, 0, jobs);
                assert_eq!((&got, stopped), (&want, why), "seed {seed}, {jobs} jobs");
                assert_eq!(made, want.len(), "a full walk makes no run twice");
            }
        }
        // The trees are not all trivial.
        assert!(total > 1500, "{total} runs");
    }

    #[test]
    fn limits_and_stops_end_parallel_walks_where_sequential_ones_end() {
        for seed in 0..100 {
            for (limit, stop_at) in [(1, 0), (3, 0), (usize::MAX, 2), (usize::MAX, 5)] {
                let want = sequential(seed, limit, stop_at);
                let (got, stopped, _) = parallel(seed, limit, stop_at, 2);
                assert_eq!((got, stopped), want, "seed {seed}, limit {limit}");
            }
        }
    }

    #[test]
    fn a_failed_run_fails_the_walk_when_its_turn_comes() {
        let mut seen = Vec::new();
        let failed = explore_parallel(
            &mut DepthFirst::new(),
            usize::MAX,
            2,
            |plan, _| {
                if token(&plan) == "0.2" {
                    Err("boom")
                } else {
                    Ok(random_tree(7, &plan))
                }
            },
            |plan, choices| {
                seen.push(token(plan));
                Ran {
                    choices,
                    stop: false,
                }
            },
            |_, _| {},
        );
        let (want, _) = sequential(7, usize::MAX, 0);
        match want.iter().position(|t| t == "0.2") {
            Some(i) => {
                assert_eq!(failed, Err("boom"));
                assert_eq!(seen, want[..i]);
            }
            None => assert_eq!(seen, want),
        }
    }

    #[test]
    fn a_run_that_panics_panics_the_walk_instead_of_leaving_it_waiting() {
        // On a thread of its own, so that a walk left waiting fails the test
        // instead of hanging it.
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let walked = std::panic::catch_unwind(|| {
                explore_parallel(
                    &mut DepthFirst::new(),
                    usize::MAX,
                    2,
                    |plan, first| {
                        if !first {
                            panic!("a bug in a run");
                        }
                        Ok::<_, ()>(random_tree(7, &plan))
                    },
                    |_, choices| Ran {
                        choices,
                        stop: false,
                    },
                    |_, _| {},
                )
            });
            let _ = tx.send(walked.map_err(|p| p.downcast_ref::<&str>().map(|s| s.to_string())));
        });
        let walked = rx
            .recv_timeout(Duration::from_secs(60))
            .expect("the walk ended");
        let (want, _) = sequential(7, usize::MAX, 0);
        assert!(want.len() > 1, "the walk makes more than its first run");
        assert_eq!(walked, Err(Some("a bug in a run".to_string())));
    }

    #[test]
    fn every_plan_listed_as_upcoming_is_handed_out_later() {
        for seed in 0..200 {
            let mut walk = DepthFirst::new();
            let mut promised: Vec<Vec<Planned>> = Vec::new();
            let mut handed = Vec::new();
            while let Some(plan) = walk.next_plan() {
                handed.push(plan.clone());
                walk.finished(&random_tree(seed, &plan));
                let listed = walk.upcoming(usize::MAX);
                assert!(listed.iter().all(|p| walk.will_hand_out(p)));
                assert!(!walk.will_hand_out(&plan), "a plan handed out is not again");
                promised.extend(listed);
            }
            for p in &promised {
                assert!(handed.contains(p), "seed {seed}: {} never ran", token(p));
            }
        }
    }
}
