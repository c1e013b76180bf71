//! The space-time picture of one run, as data: one lane per rank with the
//! rank's calls in order (a window of them when the run is long), the match
//! sets that join them, and what the picture is about (the calls a deadlock
//! blocked in, a relevant barrier's witness). The analysis layer builds it
//! from a run's record; the HTML emitter draws it. It is never serialised:
//! the JSON output does not carry it.

/// A call of a run: the `index`-th intercepted call of `rank`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct At {
    pub rank: usize,
    pub index: usize,
}

/// What a call is in the picture.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// A call of the run like any other.
    Plain,
    /// The call a rank was blocked in when the run ended badly.
    Blocked,
    /// `MPI_Finalize`, or a finished rank's last call, when the run ended
    /// badly: the rank is done, not at fault.
    Waiting,
    /// The wildcard receive of a relevant barrier's witness.
    WitnessRecv,
    /// A barrier call of the relevant group, on the witness's path.
    WitnessBarrier,
    /// The send that could match the witness's receive without the barrier.
    WitnessSend,
    /// Another call on the witness's ordering path.
    OnPath,
    /// One of the two accesses of a race on window memory: the one-sided
    /// call, or the program's load or store (a [`Mark::touch`]).
    RaceAccess,
    /// The call that completes a racing one-sided call at its target (the
    /// unlock, flush, fence or `MPI_Win_complete` that ends its epoch).
    Completes,
}

/// One call drawn on its rank's lane.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mark {
    /// Its position among all the rank's calls (0-based).
    pub index: usize,
    /// The MPI function, such as `MPI_Recv`.
    pub call: String,
    /// Where it was made, when known.
    pub file: Option<String>,
    pub line: Option<u32>,
    /// The other end, when the call names one: `to 2`, `from any`.
    pub peer: Option<String>,
    pub role: Role,
    /// Not a call: a load or store of the program, made after the rank's
    /// call `index - 1` and before its call `index`, drawn before that
    /// call (`call` says "load" or "store").
    pub touch: bool,
}

/// One rank's lane: a window of its calls, in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lane {
    pub rank: usize,
    /// How many calls the rank made in the run.
    pub total: usize,
    /// The calls drawn, by increasing index; the calls between two marks
    /// whose indices are not consecutive are left out.
    pub marks: Vec<Mark>,
}

/// What joins calls of different ranks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LinkKind {
    /// A send and the receive that got it (`ends`: send, receive).
    Message {
        /// The receive was a wildcard whose source the scheduler chose.
        wildcard: bool,
    },
    /// A probe and the send it saw (`ends`: send, probe).
    Probe,
    /// The members of one collective (or `MPI_Finalize`) match set.
    Collective,
    /// The send that could match the wildcard receive without the barrier
    /// (`ends`: send, receive): a match that did not happen.
    Rival,
}

/// A match set, or a match that could have been, between drawn calls.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Link {
    pub kind: LinkKind,
    /// The calls it joins; for messages the send first.
    pub ends: Vec<At>,
    /// Whether it is on the path the picture is about.
    pub highlight: bool,
}

/// The picture of one run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Timeline {
    /// One lane per rank, by rank.
    pub lanes: Vec<Lane>,
    /// Match sets whose calls are all drawn.
    pub links: Vec<Link>,
    /// The ordering path the picture is about, call by call (through a
    /// collective: its call on the rank the path arrives from, then its call
    /// on the rank the path goes on to); empty when there is none.
    pub path: Vec<At>,
}

/// The column of every mark, for drawing: `columns[lane][mark]`.
pub type Columns = Vec<Vec<usize>>;

impl Timeline {
    /// How many calls of the run are not drawn.
    pub fn omitted(&self) -> usize {
        self.lanes
            .iter()
            .map(|l| {
                let calls = l.marks.iter().filter(|m| !m.touch).count();
                l.total.saturating_sub(calls)
            })
            .sum()
    }

    /// The drawn mark of call `at`, as (lane, position in the lane).
    pub fn find(&self, at: At) -> Option<(usize, usize)> {
        let lane = self.lanes.iter().position(|l| l.rank == at.rank)?;
        let pos = self.lanes[lane]
            .marks
            .binary_search_by_key(&(at.index, true), |m| (m.index, !m.touch))
            .ok()?;
        Some((lane, pos))
    }

    /// A column for every mark such that each rank's calls go left to
    /// right (with an empty column where calls are left out), a message is
    /// received to the right of its send, a probe to the right of the send
    /// it saw, and a collective's members share a column. The constraints
    /// come from one real run, so they can be met; should they not be (a
    /// record that contradicts itself), each mark keeps its position in its
    /// lane.
    pub fn columns(&self) -> Columns {
        // The least column of each mark from its lane alone.
        let mut cols: Columns = self
            .lanes
            .iter()
            .map(|l| {
                let mut c = 0;
                let mut prev: Option<usize> = None;
                l.marks
                    .iter()
                    .map(|m| {
                        if let Some(p) = prev {
                            c += if m.index > p + 1 { 2 } else { 1 };
                        } else if m.index > 0 {
                            c = 1;
                        }
                        prev = Some(m.index);
                        c
                    })
                    .collect()
            })
            .collect();
        let fallback = cols.clone();
        let resolved: Vec<(LinkKind, Vec<(usize, usize)>)> = self
            .links
            .iter()
            .filter(|l| l.kind != LinkKind::Rival)
            .filter_map(|l| {
                let ends: Option<Vec<_>> = l.ends.iter().map(|&a| self.find(a)).collect();
                Some((l.kind, ends?))
            })
            .collect();
        let marks: usize = self.lanes.iter().map(|l| l.marks.len()).sum();
        for _ in 0..=marks + 1 {
            let mut changed = false;
            let mut raise = |cols: &mut Columns, (l, m): (usize, usize), to: usize| {
                if cols[l][m] < to {
                    cols[l][m] = to;
                    changed = true;
                }
            };
            for (kind, ends) in &resolved {
                match kind {
                    LinkKind::Collective => {
                        let top = ends.iter().map(|&(l, m)| cols[l][m]).max().unwrap_or(0);
                        for &e in ends {
                            raise(&mut cols, e, top);
                        }
                    }
                    _ => {
                        if let [s, r] = ends[..] {
                            let to = cols[s.0][s.1] + 1;
                            raise(&mut cols, r, to);
                        }
                    }
                }
            }
            // Keep each lane in order, with its gaps.
            for (l, lane) in self.lanes.iter().enumerate() {
                for m in 1..lane.marks.len() {
                    let gap = if lane.marks[m].index > lane.marks[m - 1].index + 1 {
                        2
                    } else {
                        1
                    };
                    let to = cols[l][m - 1] + gap;
                    raise(&mut cols, (l, m), to);
                }
            }
            if !changed {
                return cols;
            }
        }
        fallback
    }
}

/// The calls of a lane of `total` calls to draw, at most `budget` of them:
/// the `focus` calls (indices below `total`), and as many of their
/// neighbours as fit, growing a window around each focus call in turn. With
/// no focus, the last calls. Sorted.
pub fn window(total: usize, focus: &[usize], budget: usize) -> Vec<usize> {
    if total <= budget {
        return (0..total).collect();
    }
    let mut focus: Vec<usize> = focus.iter().copied().filter(|&i| i < total).collect();
    focus.sort_unstable();
    focus.dedup();
    if focus.is_empty() {
        focus.push(total - 1);
    }
    focus.truncate(budget.max(1));
    let mut keep: std::collections::BTreeSet<usize> = focus.iter().copied().collect();
    // Each focus call's window, as [lo, hi].
    let mut spans: Vec<(usize, usize)> = focus.iter().map(|&i| (i, i)).collect();
    loop {
        let before = keep.len();
        for span in &mut spans {
            for side in [false, true] {
                if keep.len() >= budget {
                    break;
                }
                if side && span.1 + 1 < total {
                    span.1 += 1;
                    keep.insert(span.1);
                } else if !side && span.0 > 0 {
                    span.0 -= 1;
                    keep.insert(span.0);
                }
            }
        }
        if keep.len() >= budget || keep.len() == before {
            break;
        }
    }
    keep.into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mark(index: usize, call: &str) -> Mark {
        Mark {
            index,
            call: call.into(),
            file: None,
            line: None,
            peer: None,
            role: Role::Plain,
            touch: false,
        }
    }

    fn lane(rank: usize, marks: &[(usize, &str)]) -> Lane {
        Lane {
            rank,
            total: marks.last().map_or(0, |m| m.0 + 1),
            marks: marks.iter().map(|&(i, c)| mark(i, c)).collect(),
        }
    }

    fn at(rank: usize, index: usize) -> At {
        At { rank, index }
    }

    #[test]
    fn receives_go_right_of_their_sends_and_collectives_share_a_column() {
        let t = Timeline {
            lanes: vec![
                lane(
                    0,
                    &[(0, "MPI_Recv"), (1, "MPI_Barrier"), (2, "MPI_Finalize")],
                ),
                lane(1, &[(0, "MPI_Send"), (1, "MPI_Barrier")]),
                lane(2, &[(0, "MPI_Barrier"), (1, "MPI_Send")]),
            ],
            links: vec![
                Link {
                    kind: LinkKind::Message { wildcard: true },
                    ends: vec![at(1, 0), at(0, 0)],
                    highlight: false,
                },
                Link {
                    kind: LinkKind::Collective,
                    ends: vec![at(0, 1), at(1, 1), at(2, 0)],
                    highlight: true,
                },
                Link {
                    kind: LinkKind::Rival,
                    ends: vec![at(2, 1), at(0, 0)],
                    highlight: true,
                },
            ],
            path: Vec::new(),
        };
        let cols = t.columns();
        assert_eq!(cols, vec![vec![1, 2, 3], vec![0, 2], vec![2, 3]]);
        assert_eq!(t.omitted(), 0);
        assert_eq!(t.find(at(2, 1)), Some((2, 1)));
        assert_eq!(t.find(at(2, 5)), None);
    }

    #[test]
    fn left_out_calls_take_a_column_and_are_counted() {
        let mut l = lane(0, &[(0, "MPI_Init"), (5, "MPI_Recv")]);
        l.total = 9;
        let t = Timeline {
            lanes: vec![l],
            links: Vec::new(),
            path: Vec::new(),
        };
        assert_eq!(t.columns(), vec![vec![0, 2]]);
        assert_eq!(t.omitted(), 7);
    }

    #[test]
    fn contradictory_records_keep_lane_order() {
        // Each receive before the other's send: no columns satisfy both.
        let t = Timeline {
            lanes: vec![
                lane(0, &[(0, "MPI_Recv"), (1, "MPI_Send")]),
                lane(1, &[(0, "MPI_Recv"), (1, "MPI_Send")]),
            ],
            links: vec![
                Link {
                    kind: LinkKind::Message { wildcard: false },
                    ends: vec![at(0, 1), at(1, 0)],
                    highlight: false,
                },
                Link {
                    kind: LinkKind::Message { wildcard: false },
                    ends: vec![at(1, 1), at(0, 0)],
                    highlight: false,
                },
            ],
            path: Vec::new(),
        };
        assert_eq!(t.columns(), vec![vec![0, 1], vec![0, 1]]);
    }

    #[test]
    fn windows_keep_the_focus_and_its_neighbours_within_the_budget() {
        assert_eq!(window(5, &[], 40), vec![0, 1, 2, 3, 4]);
        assert_eq!(window(100, &[], 4), vec![96, 97, 98, 99]);
        assert_eq!(window(100, &[50], 5), vec![48, 49, 50, 51, 52]);
        assert_eq!(window(100, &[0, 99], 6), vec![0, 1, 2, 97, 98, 99]);
        let w = window(10_000, &[3, 5_000, 9_999], 40);
        assert_eq!(w.len(), 40);
        assert!(w.contains(&3) && w.contains(&5_000) && w.contains(&9_999));
    }
}
