//! The exploration path of one run: the plan it replays, the choices it
//! takes (from the plan while it lasts, the first alternative after that),
//! divergence from the plan, and the alternatives that stay asleep because
//! another branch explored them. [`Path`] knows nothing of MPI: the engine
//! hands it the choice points that matching found.

use std::collections::BTreeMap;

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use super::model::{
    Alternative, Choice, ChoicePoint, OpId, Outcome, Outcomes, Planned, Policy, Rank, RunEnd,
};

/// The choices of one run.
pub(crate) struct Path {
    plan: Vec<Planned>,
    /// How the choices past the plan are taken.
    policy: Policy,
    choices: Vec<Choice>,
    /// The choices a call made (not the order of a rank's threads' entry,
    /// which races with nothing): the only ones a race can wake.
    choosers: Vec<usize>,
    /// Alternatives already explored in another branch that this run must not
    /// take again (the point's own alternatives, after an
    /// [`Alternative::Defer`]).
    asleep: HashSet<(OpId, Alternative)>,
    /// The calls with an alternative in `asleep`.
    asleep_at: HashSet<OpId>,
    /// In a followed run, the lock grants it reported per window and
    /// target (world rank), by number, with whether each is exclusive; and
    /// those made so far: a lock is granted once every conflicting grant
    /// numbered before it is made.
    grants: HashMap<(u32, Rank), BTreeMap<u64, (OpId, bool)>>,
    made: HashSet<OpId>,
}

impl Path {
    /// A run that follows `plan`, then `policy`.
    pub(crate) fn new(plan: Vec<Planned>, policy: Policy) -> Path {
        Path {
            plan,
            policy,
            choices: Vec::new(),
            choosers: Vec::new(),
            asleep: HashSet::default(),
            asleep_at: HashSet::default(),
            grants: HashMap::default(),
            made: HashSet::default(),
        }
        .indexed()
    }

    /// Indexes the lock grants of a followed run's outcomes given at the
    /// start.
    fn indexed(mut self) -> Path {
        if let Policy::Follow(outcomes) = &self.policy {
            let given: Vec<(OpId, Outcome)> =
                outcomes.iter().map(|(k, v)| (*k, v.clone())).collect();
            for (at, o) in &given {
                self.index(*at, o);
            }
        }
        self
    }

    /// Notes the lock grant `o` of the call `at`, if it is one.
    fn index(&mut self, at: OpId, o: &Outcome) {
        if let Outcome::Granted {
            win,
            exclusive,
            grants,
        } = o
        {
            for &(t, n) in grants {
                self.grants
                    .entry((*win, t))
                    .or_default()
                    .insert(n, (at, *exclusive));
            }
        }
    }

    /// The choices taken so far.
    pub(crate) fn choices(&self) -> &[Choice] {
        &self.choices
    }

    /// The choices taken, moved out.
    pub(crate) fn into_choices(self) -> Vec<Choice> {
        self.choices
    }

    /// The same, for marking the alternatives that races wake.
    pub(crate) fn choices_mut(&mut self) -> &mut [Choice] {
        &mut self.choices
    }

    /// The same, with the positions of the choices a call made (see
    /// `causality::chooser`): a race with a call looks at those only.
    pub(crate) fn choosers_mut(&mut self) -> (&mut [Choice], &[usize]) {
        (&mut self.choices, &self.choosers)
    }

    /// Whether some alternative of the call `at` is asleep in this run.
    pub(crate) fn has_asleep(&self, at: OpId) -> bool {
        self.asleep_at.contains(&at)
    }

    /// Wakes the asleep alternatives `dependent` picks: a choice just taken
    /// does not commute with them, so the orders they start are no longer
    /// the ones explored in the other branch.
    pub(crate) fn wake_asleep(&mut self, dependent: impl Fn(&Alternative) -> bool) {
        self.asleep.retain(|(_, a)| !dependent(a));
        let asleep = &self.asleep;
        self.asleep_at
            .retain(|at| asleep.iter().any(|(x, _)| x == at));
    }

    /// Whether the plan has been used up.
    pub(crate) fn exhausted(&self) -> bool {
        self.choices.len() >= self.plan.len()
    }

    /// The points with their asleep alternatives left out (points left with
    /// none dropped), unless that leaves nothing; in the order of the calls
    /// that choose. What a followed run took past the plan stays awake: MPI
    /// knows nothing of what other branches explored, and the run is read
    /// back as it went (its branch repeats an explored one, and loses
    /// none); a seeded pick, standing for MPI, may take any alternative;
    /// and what the point the plan expects next offered stays awake too,
    /// so that a run replaying such a branch finds the same point. Woken
    /// alternatives come after the awake ones.
    pub(crate) fn awake(&self, points: Vec<ChoicePoint>) -> Vec<ChoicePoint> {
        let expected = self
            .plan
            .get(self.choices.len())
            .and_then(|p| p.expect.as_ref());
        let followed = |p: &ChoicePoint, a: &Alternative| match &self.policy {
            Policy::Follow(outcomes) if self.exhausted() => self.took(outcomes, p.at, a),
            // A seeded pick stands for what MPI does: anything.
            Policy::Seeded(_) if self.exhausted() => true,
            Policy::Follow(_) | Policy::Seeded(_) => expected.is_some_and(|e| {
                e.alternatives.iter().any(|x| match x {
                    Alternative::Defer { at: d, alt } => *d == p.at && **alt == *a,
                    x => e.at == p.at && x == a,
                })
            }),
            _ => false,
        };
        let awake: Vec<ChoicePoint> = points
            .iter()
            .filter_map(|p| {
                let asleep = |a: &Alternative| self.asleep.contains(&(p.at, a.clone()));
                // The awake ones first, then those woken: an alternative
                // keeps the position it has in the scheduled mode's runs,
                // so that a token means the same interleaving in both.
                let alternatives: Vec<Alternative> = (p.alternatives.iter())
                    .filter(|a| !asleep(a))
                    .chain(
                        p.alternatives
                            .iter()
                            .filter(|a| asleep(a) && followed(p, a)),
                    )
                    .cloned()
                    .collect();
                (!alternatives.is_empty()).then(|| ChoicePoint {
                    alternatives,
                    ..p.clone()
                })
            })
            .collect();
        let mut points = if awake.is_empty() { points } else { awake };
        points.sort_by_key(|p| p.at);
        points
    }

    /// Takes the choice at `point` that the plan names (the first
    /// alternative past the plan): returns the call that chooses and what it
    /// takes, looking through [`Alternative::Defer`], or the divergence
    /// when the plan expected another point.
    pub(crate) fn take(&mut self, point: ChoicePoint) -> Result<(OpId, Alternative), RunEnd> {
        let n = self.choices.len();
        let taken = match self.plan.get(n) {
            Some(Planned {
                prefer: Some(want), ..
            }) => match point.alternatives.iter().position(|a| a == want) {
                Some(i) => i,
                None => {
                    return Err(RunEnd::Divergence {
                        index: n,
                        expected: None,
                        found: Some(point),
                    })
                }
            },
            Some(p) => {
                let fits = match &p.expect {
                    Some(e) => *e == point,
                    None => p.taken < point.alternatives.len(),
                };
                if !fits {
                    return Err(RunEnd::Divergence {
                        index: n,
                        expected: p.expect.clone(),
                        found: Some(point),
                    });
                }
                p.taken
            }
            None => match self.pick(&point) {
                Some(i) => i,
                None => {
                    return Err(RunEnd::Divergence {
                        index: n,
                        expected: None,
                        found: Some(point),
                    })
                }
            },
        };
        let choice = Choice {
            point,
            taken,
            wake: Vec::new(),
            predicted: Vec::new(),
            before: Vec::new(),
        };
        let (at, alt) = choice.fired();
        let alt = alt.clone();
        if let (Policy::Follow(_), Alternative::Grant(x)) = (&self.policy, &alt) {
            self.made.insert(*x);
        }
        // A cancel taken first does not commute with the point's own
        // alternatives: one of them can let the receive match, so that it
        // can no longer be cancelled.
        if at != choice.point.at && alt != Alternative::Cancel {
            // The point's own alternatives were explored in other branches.
            for a in &choice.point.alternatives {
                if !matches!(a, Alternative::Defer { .. }) {
                    self.asleep.insert((choice.point.at, a.clone()));
                    self.asleep_at.insert(choice.point.at);
                }
            }
        }
        if !matches!(alt, Alternative::Enter(_) | Alternative::Later) {
            self.choosers.push(self.choices.len());
        }
        self.choices.push(choice);
        Ok((at, alt))
    }
}

impl Path {
    /// Adds what the call `at` took to the outcomes a followed run
    /// follows ([`Policy::Follow`]; nothing under another policy).
    pub(crate) fn follow(&mut self, at: OpId, outcome: super::model::Outcome) {
        if let Policy::Follow(outcomes) = &mut self.policy {
            outcomes.insert(at, outcome.clone());
            self.index(at, &outcome);
        }
    }

    /// Whether the choice at `point` must wait for what a followed run's
    /// calls took: past the plan, under [`Policy::Follow`], with no
    /// alternative whose outcome is known yet, while more may come
    /// (`more`).
    pub(crate) fn awaits(&self, point: &ChoicePoint, more: bool) -> bool {
        more && self.exhausted()
            && matches!(self.policy, Policy::Follow(_))
            && self.pick(point).is_none()
    }

    /// The alternative the policy takes at `point`, past the plan; `None`
    /// when a followed run took none of them.
    fn pick(&self, point: &ChoicePoint) -> Option<usize> {
        match &self.policy {
            Policy::First => Some(0),
            Policy::Seeded(seed) => {
                let mut x = seed ^ (self.choices.len() as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
                x ^= x >> 33;
                x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
                x ^= x >> 33;
                Some((x % point.alternatives.len() as u64) as usize)
            }
            Policy::Follow(outcomes) => point.alternatives.iter().position(|a| {
                let (at, alt) = match a {
                    Alternative::Defer { at, alt } => (*at, &**alt),
                    a => (point.at, a),
                };
                self.took(outcomes, at, alt)
            }),
        }
    }

    /// Whether the followed run's call `at` took `alt`: what it reported
    /// taking, or for a lock grant, that the run granted that lock and
    /// every conflicting grant it reported numbered before it at one of its
    /// targets is made. (The engine chooses only once every rank has
    /// reported what it was granted; a number may be missing, taken by a
    /// lock-all that gave its shared locks back to wait.)
    fn took(&self, outcomes: &Outcomes, at: OpId, alt: &Alternative) -> bool {
        match alt {
            Alternative::Grant(x) => match outcomes.get(x) {
                Some(Outcome::Granted {
                    win,
                    exclusive,
                    grants,
                }) => grants.iter().all(|&(t, n)| {
                    self.grants.get(&(*win, t)).is_none_or(|before| {
                        before
                            .range(..n)
                            .all(|(_, (y, e))| !(*exclusive || *e) || self.made.contains(y))
                    })
                }),
                _ => false,
            },
            alt => outcomes.get(&at).is_some_and(|o| o.is(alt)),
        }
    }
}

/// The first of `points` (sorted), with the other points' alternatives as
/// [`Alternative::Defer`]s: to take first when a run shows that this point
/// can get a send only after them. `None` when there is no point.
pub(crate) fn with_defers(points: Vec<ChoicePoint>) -> Option<ChoicePoint> {
    let mut rest = points.into_iter();
    let mut point = rest.next()?;
    for p in rest {
        for a in p.alternatives {
            point.alternatives.push(Alternative::Defer {
                at: p.at,
                alt: Box::new(a),
            });
        }
    }
    Some(point)
}

#[cfg(test)]
mod tests {
    use fib_wire::Site;

    use super::*;

    fn id(rank: usize, index: usize) -> OpId {
        OpId { rank, index }
    }

    fn point(at: OpId, sends: &[OpId]) -> ChoicePoint {
        ChoicePoint {
            at,
            site: Site::default(),
            alternatives: sends.iter().map(|&s| Alternative::Send(s)).collect(),
        }
    }

    #[test]
    fn a_followed_run_grants_each_lock_once_the_conflicting_grants_before_it_are_made() {
        let (a, b, c) = (id(0, 3), id(1, 2), id(2, 5));
        let granted = |win, n| Outcome::Granted {
            win,
            exclusive: true,
            grants: vec![(0, n)],
        };
        let point = ChoicePoint {
            at: a,
            site: Site::default(),
            alternatives: vec![
                Alternative::Grant(a),
                Alternative::Defer {
                    at: b,
                    alt: Box::new(Alternative::Grant(b)),
                },
                Alternative::Grant(c),
            ],
        };
        // a was granted second on window 1, after b; c first on window 2,
        // the same number at the same target, which orders nothing.
        let outcomes: Outcomes = [(a, granted(1, 1)), (b, granted(1, 0)), (c, granted(2, 0))]
            .into_iter()
            .collect();
        let mut p = Path::new(vec![], Policy::Follow(outcomes));
        assert!(!p.awaits(&point, true));
        assert_eq!(p.take(point.clone()).unwrap(), (b, Alternative::Grant(b)));
        // b's grant made, a is next on window 1.
        assert_eq!(p.pick(&point), Some(0));
        // A lock granted first among those reported is taken, with a gap
        // before it; one never granted is never taken.
        let outcomes: Outcomes = [(a, granted(1, 1))].into_iter().collect();
        let p = Path::new(vec![], Policy::Follow(outcomes));
        assert_eq!(p.pick(&point), Some(0));
        let outcomes: Outcomes = [(b, granted(1, 2)), (a, granted(1, 1))]
            .into_iter()
            .collect();
        let mut p = Path::new(vec![], Policy::Follow(outcomes));
        assert_eq!(p.take(point.clone()).unwrap(), (a, Alternative::Grant(a)));
        let p = Path::new(vec![], Policy::Follow(Outcomes::new()));
        assert_eq!(p.pick(&point), None);
        assert!(p.awaits(&point, true));
    }

    #[test]
    fn past_the_plan_the_first_alternative_is_taken() {
        let mut p = Path::new(vec![], Policy::First);
        assert!(p.exhausted());
        let (at, alt) = p.take(point(id(0, 0), &[id(1, 0), id(2, 0)])).unwrap();
        assert_eq!((at, alt), (id(0, 0), Alternative::Send(id(1, 0))));
        assert_eq!(p.choices().len(), 1);
        assert_eq!(p.choices()[0].taken, 0);
    }

    #[test]
    fn the_plan_is_followed_and_checked() {
        let pt = point(id(0, 0), &[id(1, 0), id(2, 0)]);
        let mut p = Path::new(
            vec![Planned {
                expect: Some(pt.clone()),
                taken: 1,
                prefer: None,
                before: None,
            }],
            Policy::First,
        );
        assert!(!p.exhausted());
        assert_eq!(p.take(pt).unwrap().1, Alternative::Send(id(2, 0)));
        assert!(p.exhausted());
    }

    #[test]
    fn another_point_than_planned_is_a_divergence() {
        let planned = point(id(0, 0), &[id(1, 0)]);
        let found = point(id(0, 0), &[id(2, 0)]);
        let mut p = Path::new(
            vec![Planned {
                expect: Some(planned.clone()),
                taken: 0,
                prefer: None,
                before: None,
            }],
            Policy::First,
        );
        assert_eq!(
            p.take(found.clone()),
            Err(RunEnd::Divergence {
                index: 0,
                expected: Some(planned),
                found: Some(found),
            })
        );
        assert!(p.choices().is_empty());
    }

    #[test]
    fn a_token_position_out_of_range_is_a_divergence() {
        let mut p = Path::new(
            vec![Planned {
                expect: None,
                taken: 2,
                prefer: None,
                before: None,
            }],
            Policy::First,
        );
        let r = p.take(point(id(0, 0), &[id(1, 0), id(2, 0)]));
        assert!(matches!(r, Err(RunEnd::Divergence { index: 0, .. })));
    }

    #[test]
    fn a_preferred_send_is_taken_wherever_it_lies() {
        let plan = |to: OpId| {
            vec![Planned {
                expect: None,
                taken: 0,
                prefer: Some(Alternative::Send(to)),
                before: None,
            }]
        };
        let mut p = Path::new(plan(id(2, 0)), Policy::First);
        let r = p.take(point(id(0, 0), &[id(1, 0), id(2, 0)]));
        assert_eq!(r, Ok((id(0, 0), Alternative::Send(id(2, 0)))));
        assert_eq!(p.choices()[0].taken, 1);
        // A point without it is a divergence.
        let mut p = Path::new(plan(id(3, 0)), Policy::First);
        let r = p.take(point(id(0, 0), &[id(1, 0), id(2, 0)]));
        assert!(matches!(r, Err(RunEnd::Divergence { index: 0, .. })));
    }

    #[test]
    fn defers_merge_the_other_points_and_put_their_own_to_sleep() {
        let a = point(id(0, 0), &[id(1, 0)]);
        let b = point(id(2, 5), &[id(1, 1), id(3, 0)]);
        let merged = with_defers(vec![a.clone(), b]).unwrap();
        assert_eq!(merged.at, id(0, 0));
        assert_eq!(merged.alternatives.len(), 3);
        assert_eq!(
            merged.alternatives[2],
            Alternative::Defer {
                at: id(2, 5),
                alt: Box::new(Alternative::Send(id(3, 0))),
            }
        );
        assert_eq!(with_defers(vec![]), None);
        // Taking the Defer fires at the other call; the point's own send
        // sleeps from then on, unless nothing else is left.
        let mut p = Path::new(
            vec![Planned {
                expect: None,
                taken: 2,
                prefer: None,
                before: None,
            }],
            Policy::First,
        );
        assert_eq!(
            p.take(merged).unwrap(),
            (id(2, 5), Alternative::Send(id(3, 0)))
        );
        let c = point(id(4, 0), &[id(1, 2)]);
        assert_eq!(p.awake(vec![a.clone(), c.clone()]), vec![c]);
        assert_eq!(p.awake(vec![a.clone()]), vec![a]);
    }

    #[test]
    fn awake_points_come_in_the_order_of_their_calls() {
        let p = Path::new(vec![], Policy::First);
        let late = point(id(1, 0), &[id(0, 0)]);
        let early = point(id(0, 3), &[id(1, 1)]);
        assert_eq!(
            p.awake(vec![late.clone(), early.clone()]),
            vec![early, late]
        );
    }
}
