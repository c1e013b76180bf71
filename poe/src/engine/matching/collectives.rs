//! Collective matching: a communicator's collectives match in each
//! member's order of them, and a set fires once every member has called
//! its earliest unmatched one (or is a mismatch when they disagree). The
//! collectives that make communicators give their ids here, among them the
//! intercommunicators, whose two groups `MPI_Intercomm_create` joins when
//! both leaders name each other. `MPI_Finalize` is the collective over all
//! ranks.

use rustc_hash::FxHashMap as HashMap;

use fib_wire::{self as wire, Down};

use super::Matching;
use crate::engine::model::{
    collectives_agree, creates_agree, inter_collectives_agree, CollWhat, Fired, Kind, OpId, Rank,
    RunEnd,
};

/// The bit set in the ids of the communicators `MPI_Comm_create_group`
/// calls match in ([`Matching::group_comm`]), which no rank ever names.
const GROUP_COMM: u32 = 1 << 31;

impl Matching {
    /// The communicator in which the `MPI_Comm_create_group` calls over
    /// `members` of `parent` with `tag` match: only the group's members
    /// call it, apart from the parent's other collectives. Its id is derived
    /// from what it is (so it does not depend on which member's call came
    /// first) and has [`GROUP_COMM`] set.
    pub(super) fn group_comm(&mut self, parent: u32, members: &[u32], tag: i32) -> u32 {
        let key = (parent, members.to_vec(), tag);
        // FNV-1a over the words.
        let mut h: u32 = 0x811c_9dc5;
        let words = [parent, tag as u32, members.len() as u32];
        for w in words.iter().chain(members) {
            for b in w.to_le_bytes() {
                h ^= u32::from(b);
                h = h.wrapping_mul(0x0100_0193);
            }
        }
        let mut id = GROUP_COMM | (h & !GROUP_COMM);
        loop {
            match self.groups.get(&id) {
                Some(k) if *k == key => return id,
                Some(_) => id = GROUP_COMM | (id.wrapping_add(1) & !GROUP_COMM),
                None => {
                    self.groups.insert(id, key);
                    self.comms
                        .insert(id, members.iter().map(|&m| m as Rank).collect());
                    return id;
                }
            }
        }
    }

    /// Whether every rank waits in `MPI_Finalize`.
    pub(crate) fn at_finalize(&self) -> bool {
        !self.ranks.is_empty()
            && self.ranks.iter().all(|st| {
                st.blocked
                    .iter()
                    .any(|&i| matches!(st.ops[i].kind, Kind::Finalize))
            })
    }

    /// Fires `MPI_Finalize`: a collective over all ranks.
    pub(crate) fn finalize(&mut self) {
        let n = self.ranks.len();
        let ops: Vec<OpId> = (0..n)
            .map(|r| {
                let st = &self.ranks[r];
                let index = *(st.blocked.iter())
                    .find(|&&i| matches!(st.ops[i].kind, Kind::Finalize))
                    .expect("every rank waits in MPI_Finalize");
                OpId { rank: r, index }
            })
            .collect();
        self.fired.push(Fired::Collective { ops: ops.clone() });
        for id in ops {
            self.unblock(id);
            let st = &mut self.ranks[id.rank];
            st.ops[id.index].complete = true;
            st.finalized = true;
            self.out.push((id, Down::Go));
        }
    }

    /// The collectives whose every member has arrived, as (communicator,
    /// members), by communicator (each rank's `MPI_COMM_SELF` apart): on
    /// each communicator, every member's earliest collective call not
    /// matched yet, blocking or not. An `MPI_Intercomm_create` is ready
    /// once both sides are: the pair is listed once, under the side whose
    /// leader has the lower world rank ([`Matching::fire_collective`]
    /// fires both).
    pub(crate) fn ready_collectives(&self) -> Vec<(u32, Vec<Rank>)> {
        let full = self.full_collectives();
        let heads: Vec<_> = full
            .iter()
            .map(|(comm, m)| self.inter_create(*comm, m))
            .collect();
        full.into_iter()
            .zip(&heads)
            .filter(|(_, head)| match head {
                None => true,
                Some((leader, _, _)) => self
                    .partner(head.unwrap(), &heads)
                    .is_some_and(|p| *leader < heads[p].unwrap().0),
            })
            .map(|(set, _)| set)
            .collect()
    }

    /// For a full collective set on `comm` whose leader's earliest call
    /// is an `MPI_Intercomm_create`: the leader's world rank, the remote
    /// leader's and the tag.
    fn inter_create(&self, comm: u32, members: &[Rank]) -> Option<(Rank, Rank, i32)> {
        let first = OpId {
            rank: members[0],
            index: self.ranks[members[0]].colls[&comm][0],
        };
        let Kind::Coll {
            what: CollWhat::InterCreate { leader, .. },
            ..
        } = self.op(first).kind
        else {
            return None;
        };
        let at = OpId {
            rank: leader,
            index: *self.ranks.get(leader)?.colls.get(&comm)?.front()?,
        };
        match self.op(at).kind {
            Kind::Coll {
                what:
                    CollWhat::InterCreate {
                        remote: Some(remote),
                        tag,
                        ..
                    },
                ..
            } if members.contains(&leader) => Some((leader, remote, tag)),
            _ => None,
        }
    }

    /// The position in `heads` of the other side of the
    /// `MPI_Intercomm_create` `head`.
    fn partner(
        &self,
        head: (Rank, Rank, i32),
        heads: &[Option<(Rank, Rank, i32)>],
    ) -> Option<usize> {
        let (leader, remote, tag) = head;
        heads.iter().position(|h| *h == Some((remote, leader, tag)))
    }

    /// [`Matching::ready_collectives`] before `MPI_Intercomm_create` calls
    /// are paired.
    fn full_collectives(&self) -> Vec<(u32, Vec<Rank>)> {
        let mut out = Vec::new();
        let mut comms: Vec<u32> = Vec::new();
        for (r, st) in self.ranks.iter().enumerate() {
            for (&comm, q) in &st.colls {
                if q.is_empty() {
                    continue;
                }
                if comm == wire::COMM_SELF {
                    out.push((wire::COMM_SELF, vec![r]));
                } else {
                    comms.push(comm);
                }
            }
        }
        comms.sort_unstable();
        comms.dedup();
        for comm in comms {
            let members = &self.comms[&comm];
            if members.iter().all(|&m| {
                self.ranks[m]
                    .colls
                    .get(&comm)
                    .is_some_and(|q| !q.is_empty())
            }) {
                out.push((comm, members.clone()));
            }
        }
        out.sort_by_key(|(comm, m)| (*comm == wire::COMM_SELF, *comm, m[0]));
        out
    }

    /// Fires the collective of `comm` that all `members` have called (each
    /// one's earliest not matched yet), and returns its calls; or the
    /// mismatch, when they disagree on what it is. A blocking call's rank
    /// gets its answer; a nonblocking call completes, for a wait or test to
    /// find.
    pub(crate) fn fire_collective(
        &mut self,
        comm: u32,
        members: &[Rank],
    ) -> Result<Vec<OpId>, RunEnd> {
        let ids: Vec<OpId> = members
            .iter()
            .map(|&r| OpId {
                rank: r,
                index: self.ranks[r].colls[&comm][0],
            })
            .collect();
        let whats = self.whats(&ids);
        let agree = match self.inter.get(&comm) {
            Some([a, _]) => inter_collectives_agree(&whats, a.len()),
            None if matches!(whats[0], CollWhat::Create { .. }) => creates_agree(members, &whats),
            None => collectives_agree(&whats),
        };
        if !agree {
            return Err(self.mismatch(comm, &ids));
        }
        let (ids, comms, answers) = match self.inter_create(comm, members) {
            Some(head) => {
                // Both sides of an `MPI_Intercomm_create` fire together.
                let full = self.full_collectives();
                let heads: Vec<_> = full.iter().map(|(c, m)| self.inter_create(*c, m)).collect();
                let p = self.partner(head, &heads).expect("a ready pair");
                let (other, others) = &full[p];
                let other_ids: Vec<OpId> = others
                    .iter()
                    .map(|&r| OpId {
                        rank: r,
                        index: self.ranks[r].colls[other][0],
                    })
                    .collect();
                if !collectives_agree(&self.whats(&other_ids)) {
                    return Err(self.mismatch(*other, &other_ids));
                }
                let id = self.new_inter(members.to_vec(), others.clone()) as i32;
                let mut comms = vec![comm; ids.len()];
                comms.extend(vec![*other; other_ids.len()]);
                let all: Vec<OpId> = ids.iter().chain(&other_ids).copied().collect();
                let n = all.len();
                (all, comms, vec![Down::NewComm { id }; n])
            }
            None => {
                let answers = self.collective_answers(comm, members, &whats);
                (ids.clone(), vec![comm; ids.len()], answers)
            }
        };
        self.fired.push(Fired::Collective { ops: ids.clone() });
        let window = match (&whats[0], answers.first()) {
            (CollWhat::WinCreate { .. }, Some(Down::NewComm { id })) => Some((*id as u32, true)),
            (CollWhat::WinFence | CollWhat::WinFree, _) => Some((comm, false)),
            _ => None,
        };
        for ((id, answer), comm) in ids.iter().zip(answers).zip(comms) {
            let st = &mut self.ranks[id.rank];
            let q = st.colls.get_mut(&comm).unwrap();
            q.pop_front();
            if q.is_empty() {
                st.colls.remove(&comm);
            }
            if let Down::NewComm { id: c } = answer {
                if c >= 0 {
                    st.held.insert(c as u32, id.index);
                }
            }
            st.ops[id.index].complete = true;
            if let Kind::Coll { req: Some(_), .. } = st.ops[id.index].kind {
                if let Down::NewComm { id: c } = answer {
                    st.made.insert(id.index, c as u32);
                }
                continue;
            }
            self.release(*id, answer);
        }
        if let Some((win, created)) = window {
            self.window_collective(&ids, win, created);
        }
        Ok(ids)
    }

    /// Whether `op` is a nonblocking collective call.
    pub(crate) fn nonblocking_coll(&self, op: OpId) -> bool {
        matches!(self.op(op).kind, Kind::Coll { req: Some(_), .. })
    }

    /// What each of the calls `ids` does.
    fn whats(&self, ids: &[OpId]) -> Vec<CollWhat> {
        ids.iter()
            .map(|id| match &self.op(*id).kind {
                Kind::Coll { what, .. } => what.clone(),
                _ => unreachable!(),
            })
            .collect()
    }

    /// The mismatch of the calls `ids` on `comm`.
    fn mismatch(&self, comm: u32, ids: &[OpId]) -> RunEnd {
        RunEnd::CollectiveMismatch {
            comm,
            calls: ids
                .iter()
                .map(|id| (*id, self.op(*id).name, self.op(*id).site))
                .collect(),
        }
    }

    fn collective_answers(&mut self, comm: u32, members: &[Rank], whats: &[CollWhat]) -> Vec<Down> {
        match &whats[0] {
            CollWhat::Coll { .. } | CollWhat::WinFence | CollWhat::WinFree => {
                vec![Down::Go; members.len()]
            }
            CollWhat::WinCreate { .. } => {
                let id = self.new_comm(members.to_vec());
                vec![Down::NewComm { id: id as i32 }; members.len()]
            }
            CollWhat::Dup | CollWhat::Idup { .. } => {
                let id = match self.inter.get(&comm) {
                    Some([a, b]) => self.new_inter(a.clone(), b.clone()),
                    None => self.new_comm(members.to_vec()),
                };
                vec![Down::NewComm { id: id as i32 }; members.len()]
            }
            CollWhat::Merge { .. } => {
                // The group whose members gave `high` false comes first;
                // when both gave the same, the group holding the lower
                // world rank (the interposition library checks that MPI
                // made the same order).
                let [a, b] = self.inter[&comm].clone();
                let high = |w: &CollWhat| matches!(w, CollWhat::Merge { high: true });
                let (ha, hb) = (high(&whats[0]), high(&whats[a.len()]));
                let a_first = if ha != hb {
                    !ha
                } else {
                    a.iter().min() < b.iter().min()
                };
                let order = if a_first {
                    a.iter().chain(&b).copied().collect()
                } else {
                    b.iter().chain(&a).copied().collect()
                };
                let id = self.new_comm(order);
                vec![Down::NewComm { id: id as i32 }; members.len()]
            }
            CollWhat::InterCreate { .. } => unreachable!("fired with its partner"),
            CollWhat::Split { .. } => {
                let mut colors: Vec<i32> = whats
                    .iter()
                    .filter_map(|w| match w {
                        CollWhat::Split { color, .. } if *color != wire::UNDEFINED => Some(*color),
                        _ => None,
                    })
                    .collect();
                colors.sort_unstable();
                colors.dedup();
                // The members of an intercommunicator come group by group:
                // the first group's are the first `first` of them.
                let first = self.inter.get(&comm).map(|[a, _]| a.len());
                let mut ids = HashMap::default();
                for c in colors {
                    // In key order, ties in the order of the parent.
                    let part = |range: std::ops::Range<usize>| {
                        let mut group: Vec<(i32, usize, Rank)> = range
                            .filter_map(|i| match &whats[i] {
                                CollWhat::Split { color, key, .. } if *color == c => {
                                    Some((*key, i, members[i]))
                                }
                                _ => None,
                            })
                            .collect();
                        group.sort_unstable();
                        group.into_iter().map(|g| g.2).collect::<Vec<Rank>>()
                    };
                    let id = match first {
                        None => self.new_comm(part(0..members.len())) as i32,
                        // A colour both groups hold; elsewhere MPI_COMM_NULL.
                        Some(n) => {
                            let (a, b) = (part(0..n), part(n..members.len()));
                            if a.is_empty() || b.is_empty() {
                                -1
                            } else {
                                self.new_inter(a, b) as i32
                            }
                        }
                    };
                    ids.insert(c, id);
                }
                whats
                    .iter()
                    .map(|w| match w {
                        CollWhat::Split { color, .. } => Down::NewComm {
                            id: ids.get(color).copied().unwrap_or(-1),
                        },
                        _ => unreachable!(),
                    })
                    .collect()
            }
            // On an intercommunicator: the first group's subgroup and the
            // second's, or MPI_COMM_NULL for all when either is empty.
            CollWhat::Create { .. } if self.inter.contains_key(&comm) => {
                let n = self.inter[&comm][0].len();
                let side = |w: &CollWhat| match w {
                    CollWhat::Create { members } => {
                        members.iter().map(|&g| g as Rank).collect::<Vec<Rank>>()
                    }
                    _ => unreachable!("the calls agree"),
                };
                let (a, b) = (side(&whats[0]), side(&whats[n]));
                let id = if a.is_empty() || b.is_empty() {
                    -1
                } else {
                    self.new_inter(a.clone(), b.clone()) as i32
                };
                members
                    .iter()
                    .map(|r| Down::NewComm {
                        id: if a.contains(r) || b.contains(r) {
                            id
                        } else {
                            -1
                        },
                    })
                    .collect()
            }
            // Each member passes a group: the same one, or (`MPI_Comm_create`
            // since MPI 2.2) disjoint groups, each passed by all its members.
            // Each group makes one communicator, for its members.
            CollWhat::Create { .. } | CollWhat::CreateGroup { .. } => {
                let mut made: Vec<(&[u32], i32)> = Vec::new();
                let mut answers = Vec::with_capacity(members.len());
                for (w, r) in whats.iter().zip(members) {
                    let (CollWhat::Create { members: group }
                    | CollWhat::CreateGroup { members: group, .. }) = w
                    else {
                        unreachable!("the calls agree")
                    };
                    let id = if group.contains(&(*r as u32)) {
                        match made.iter().find(|(g, _)| *g == group.as_slice()) {
                            Some(&(_, id)) => id,
                            None => {
                                let id = self.new_comm(group.iter().map(|&g| g as Rank).collect())
                                    as i32;
                                made.push((group, id));
                                id
                            }
                        }
                    } else {
                        -1
                    };
                    answers.push(Down::NewComm { id });
                }
                answers
            }
        }
    }

    /// A new intercommunicator of the groups `a` and `b`.
    fn new_inter(&mut self, a: Vec<Rank>, b: Vec<Rank>) -> u32 {
        let id = self.new_comm(a.iter().chain(&b).copied().collect());
        self.inter.insert(id, [a, b]);
        id
    }

    fn new_comm(&mut self, members: Vec<Rank>) -> u32 {
        let id = self.next_comm;
        self.next_comm += 1;
        self.comms.insert(id, members);
        id
    }
}

#[cfg(test)]
mod tests {
    use fib_wire::{CollKind, Op, SendMode, ANY, COMM_WORLD, PROC_NULL, UNDEFINED};

    use super::*;
    use crate::engine::matching::testing::{call, id};
    use crate::engine::matching::Ready;
    use crate::engine::model::{model, Alternative, Handles, Leak, Peer};

    /// The communicator each rank's answer gives it, by rank (-1:
    /// `MPI_COMM_NULL`).
    fn new_comm_ids(m: &mut Matching) -> Vec<i32> {
        let mut out = m.take_out();
        out.sort_by_key(|(r, _)| *r);
        out.iter()
            .map(|(_, d)| match d {
                Down::NewComm { id } => *id,
                d => panic!("{d:?}"),
            })
            .collect()
    }

    #[test]
    fn a_full_collective_fires_and_creates_communicators() {
        let mut m = Matching::new(3);
        for (r, color) in [(0, 1), (1, UNDEFINED), (2, 1)] {
            call(
                &mut m,
                r,
                Op::CommSplit {
                    comm: COMM_WORLD,
                    color,
                    key: -(r as i32),
                },
            );
        }
        let ready = m.ready_collectives();
        assert_eq!(ready, vec![(COMM_WORLD, vec![0, 1, 2])]);
        let ids = m.fire_collective(COMM_WORLD, &ready[0].1).unwrap();
        assert_eq!(ids, vec![id(0, 0), id(1, 0), id(2, 0)]);
        let out = m.take_out();
        let new = wire::FIRST_USER_COMM as i32;
        assert_eq!(
            out,
            vec![
                (0, Down::NewComm { id: new }),
                (1, Down::NewComm { id: -1 }),
                (2, Down::NewComm { id: new }),
            ]
        );
        // Keys order the new communicator: rank 2 (key -2) comes first.
        assert_eq!(m.members(0, new as u32), Some(&[2, 0][..]));
        assert!(m.leaks().contains(&Leak::Comm {
            op: id(2, 0),
            comm: new as u32
        }));
    }

    /// Four ranks split by parity (communicators 2: ranks 0, 2 and 3:
    /// ranks 1, 3), joined by an intercommunicator (4), whose id is
    /// returned.
    fn intercomm(m: &mut Matching) -> u32 {
        for r in 0..4 {
            call(
                m,
                r,
                Op::CommSplit {
                    comm: COMM_WORLD,
                    color: r as i32 % 2,
                    key: r as i32,
                },
            );
        }
        let ready = m.ready_collectives();
        m.fire_collective(COMM_WORLD, &ready[0].1).unwrap();
        m.take_out();
        for r in 0..4 {
            call(
                m,
                r,
                Op::IntercommCreate {
                    local_comm: 2 + r as u32 % 2,
                    local_leader: 0,
                    peer_comm: COMM_WORLD,
                    remote_leader: 1 - r as i32 % 2,
                    tag: 7,
                },
            );
            if r < 3 {
                // One side alone, or a side and part of the other: nothing
                // is ready.
                assert!(m.ready_collectives().is_empty(), "{r}");
            }
        }
        let ready = m.ready_collectives();
        assert_eq!(ready, vec![(2, vec![0, 2])], "one entry for the pair");
        let ids = m.fire_collective(2, &ready[0].1).unwrap();
        assert_eq!(ids, vec![id(0, 1), id(2, 1), id(1, 1), id(3, 1)]);
        let mut out = m.take_out();
        out.sort_by_key(|(r, _)| *r);
        assert_eq!(
            out,
            (0..4)
                .map(|r| (r, Down::NewComm { id: 4 }))
                .collect::<Vec<_>>()
        );
        assert!(m.ready_collectives().is_empty());
        4
    }

    #[test]
    fn intercomm_ranks_name_the_remote_group() {
        let mut m = Matching::new(4);
        let ic = intercomm(&mut m);
        assert!(m.is_inter(ic));
        assert_eq!(m.members(0, ic), Some(&[0, 2, 1, 3][..]));
        assert_eq!(m.peers(0, ic), Some(&[1, 3][..]));
        assert_eq!(m.peers(3, ic), Some(&[0, 2][..]));
        let on = |dest| Op::Send {
            mode: SendMode::Standard,
            dest,
            tag: 5,
            comm: ic,
            req: None,
        };
        // Rank 1 of the remote group is world rank 3 for rank 0, and world
        // rank 2 for rank 1.
        let s = call(&mut m, 0, on(1));
        assert!(matches!(
            m.op(s).kind,
            Kind::Send {
                dst: Peer::Rank(3),
                ..
            }
        ));
        let s2 = call(&mut m, 1, on(1));
        assert!(matches!(
            m.op(s2).kind,
            Kind::Send {
                dst: Peer::Rank(2),
                ..
            }
        ));
        let r = call(
            &mut m,
            3,
            Op::Recv {
                src: 0,
                tag: 5,
                comm: ic,
                req: 1,
                blocking: true,
            },
        );
        assert!(matches!(
            m.op(r).kind,
            Kind::Recv {
                src: Peer::Rank(0),
                ..
            }
        ));
        let (send, recv) = m.named_pair().unwrap();
        assert_eq!((send, recv), (s, r));
        m.match_pair(&m.pair(send, recv), false);
        // The source is posted as a rank of the receiver's remote group.
        assert_eq!(
            m.take_out(),
            vec![(
                3,
                Down::PostRecv {
                    req: 1,
                    src: 0,
                    tag: 5
                }
            )]
        );
        // A rank of the local group is no destination: the remote group
        // has two ranks.
        let bad = model(&m, 0, &on(2), false).unwrap_err();
        assert_eq!(
            bad,
            "rank 2 is out of range for a communicator of 2 processes"
        );
    }

    #[test]
    fn an_intercomm_wildcard_chooses_among_the_remote_group() {
        let mut m = Matching::new(4);
        let ic = intercomm(&mut m);
        let on = |comm| Op::Send {
            mode: SendMode::Standard,
            dest: 0,
            tag: 0,
            comm,
            req: None,
        };
        let any = call(
            &mut m,
            0,
            Op::Recv {
                src: ANY,
                tag: ANY,
                comm: ic,
                req: 1,
                blocking: true,
            },
        );
        let a = call(&mut m, 1, on(ic));
        let b = call(&mut m, 3, on(ic));
        // A send on the local communicator to world rank 0 is no candidate.
        call(&mut m, 2, on(2));
        call(&mut m, 2, Op::Finalize);
        let (points, polls) = m.choice_points();
        assert!(polls.is_empty());
        assert_eq!(points.len(), 1);
        assert_eq!(points[0].at, any);
        assert_eq!(
            points[0].alternatives,
            vec![Alternative::Send(a), Alternative::Send(b)]
        );
        m.match_pair(&m.pair(b, any), true);
        assert_eq!(
            m.take_out(),
            vec![(
                0,
                Down::PostRecv {
                    req: 1,
                    src: 1,
                    tag: 0
                }
            )]
        );
        m.release(any, Down::Go);
        m.take_out();
        // A probe on the intercommunicator sees the remote rank too.
        let p = call(
            &mut m,
            0,
            Op::Probe {
                src: 0,
                tag: ANY,
                comm: ic,
                blocking: true,
            },
        );
        assert_eq!(m.ready(0), Some(Ready::Probe(p, a)));
        assert_eq!(
            m.probe(p, a),
            Down::Probed {
                found: true,
                src: 0,
                tag: 0
            }
        );
    }

    #[test]
    fn intercomm_collectives_check_roots_by_group_and_merge_orders_groups() {
        let mut m = Matching::new(4);
        let ic = intercomm(&mut m);
        let bcast = |root| Op::Coll {
            kind: CollKind::Bcast,
            comm: ic,
            root,
        };
        // Rank 2 of the first group is the root: rank 1 in it.
        for (r, root) in [(0, PROC_NULL), (2, wire::ROOT), (1, 1), (3, 1)] {
            call(&mut m, r, bcast(root));
        }
        let ready = m.ready_collectives();
        assert_eq!(ready, vec![(ic, vec![0, 2, 1, 3])]);
        assert!(m.fire_collective(ic, &ready[0].1).is_ok());
        m.take_out();
        // The remote group names the wrong root.
        for (r, root) in [(0, PROC_NULL), (2, wire::ROOT), (1, 1), (3, 0)] {
            call(&mut m, r, bcast(root));
        }
        let ready = m.ready_collectives();
        assert!(matches!(
            m.fire_collective(ic, &ready[0].1),
            Err(RunEnd::CollectiveMismatch { comm, .. }) if comm == ic
        ));
        // Merge: the second group (ranks 1, 3) says high false: it comes
        // first.
        let mut m = Matching::new(4);
        let ic = intercomm(&mut m);
        for r in 0..4 {
            call(
                &mut m,
                r,
                Op::IntercommMerge {
                    comm: ic,
                    high: r % 2 == 0,
                },
            );
        }
        let ready = m.ready_collectives();
        m.fire_collective(ic, &ready[0].1).unwrap();
        assert_eq!(m.members(0, 5), Some(&[1, 3, 0, 2][..]));
        assert!(!m.is_inter(5));
        // Every rank holds the intercommunicator and the merged one.
        let leaks = m.leaks();
        assert!(leaks.contains(&Leak::Comm {
            op: id(1, 1),
            comm: ic
        }));
        assert!(leaks.contains(&Leak::Comm {
            op: id(1, 2),
            comm: 5
        }));
    }

    #[test]
    fn intercomm_split_and_create_pair_the_two_groups_parts() {
        // Groups (0, 2) and (1, 3). Split: colour 0 for ranks 0, 1 and 3,
        // colour 1 for rank 2 alone: colour 0 pairs (0) with (3, 1) in key
        // order, colour 1 has no remote part.
        let mut m = Matching::new(4);
        let ic = intercomm(&mut m);
        for (r, color, key) in [(0, 0, 0), (2, 1, 0), (1, 0, 5), (3, 0, 1)] {
            call(
                &mut m,
                r,
                Op::CommSplit {
                    comm: ic,
                    color,
                    key,
                },
            );
        }
        let ready = m.ready_collectives();
        m.fire_collective(ic, &ready[0].1).unwrap();
        let ids = new_comm_ids(&mut m);
        assert_eq!(ids, vec![5, 5, -1, 5]);
        assert!(m.is_inter(5));
        assert_eq!(m.peers(0, 5), Some(&[3, 1][..]));
        assert_eq!(m.peers(1, 5), Some(&[0][..]));
        // Create: each side gives a subgroup of its own; an empty one on
        // either side gives MPI_COMM_NULL to all.
        let create = |members: Vec<u32>| Op::CommCreate { comm: ic, members };
        for (r, g) in [(0, vec![2]), (2, vec![2]), (1, vec![1, 3]), (3, vec![1, 3])] {
            call(&mut m, r, create(g));
        }
        let ready = m.ready_collectives();
        m.fire_collective(ic, &ready[0].1).unwrap();
        let mut out = m.take_out();
        out.sort_by_key(|(r, _)| *r);
        assert_eq!(
            out.iter().map(|(_, d)| d.clone()).collect::<Vec<_>>(),
            vec![
                Down::NewComm { id: -1 },
                Down::NewComm { id: 6 },
                Down::NewComm { id: 6 },
                Down::NewComm { id: 6 }
            ]
        );
        assert_eq!(m.peers(2, 6), Some(&[1, 3][..]));
        for (r, g) in [(0, vec![]), (2, vec![]), (1, vec![1]), (3, vec![1])] {
            call(&mut m, r, create(g));
        }
        let ready = m.ready_collectives();
        m.fire_collective(ic, &ready[0].1).unwrap();
        assert!(m
            .take_out()
            .iter()
            .all(|(_, d)| *d == Down::NewComm { id: -1 }));
    }

    #[test]
    fn disagreeing_collectives_are_a_mismatch() {
        let mut m = Matching::new(2);
        call(
            &mut m,
            0,
            Op::Coll {
                kind: CollKind::Barrier,
                comm: COMM_WORLD,
                root: 0,
            },
        );
        call(&mut m, 1, Op::CommDup { comm: COMM_WORLD });
        let r = m.fire_collective(COMM_WORLD, &[0, 1]);
        assert!(matches!(
            r,
            Err(RunEnd::CollectiveMismatch { comm: COMM_WORLD, ref calls }) if calls.len() == 2
        ));
        assert!(m.ready_collectives().len() == 1, "nothing fired");
    }

    /// `MPI_Comm_create` with disjoint groups, each passed by its members
    /// (a process grid's rows): one communicator per group. Groups that
    /// overlap without being the same are a mismatch.
    #[test]
    fn creates_with_disjoint_groups_make_one_communicator_each() {
        let mut m = Matching::new(4);
        let create = |members: Vec<u32>| Op::CommCreate {
            comm: COMM_WORLD,
            members,
        };
        for (r, g) in [
            (0, vec![0, 1]),
            (1, vec![0, 1]),
            (2, vec![3, 2]),
            (3, vec![3, 2]),
        ] {
            call(&mut m, r, create(g));
        }
        m.fire_collective(COMM_WORLD, &[0, 1, 2, 3]).unwrap();
        let ids = new_comm_ids(&mut m);
        assert_eq!(ids[0], ids[1]);
        assert_eq!(ids[2], ids[3]);
        assert_ne!(ids[0], ids[2]);
        assert!(ids.iter().all(|&id| id > 0));
        // Group order is rank order in the new communicator.
        assert_eq!(m.comms[&(ids[2] as u32)], vec![3, 2]);
        // A group passed by a process outside it: that process gets none.
        for (r, g) in [(0, vec![1]), (1, vec![1]), (2, vec![]), (3, vec![])] {
            call(&mut m, r, create(g));
        }
        m.fire_collective(COMM_WORLD, &[0, 1, 2, 3]).unwrap();
        let ids = new_comm_ids(&mut m);
        assert_eq!(ids[0], -1);
        assert!(ids[1] > 0);
        assert_eq!(ids[2..], [-1, -1]);
        // Rank 1 says its group is {1, 2}, rank 2 that it is {2, 3}.
        for (r, g) in [
            (0, vec![0]),
            (1, vec![1, 2]),
            (2, vec![2, 3]),
            (3, vec![2, 3]),
        ] {
            call(&mut m, r, create(g));
        }
        let r = m.fire_collective(COMM_WORLD, &[0, 1, 2, 3]);
        assert!(matches!(
            r,
            Err(RunEnd::CollectiveMismatch { comm: COMM_WORLD, ref calls }) if calls.len() == 4
        ));
    }

    #[test]
    fn finalize_needs_every_rank() {
        let mut m = Matching::new(2);
        call(&mut m, 0, Op::Finalize);
        assert!(!m.at_finalize());
        call(&mut m, 1, Op::Finalize);
        assert!(m.at_finalize() && m.all_waiting());
        m.finalize();
        assert_eq!(m.take_out(), vec![(0, Down::Go), (1, Down::Go)]);
        assert!(m
            .rank_views()
            .iter()
            .all(|v| v.finalized && v.call.is_none()));
    }
}
