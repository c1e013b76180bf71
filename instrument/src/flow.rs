//! Where one call's outputs flow, in time linear in what they reach.
//!
//! [`crate::facts`] asks, for every wildcard receive, probe and
//! `MPI_Waitany` site, whether what the call writes (its data, its status,
//! its index) reaches anything MPI sees. Asked by recomputing the program's
//! cleanliness from each site's roots and scanning every call, that is
//! quadratic in the program. [`Flow`] builds the program model's def-use
//! graph once (a variable or a function's result is a node; an edge runs
//! from what a definition reads to what it defines; a taint names the
//! variables it defines), and an index from each node to the places that
//! read it (a call's argument, a condition around a call). A query then
//! walks only what the site's outputs reach ([`Flow::reach`]), and looks only
//! at the places those nodes are read ([`Flow::hits`]).
//!
//! The graph is the one [`crate::facts`]'s cleanliness is a fixpoint over: an expression reads the variables it names, the results
//! of the program's functions it calls, and what it passes to a function
//! whose result depends only on its arguments or that fib cannot see; the
//! results of MPI calls (error codes), of allocators, and of library
//! sources (the clock, input) carry none of a call's outputs. What a
//! library function reads from a file carries what the program wrote into
//! files ([`FILES`]).

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use crate::ir::{CallInfo, Expr, Ir};
use crate::library::{
    data_out_root, seen_function, sends_data, ALLOCATORS, EXITS, LOCAL_MPI, MPI_DATA_OUT, SOURCES,
    STATUS_READERS,
};

/// The pseudo-variable that stands for the contents of every file the
/// program writes: what it writes into a file (not to the standard output
/// or error) defines it, and what it reads from a file reads it.
pub(crate) const FILES: &str = "fib:files";

/// Library calls whose result is what they read from a stream or a file.
const FILE_RESULTS: &[&str] = &[
    "fgetc", "getc", "getchar", "getline", "read", "fread", "ftell",
];

/// Where a node is read: argument `1` of the call at index `0` of
/// [`Ir::calls`], or condition `1` around it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Use {
    Arg(usize, usize),
    Guard(usize, usize),
}

/// A node of the graph: a variable or a function's result.
pub(crate) type Node = u32;

/// A set of nodes ([`Flow::reach`]).
pub(crate) type Nodes = HashSet<Node>;

/// The def-use graph of a program model, and where each node is read.
pub(crate) struct Flow<'a> {
    pub ir: &'a Ir,
    ids: HashMap<&'a str, Node>,
    /// Node → the nodes it defines (part of).
    next: Vec<Vec<Node>>,
    /// Node → the nodes its definitions read.
    prev: Vec<Vec<Node>>,
    /// Taint → the variables it defines.
    tainted: HashMap<&'a str, Vec<Node>>,
    /// Node → the taints that define it.
    taints: Vec<Vec<&'a str>>,
    /// Node → where the calls of live functions read it.
    uses: Vec<Vec<Use>>,
    /// Per call: whether a condition around it decides an MPI operation or
    /// an exit (it is one, or calls a function that makes one).
    steers: Vec<bool>,
    /// Node → its strongly connected component, whose nodes reach each
    /// other and so reach the same places.
    comp: Vec<u32>,
    /// Component → its nodes.
    members: Vec<Vec<Node>>,
    /// Component → the components its nodes define.
    comp_next: Vec<Vec<u32>>,
    /// Component → whether what it holds reaches another rank, without
    /// (`[0]`) and with (`[1]`) the data sent counting as harmless.
    hits_below: [Vec<bool>; 2],
    /// The channels data sent can travel by ([`channel`]), by name.
    channels: Vec<&'static str>,
    /// Component → the channels what it holds is sent on (a bit each).
    feeds_below: Vec<u64>,
    /// Channel → the variables that what is sent on it fills.
    channel_roots: Vec<Vec<Node>>,
    /// Channel → what those variables reach.
    channel_sums: Vec<Summary>,
    /// Call → the channel (as a bit) its first argument's data is sent
    /// on, when it sends data on one fib follows.
    call_feeds: Vec<u64>,
}

/// What a set of starting nodes reaches ([`Flow::summary`]); the summary of
/// a union is the union of the summaries.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Summary {
    /// Another rank sees it, without and with the data sent counting as
    /// harmless.
    pub hits: [bool; 2],
    /// The channels it is sent on.
    pub feeds: u64,
}

impl std::ops::BitOr for Summary {
    type Output = Summary;
    fn bitor(self, o: Summary) -> Summary {
        Summary {
            hits: [self.hits[0] || o.hits[0], self.hits[1] || o.hits[1]],
            feeds: self.feeds | o.feeds,
        }
    }
}

/// The channel data sent by an MPI call travels on: `p2p` for the
/// point-to-point sends (which any receive may take), otherwise the
/// collective's name without the `I` of its nonblocking form (an
/// `MPI_Iallreduce`'s data meet an `MPI_Allreduce`'s). `None` for what fib
/// does not follow (one-sided communication, whose data land in window
/// memory).
fn channel(name: &str) -> Option<&'static str> {
    const P2P: &[&str] = &[
        "MPI_Send",
        "MPI_Ssend",
        "MPI_Bsend",
        "MPI_Rsend",
        "MPI_Isend",
        "MPI_Issend",
        "MPI_Ibsend",
        "MPI_Irsend",
        "MPI_Send_init",
        "MPI_Ssend_init",
        "MPI_Bsend_init",
        "MPI_Rsend_init",
        "MPI_Sendrecv",
        "MPI_Sendrecv_replace",
        "MPI_Recv",
        "MPI_Irecv",
        "MPI_Recv_init",
        "MPI_Mrecv",
    ];
    const COLLECTIVES: &[&str] = &[
        "MPI_Bcast",
        "MPI_Reduce",
        "MPI_Allreduce",
        "MPI_Scan",
        "MPI_Exscan",
        "MPI_Reduce_scatter",
        "MPI_Reduce_scatter_block",
        "MPI_Gather",
        "MPI_Gatherv",
        "MPI_Scatter",
        "MPI_Scatterv",
        "MPI_Allgather",
        "MPI_Allgatherv",
        "MPI_Alltoall",
        "MPI_Alltoallv",
    ];
    if P2P.contains(&name) {
        return Some("p2p");
    }
    let blocking = match name.strip_prefix("MPI_I") {
        Some(rest) if rest.starts_with(|c: char| c.is_ascii_lowercase()) => {
            let mut s = String::from("MPI_");
            let mut cs = rest.chars();
            s.extend(cs.next().map(|c| c.to_ascii_uppercase()));
            s.push_str(cs.as_str());
            s
        }
        _ => name.to_string(),
    };
    COLLECTIVES.iter().find(|c| **c == blocking).copied()
}

impl<'a> Flow<'a> {
    /// Builds the graph of `ir`; only calls the `live` predicate accepts
    /// are indexed as readers.
    pub(crate) fn new(ir: &'a Ir, live: &dyn Fn(&CallInfo) -> bool) -> Flow<'a> {
        let mut f = Flow {
            ir,
            ids: HashMap::default(),
            next: Vec::new(),
            prev: Vec::new(),
            tainted: HashMap::default(),
            taints: Vec::new(),
            uses: Vec::new(),
            steers: Vec::new(),
            comp: Vec::new(),
            members: Vec::new(),
            comp_next: Vec::new(),
            hits_below: [Vec::new(), Vec::new()],
            channels: Vec::new(),
            feeds_below: Vec::new(),
            channel_roots: Vec::new(),
            channel_sums: Vec::new(),
            call_feeds: Vec::new(),
        };
        let mut atoms = Vec::new();
        for (k, v) in &ir.vars {
            let to = f.id(k);
            for d in &v.defs {
                match d {
                    crate::ir::Def::Expr(e) => {
                        atoms.clear();
                        f.atoms(e, &mut atoms);
                        for &a in &atoms {
                            let from = f.id(a);
                            f.next[from as usize].push(to);
                            f.prev[to as usize].push(from);
                        }
                    }
                    crate::ir::Def::Taint(why) => {
                        f.tainted.entry(why).or_default().push(to);
                        f.taints[to as usize].push(why);
                    }
                    crate::ir::Def::Clean => {}
                }
            }
        }
        for (u, func) in &ir.funcs {
            let to = f.id(u);
            for e in &func.returns {
                atoms.clear();
                f.atoms(e, &mut atoms);
                for &a in &atoms {
                    let from = f.id(a);
                    f.next[from as usize].push(to);
                    f.prev[to as usize].push(from);
                }
            }
        }
        for (ci, c) in ir.calls.iter().enumerate() {
            if !live(c) {
                continue;
            }
            for (i, a) in c.args.iter().enumerate() {
                atoms.clear();
                f.atoms(a, &mut atoms);
                for &n in &atoms {
                    let n = f.id(n);
                    f.uses[n as usize].push(Use::Arg(ci, i));
                }
            }
            for (gi, g) in c.guards.iter().enumerate() {
                atoms.clear();
                f.atoms(&g.expr, &mut atoms);
                for &n in &atoms {
                    let n = f.id(n);
                    f.uses[n as usize].push(Use::Guard(ci, gi));
                }
            }
        }
        f.steers = steering_calls(ir, live);
        // The channels, and what is sent on each may fill.
        let mut roots: Vec<Vec<Node>> = Vec::new();
        let name = |c: &'a CallInfo| c.callee.strip_prefix('P').unwrap_or(&c.callee);
        for c in ir.calls.iter().filter(|c| name(c).starts_with("MPI_")) {
            let Some(ch) = channel(name(c)) else {
                continue;
            };
            let k = match f.channels.iter().position(|x| *x == ch) {
                Some(k) => k,
                None => {
                    f.channels.push(ch);
                    roots.push(Vec::new());
                    f.channels.len() - 1
                }
            };
            for (n, _, what) in MPI_DATA_OUT
                .iter()
                .filter(|(n, _, w)| *n == c.callee && *w == "filled by")
            {
                let why = data_out_root(what, n, &c.at);
                roots[k].extend(f.tainted.get(why.as_str()).into_iter().flatten().copied());
            }
        }
        f.channel_roots = roots;
        f.call_feeds = ir
            .calls
            .iter()
            .map(|c| {
                let sends = name(c).starts_with("MPI_") && sends_data(name(c));
                let k = sends
                    .then(|| channel(name(c)))
                    .flatten()
                    .and_then(|ch| f.channels.iter().position(|x| *x == ch));
                k.filter(|&k| k < 64).map_or(0, |k| 1 << k)
            })
            .collect();
        f.condense();
        f.channel_sums = f.channel_roots.iter().map(|r| f.summary(r)).collect();
        f
    }

    /// The node of a variable or function, made on first sight.
    fn id(&mut self, name: &'a str) -> Node {
        if let Some(&n) = self.ids.get(name) {
            return n;
        }
        let n = self.next.len() as Node;
        self.ids.insert(name, n);
        self.next.push(Vec::new());
        self.prev.push(Vec::new());
        self.taints.push(Vec::new());
        self.uses.push(Vec::new());
        n
    }

    /// Finds the strongly connected components (Tarjan's algorithm, with
    /// an explicit stack), and for each whether what it holds reaches
    /// another rank: from the components it defines, which Tarjan's
    /// algorithm closes first.
    fn condense(&mut self) {
        const NONE: u32 = u32::MAX;
        let n = self.next.len();
        let mut index = vec![NONE; n];
        let mut low = vec![0u32; n];
        let mut on_stack = vec![false; n];
        let mut stack: Vec<Node> = Vec::new();
        let mut comp = vec![NONE; n];
        let mut members: Vec<Vec<Node>> = Vec::new();
        let mut counter = 0u32;
        for start in 0..n as Node {
            if index[start as usize] != NONE {
                continue;
            }
            // (node, next edge to look at)
            let mut work: Vec<(Node, usize)> = vec![(start, 0)];
            index[start as usize] = counter;
            low[start as usize] = counter;
            counter += 1;
            stack.push(start);
            on_stack[start as usize] = true;
            while let Some(&mut (v, ref mut e)) = work.last_mut() {
                let vu = v as usize;
                if let Some(&w) = self.next[vu].get(*e) {
                    *e += 1;
                    let wu = w as usize;
                    if index[wu] == NONE {
                        index[wu] = counter;
                        low[wu] = counter;
                        counter += 1;
                        stack.push(w);
                        on_stack[wu] = true;
                        work.push((w, 0));
                    } else if on_stack[wu] {
                        low[vu] = low[vu].min(index[wu]);
                    }
                    continue;
                }
                work.pop();
                if let Some(&(p, _)) = work.last() {
                    low[p as usize] = low[p as usize].min(low[vu]);
                }
                if low[vu] == index[vu] {
                    let c = members.len() as u32;
                    let mut m = Vec::new();
                    while let Some(w) = stack.pop() {
                        on_stack[w as usize] = false;
                        comp[w as usize] = c;
                        m.push(w);
                        if w == v {
                            break;
                        }
                    }
                    members.push(m);
                }
            }
        }
        // Components come out successors first.
        let mut comp_next: Vec<Vec<u32>> = vec![Vec::new(); members.len()];
        let mut hits = [vec![false; members.len()], vec![false; members.len()]];
        let mut feeds = vec![0u64; members.len()];
        for (c, m) in members.iter().enumerate() {
            let mut next: Vec<u32> = m
                .iter()
                .flat_map(|&v| self.next[v as usize].iter().map(|&w| comp[w as usize]))
                .filter(|&d| d != c as u32)
                .collect();
            next.sort_unstable();
            next.dedup();
            for data in [false, true] {
                let own = m
                    .iter()
                    .flat_map(|&v| &self.uses[v as usize])
                    .any(|&u| self.matters(u, data));
                hits[data as usize][c] =
                    own || next.iter().any(|&d| hits[data as usize][d as usize]);
            }
            feeds[c] = m
                .iter()
                .flat_map(|&v| &self.uses[v as usize])
                .fold(0, |acc, &u| acc | self.feed(u))
                | next.iter().fold(0, |acc, &d| acc | feeds[d as usize]);
            comp_next[c] = next;
        }
        self.feeds_below = feeds;
        self.comp = comp;
        self.members = members;
        self.comp_next = comp_next;
        self.hits_below = hits;
    }

    /// The nodes an expression reads, as a query from a call's outputs
    /// sees them (see the module's documentation).
    pub(crate) fn atoms(&self, e: &'a Expr, out: &mut Vec<&'a str>) {
        out.extend(e.reads.iter().map(String::as_str));
        for call in &e.calls {
            let name = call.name.as_str();
            if FILE_RESULTS.contains(&name) {
                out.push(FILES);
                continue;
            }
            if SOURCES.contains(&name) || ALLOCATORS.contains(&name) {
                continue;
            }
            if name.starts_with("MPI_") || name.starts_with("PMPI_") {
                continue;
            }
            match call
                .usr
                .as_deref()
                .filter(|u| self.ir.funcs.contains_key(*u))
            {
                Some(u) => out.push(self.ir.funcs.get_key_value(u).map_or(u, |(k, _)| k)),
                None => {
                    for a in &call.args {
                        self.atoms(a, out);
                    }
                }
            }
        }
    }

    /// The nodes of an expression's atoms that the graph has.
    fn nodes_of(&self, e: &'a Expr) -> Vec<Node> {
        let mut atoms = Vec::new();
        self.atoms(e, &mut atoms);
        atoms
            .iter()
            .filter_map(|a| self.ids.get(a).copied())
            .collect()
    }

    /// Whether an expression reads one of `nodes`.
    pub(crate) fn reads(&self, e: &'a Expr, nodes: &Nodes) -> bool {
        self.nodes_of(e).iter().any(|a| nodes.contains(a))
    }

    /// Whether `name` (a variable's USR) is one of `nodes`.
    pub(crate) fn has(&self, nodes: &Nodes, name: &str) -> bool {
        self.ids.get(name).is_some_and(|n| nodes.contains(n))
    }

    /// The variables the taints `roots` define.
    pub(crate) fn roots<'r>(&self, roots: impl IntoIterator<Item = &'r String>) -> Vec<Node> {
        roots
            .into_iter()
            .flat_map(|r| self.tainted.get(r.as_str()).into_iter().flatten().copied())
            .collect()
    }

    /// Every node the taints `roots` reach.
    pub(crate) fn reach<'r>(&self, roots: impl IntoIterator<Item = &'r String>) -> Nodes {
        let mut todo = self.roots(roots);
        let mut seen: Nodes = todo.iter().copied().collect();
        while let Some(n) = todo.pop() {
            for &m in &self.next[n as usize] {
                if seen.insert(m) {
                    todo.push(m);
                }
            }
        }
        seen
    }

    /// The taints that reach an expression.
    pub(crate) fn sources(&self, e: &'a Expr) -> HashSet<&'a str> {
        let mut todo = self.nodes_of(e);
        let mut seen: Nodes = todo.iter().copied().collect();
        let mut out = HashSet::default();
        while let Some(n) = todo.pop() {
            out.extend(self.taints[n as usize].iter().copied());
            for &m in &self.prev[n as usize] {
                if seen.insert(m) {
                    todo.push(m);
                }
            }
        }
        out
    }

    /// Where the nodes `nodes` are read, in no particular order.
    pub(crate) fn uses_of<'s>(&'s self, nodes: &'s Nodes) -> impl Iterator<Item = Use> + 's {
        nodes
            .iter()
            .flat_map(|&n| self.uses[n as usize].iter().copied())
    }

    /// Whether what the nodes `starts` hold reaches what another rank can
    /// see: a condition on the way to an MPI operation or an exit, an MPI
    /// operation's argument other than the places it writes (and, with
    /// `data`, other than the data it sends), or an argument of a function
    /// fib cannot see; but for the places `exempt` takes. A walk of the
    /// components that reach anything ([`Flow::summary`] answers without
    /// exemptions), which stops at the first place `exempt` does not take.
    pub(crate) fn hits(&self, starts: &[Node], data: bool, exempt: &dyn Fn(Use) -> bool) -> bool {
        let below = &self.hits_below[data as usize];
        let mut todo: Vec<u32> = starts.iter().map(|&n| self.comp[n as usize]).collect();
        let mut seen: HashSet<u32> = todo.iter().copied().collect();
        while let Some(c) = todo.pop() {
            if !below[c as usize] {
                continue;
            }
            let own = self.members[c as usize]
                .iter()
                .flat_map(|&v| &self.uses[v as usize])
                .any(|&u| !exempt(u) && self.matters(u, data));
            if own {
                return true;
            }
            for &d in &self.comp_next[c as usize] {
                if seen.insert(d) {
                    todo.push(d);
                }
            }
        }
        false
    }

    /// The channel (as a bit) a read at `u` sends data on: the first
    /// argument of an MPI call that sends it, when fib follows the channel.
    fn feed(&self, u: Use) -> u64 {
        match u {
            Use::Arg(ci, 0) => self.call_feeds[ci],
            _ => 0,
        }
    }

    /// What the nodes `starts` reach, from their components' summaries.
    pub(crate) fn summary(&self, starts: &[Node]) -> Summary {
        starts.iter().fold(Summary::default(), |acc, &n| {
            let c = self.comp[n as usize] as usize;
            acc | Summary {
                hits: [self.hits_below[0][c], self.hits_below[1][c]],
                feeds: self.feeds_below[c],
            }
        })
    }

    /// The channels `feeds` (bits) send on, and those what they fill is
    /// sent on in turn, and so on.
    pub(crate) fn closure(&self, mut feeds: u64) -> u64 {
        loop {
            let more = self
                .channels_in(feeds)
                .fold(feeds, |acc, k| acc | self.channel_sums[k].feeds);
            if more == feeds {
                return feeds;
            }
            feeds = more;
        }
    }

    /// The channels of the bits `feeds`.
    fn channels_in(&self, feeds: u64) -> impl Iterator<Item = usize> {
        (0..self.channels.len().min(64)).filter(move |k| feeds & (1 << k) != 0)
    }

    /// Whether what data sent on the channels `feeds` may fill reaches
    /// another rank, with the data sent counting as harmless.
    pub(crate) fn filled_hits(&self, feeds: u64) -> bool {
        self.channels_in(feeds)
            .any(|k| self.channel_sums[k].hits[1])
    }

    /// The variables that data sent on the channels `feeds` may fill.
    pub(crate) fn filled(&self, feeds: u64) -> Vec<Node> {
        self.channels_in(feeds)
            .flat_map(|k| self.channel_roots[k].iter().copied())
            .collect()
    }

    /// Whether what a [`Summary`] stands for, and the data it becomes on
    /// other ranks once sent, reaches what another rank can see (see
    /// [`Flow::hits`]); a value no MPI call sends stops being followed
    /// where it is sent.
    pub(crate) fn escapes(&self, s: Summary) -> bool {
        s.hits[0] && (s.hits[1] || self.filled_hits(self.closure(s.feeds)))
    }

    /// [`Flow::escapes`] for what the nodes `starts` hold, but for the
    /// places `exempt` takes.
    pub(crate) fn escapes_but(&self, starts: &[Node], exempt: &dyn Fn(Use) -> bool) -> bool {
        if !self.hits(starts, false, exempt) {
            return false;
        }
        let filled = self.filled(self.closure(self.summary(starts).feeds));
        let all: Vec<Node> = starts.iter().chain(&filled).copied().collect();
        self.hits(&all, true, exempt)
    }

    /// Whether a read at `u` is seen by another rank (see [`Flow::hits`]).
    pub(crate) fn matters(&self, u: Use, data: bool) -> bool {
        match u {
            Use::Guard(ci, _) => self.steers[ci],
            Use::Arg(ci, i) => {
                let c = &self.ir.calls[ci];
                let name = c.callee.strip_prefix('P').unwrap_or(&c.callee);
                if name.starts_with("MPI_") {
                    if LOCAL_MPI.contains(&name) || STATUS_READERS.contains(&name) {
                        return false;
                    }
                    let out = MPI_DATA_OUT.iter().any(|(n, k, _)| *n == name && *k == i);
                    !(out || data && self.feed(u) != 0)
                } else if EXITS.contains(&name) {
                    false
                } else {
                    !seen_function(self.ir, c)
                }
            }
        }
    }
}

/// Per call of `ir`: whether it is an MPI operation (other than a local
/// one) or an exit, or calls a function of the program that makes one,
/// directly or not. A condition around such a call steers what another
/// rank sees.
fn steering_calls(ir: &Ir, live: &dyn Fn(&CallInfo) -> bool) -> Vec<bool> {
    let direct = |c: &CallInfo| {
        let name = c.callee.strip_prefix('P').unwrap_or(&c.callee);
        let mpi = name.starts_with("MPI_")
            && !LOCAL_MPI.contains(&name)
            && !STATUS_READERS.contains(&name);
        mpi || EXITS.contains(&name)
    };
    // The functions that make such a call, found from the calls up.
    let mut callers_of: HashMap<&str, Vec<&str>> = HashMap::default();
    let mut makes: HashSet<&str> = HashSet::default();
    let mut todo: Vec<&str> = Vec::new();
    for c in ir.calls.iter().filter(|c| live(c)) {
        let Some(f) = c.caller.as_deref() else {
            continue;
        };
        if let Some(u) = c
            .callee_usr
            .as_deref()
            .filter(|u| ir.funcs.contains_key(*u))
        {
            callers_of.entry(u).or_default().push(f);
        }
        if direct(c) && makes.insert(f) {
            todo.push(f);
        }
    }
    while let Some(f) = todo.pop() {
        for &g in callers_of.get(f).into_iter().flatten() {
            if makes.insert(g) {
                todo.push(g);
            }
        }
    }
    ir.calls
        .iter()
        .map(|c| {
            direct(c)
                || c.callee_usr
                    .as_deref()
                    .is_some_and(|u| ir.funcs.contains_key(u) && makes.contains(u))
        })
        .collect()
}
