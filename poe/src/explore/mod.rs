//! Exploration: which interleavings run, in which order, and the replay
//! token that names one.
//!
//! A [`Strategy`] hands out the plan of each run and learns what the run
//! took: [`DepthFirst`] walks every relevant interleaving, [`Replay`] runs
//! one token's. [`explore`] is the loop that drives a strategy with a
//! closure that runs one interleaving, up to a limit on the number of runs;
//! [`explore_parallel`] gives the same runs in the same order while making
//! runs the strategy is sure to want on several workers.

mod depth_first;
mod parallel;
mod replay;
mod token;

use crate::engine::{Choice, Planned};

pub use depth_first::DepthFirst;
pub use parallel::explore_parallel;
pub use replay::Replay;
pub use token::Token;

/// The depth-first walk, under its former name.
pub type Explorer = DepthFirst;

/// Decides which interleaving runs next.
pub trait Strategy {
    /// The choices the next run replays, or `None` when exploration is over.
    fn next_plan(&mut self) -> Option<Vec<Planned>>;
    /// What the run just made took (its plan, then first alternatives).
    fn finished(&mut self, choices: &[Choice]);
    /// How many runs the strategy knows it still has to hand out (not
    /// counting one handed out and not yet finished), when it can tell.
    fn pending(&self) -> Option<usize> {
        None
    }
    /// Plans the strategy will hand out later whatever the runs before them
    /// take, at most `max` of them, the soonest first: what
    /// [`explore_parallel`] may run ahead of their turn. None by default.
    fn upcoming(&self, _max: usize) -> Vec<Vec<Planned>> {
        Vec::new()
    }
    /// Whether `plan` is one the strategy will still hand out, as far as it
    /// can tell now (one [`Strategy::upcoming`] would list given room).
    fn will_hand_out(&self, _plan: &[Planned]) -> bool {
        false
    }
}

/// What one run of [`explore`]'s closure reports.
#[derive(Clone, Debug)]
pub struct Ran {
    /// The choices the run took.
    pub choices: Vec<Choice>,
    /// Whether exploration should stop after this run.
    pub stop: bool,
}

/// Why [`explore`] stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stopped {
    /// The strategy had no interleaving left.
    Exhausted,
    /// The limit on the number of runs was reached with interleavings left.
    Limit,
    /// A run asked to stop.
    Asked,
}

/// Runs the interleavings `strategy` hands out, each through `run`, until
/// the strategy is exhausted, a run asks to stop, or `limit` runs have been
/// made and the strategy still has one to hand out.
pub fn explore<S: Strategy + ?Sized, E>(
    strategy: &mut S,
    limit: usize,
    run: impl FnMut(Vec<Planned>) -> Result<Ran, E>,
) -> Result<Stopped, E> {
    explore_watched(strategy, limit, run, |_, _| {})
}

/// [`explore`], telling `watch` where it stands before the first run and
/// after each: how many runs were made, and how many the strategy knows it
/// still has to hand out ([`Strategy::pending`]).
pub fn explore_watched<S: Strategy + ?Sized, E>(
    strategy: &mut S,
    limit: usize,
    mut run: impl FnMut(Vec<Planned>) -> Result<Ran, E>,
    mut watch: impl FnMut(usize, Option<usize>),
) -> Result<Stopped, E> {
    let mut runs = 0usize;
    watch(runs, strategy.pending());
    loop {
        let Some(plan) = strategy.next_plan() else {
            return Ok(Stopped::Exhausted);
        };
        if runs >= limit {
            return Ok(Stopped::Limit);
        }
        let ran = run(plan)?;
        runs += 1;
        strategy.finished(&ran.choices);
        watch(runs, strategy.pending());
        if ran.stop {
            return Ok(Stopped::Asked);
        }
    }
}

#[cfg(test)]
mod tests {
    use fib_wire::Site;

    use super::*;
    use crate::engine::{Alternative, ChoicePoint, OpId};

    fn id(rank: usize, index: usize) -> OpId {
        OpId { rank, index }
    }

    /// A point at rank `r`'s first call with `n` sends to choose from.
    fn point(r: usize, n: usize) -> ChoicePoint {
        ChoicePoint {
            at: id(r, 0),
            site: Site::default(),
            alternatives: (0..n).map(|k| Alternative::Send(id(9, k))).collect(),
        }
    }

    /// A program whose first point has two alternatives; after the first,
    /// a second point with three; after the second, nothing. Runs `plan`
    /// (taking first alternatives past it) and returns its choices.
    fn tree(plan: &[Planned]) -> Vec<Choice> {
        let first = plan.first().map_or(0, |p| p.taken);
        let mut out = vec![Choice {
            point: point(0, 2),
            taken: first,
            wake: vec![],
            predicted: vec![],
            before: Vec::new(),
        }];
        if first == 0 {
            out.push(Choice {
                point: point(1, 3),
                taken: plan.get(1).map_or(0, |p| p.taken),
                wake: vec![],
                predicted: vec![],
                before: Vec::new(),
            });
        }
        out
    }

    fn tokens(plans: &[Vec<Planned>]) -> Vec<String> {
        plans
            .iter()
            .map(|p| Token(p.iter().map(|x| x.taken).collect::<Vec<_>>()).to_string())
            .collect()
    }

    #[test]
    fn depth_first_walks_the_tree_in_order() {
        let mut plans = Vec::new();
        let stopped = explore(&mut DepthFirst::new(), 100, |plan| {
            let choices = tree(&plan);
            plans.push(plan);
            Ok::<_, ()>(Ran {
                choices,
                stop: false,
            })
        });
        assert_eq!(stopped, Ok(Stopped::Exhausted));
        assert_eq!(tokens(&plans), vec!["-", "0.1", "0.2", "1"]);
        // Replayed points carry the point they expect.
        assert_eq!(plans[1][0].expect, Some(point(0, 2)));
    }

    #[test]
    fn depth_first_runs_a_defer_only_when_woken() {
        let defer = Alternative::Defer {
            at: id(1, 0),
            alt: Box::new(Alternative::Send(id(9, 0))),
        };
        let mut p = point(0, 1);
        p.alternatives.push(defer);
        let run = |wake: Vec<usize>| {
            vec![Choice {
                point: p.clone(),
                taken: 0,
                predicted: vec![],
                wake,
                before: Vec::new(),
            }]
        };
        let mut quiet = DepthFirst::new();
        assert_eq!(quiet.next_plan(), Some(vec![]));
        quiet.finished(&run(vec![]));
        assert_eq!(quiet.next_plan(), None);
        assert_eq!(quiet.runs(), 1);
        let mut woken = DepthFirst::new();
        woken.next_plan();
        woken.finished(&run(vec![1]));
        let next = woken.next_plan().unwrap();
        assert_eq!(next.len(), 1);
        assert_eq!(next[0].taken, 1);
    }

    #[test]
    fn depth_first_counts_the_runs_it_still_wants() {
        let mut walk = DepthFirst::new();
        // Before the walk starts, the first run is pending.
        assert_eq!(walk.pending(), 1);
        let plan = walk.next_plan().unwrap();
        assert_eq!(walk.pending(), 0, "the run handed out is not pending");
        // The first run meets a point with 2 alternatives, then one with 3:
        // 1 + 2 alternatives not taken.
        walk.finished(&tree(&plan));
        assert_eq!(walk.pending(), 3);
        let mut seen = vec![walk.pending()];
        while let Some(plan) = walk.next_plan() {
            walk.finished(&tree(&plan));
            seen.push(walk.pending());
        }
        assert_eq!(seen, vec![3, 2, 1, 0]);
        assert_eq!(Strategy::pending(&walk), Some(0));
    }

    #[test]
    fn the_watcher_sees_runs_made_and_runs_pending() {
        let mut seen = Vec::new();
        let stopped = explore_watched(
            &mut DepthFirst::new(),
            100,
            |plan| {
                Ok::<_, ()>(Ran {
                    choices: tree(&plan),
                    stop: false,
                })
            },
            |runs, pending| seen.push((runs, pending)),
        );
        assert_eq!(stopped, Ok(Stopped::Exhausted));
        assert_eq!(
            seen,
            vec![
                (0, Some(1)),
                (1, Some(3)),
                (2, Some(2)),
                (3, Some(1)),
                (4, Some(0))
            ]
        );
        // A replay cannot tell.
        let mut seen = Vec::new();
        let _ = explore_watched(
            &mut Replay::new(Token::default()),
            1,
            |_| {
                Ok::<_, ()>(Ran {
                    choices: vec![],
                    stop: false,
                })
            },
            |runs, pending| seen.push((runs, pending)),
        );
        assert_eq!(seen, vec![(0, None), (1, None)]);
    }

    #[test]
    fn the_limit_stops_with_interleavings_left() {
        let mut runs = 0;
        let stopped = explore(&mut DepthFirst::new(), 2, |plan| {
            runs += 1;
            Ok::<_, ()>(Ran {
                choices: tree(&plan),
                stop: false,
            })
        });
        assert_eq!(stopped, Ok(Stopped::Limit));
        assert_eq!(runs, 2);
        // A limit equal to the number of interleavings is not hit.
        let stopped = explore(&mut DepthFirst::new(), 4, |plan| {
            Ok::<_, ()>(Ran {
                choices: tree(&plan),
                stop: false,
            })
        });
        assert_eq!(stopped, Ok(Stopped::Exhausted));
    }

    #[test]
    fn a_run_can_stop_the_loop_or_fail_it() {
        let mut runs = 0;
        let stopped = explore(&mut DepthFirst::new(), 100, |plan| {
            runs += 1;
            Ok::<_, ()>(Ran {
                choices: tree(&plan),
                stop: runs == 2,
            })
        });
        assert_eq!((stopped, runs), (Ok(Stopped::Asked), 2));
        let failed = explore(&mut DepthFirst::new(), 100, |_| Err::<Ran, _>("boom"));
        assert_eq!(failed, Err("boom"));
    }

    #[test]
    fn replay_runs_its_token_once() {
        let token: Token = "0.2".parse().unwrap();
        let mut r = Replay::new(token);
        assert_eq!(r.planned(), 2);
        let mut plans = Vec::new();
        let stopped = explore(&mut r, 100, |plan| {
            let choices = tree(&plan);
            plans.push(plan);
            Ok::<_, ()>(Ran {
                choices,
                stop: false,
            })
        });
        assert_eq!(stopped, Ok(Stopped::Exhausted));
        assert_eq!(tokens(&plans), vec!["0.2"]);
        assert_eq!(plans[0][0].expect, None);
        // Token 1.0 plans two choices; the program has one after taking 1.
        let r = Replay::new("1.0".parse().unwrap());
        let short = tree(&r.clone().next_plan().unwrap());
        assert!(r.fell_short(&short));
        assert!(!r.fell_short(&tree(&[])));
    }

    #[test]
    fn strategies_work_behind_a_trait_object() {
        let mut s: Box<dyn Strategy> = Box::new(Replay::new(Token::default()));
        let stopped = explore(s.as_mut(), 1, |plan| {
            assert!(plan.is_empty());
            Ok::<_, ()>(Ran {
                choices: vec![],
                stop: false,
            })
        });
        assert_eq!(stopped, Ok(Stopped::Exhausted));
    }
}
