//! Depth-first exploration of the interleavings of a program: which choices
//! to replay next, and the replay token that names an interleaving.
//!
//! An interleaving is named by the alternatives taken at its choice points,
//! in order. After each run the explorer backtracks to the latest choice
//! point with an alternative not yet taken; the next run replays the choices
//! before it and takes that alternative. Runs never repeat: two runs differ
//! at their first differing choice point, where they took different
//! alternatives.

use std::fmt;

use crate::engine::{Alternative, Choice, Planned};

/// A choice point on the current path, with what is known of its subtree.
struct Entry {
    choice: Choice,
    /// Alternatives already run (or being run).
    explored: Vec<bool>,
    /// Alternatives to run: the point's own, and the
    /// [`Alternative::Defer`]s that some run in the subtree woke (unless
    /// [`Explorer::slept`]).
    wanted: Vec<bool>,
}

/// Walks the tree of choice sequences.
#[derive(Default)]
pub struct Explorer {
    stack: Vec<Entry>,
    started: bool,
    runs: usize,
}

impl Explorer {
    /// An explorer that starts at the first interleaving.
    pub fn new() -> Explorer {
        Explorer::default()
    }

    /// The plan of the next run, or `None` when every interleaving has run.
    pub fn next_plan(&mut self) -> Option<Vec<Planned>> {
        if !self.started {
            self.started = true;
            return Some(Vec::new());
        }
        while let Some(last) = self.stack.last_mut() {
            let next = (0..last.wanted.len()).find(|&i| last.wanted[i] && !last.explored[i]);
            if let Some(i) = next {
                last.choice.taken = i;
                last.explored[i] = true;
                return Some(
                    self.stack
                        .iter()
                        .map(|e| Planned {
                            expect: Some(e.choice.point.clone()),
                            taken: e.choice.taken,
                        })
                        .collect(),
                );
            }
            self.stack.pop();
        }
        None
    }

    /// Records the choices a run took (its plan, then first alternatives).
    pub fn finished(&mut self, choices: &[Choice]) {
        self.runs += 1;
        let kept = self.stack.len().min(choices.len());
        self.stack.truncate(kept);
        for (i, c) in choices.iter().enumerate() {
            if i >= kept {
                let n = c.point.alternatives.len();
                let mut explored = vec![false; n];
                explored[c.taken] = true;
                self.stack.push(Entry {
                    choice: c.clone(),
                    explored,
                    wanted: c
                        .point
                        .alternatives
                        .iter()
                        .map(|a| !matches!(a, Alternative::Defer { .. }))
                        .collect(),
                });
            }
            for &w in &c.wake {
                if w < self.stack[i].wanted.len() && !self.slept(i, w) {
                    self.stack[i].wanted[w] = true;
                }
            }
        }
    }

    /// Whether waking alternative `w` of the choice point at `depth` would
    /// only repeat runs: `w` defers that point to a choice which a choice
    /// point above took first, through an [`Alternative::Defer`] of its own,
    /// in a branch already explored. The choice was still open down here, so
    /// nothing this branch ran before it depended on it, and that branch ran
    /// it ahead of all of them (the choice sleeps, in the terms of sleep
    /// sets). Only the explorer knows what was explored: a replay token names
    /// positions, so the engine's choices cannot depend on it.
    fn slept(&self, depth: usize, w: usize) -> bool {
        let Alternative::Defer { at, alt } = &self.stack[depth].choice.point.alternatives[w] else {
            return false;
        };
        self.stack[..depth].iter().any(|e| {
            e.choice
                .point
                .alternatives
                .iter()
                .enumerate()
                .any(|(p, a)| {
                    p != e.choice.taken
                        && e.explored[p]
                        && matches!(a, Alternative::Defer { at: x, alt: y } if x == at && y == alt)
                })
        })
    }

    /// How many runs have been recorded.
    pub fn runs(&self) -> usize {
        self.runs
    }
}

/// The name of one interleaving: the alternative taken at each choice point.
/// Written as the positions joined by dots (`1.0.2`), or `-` when the run had
/// no choice point.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Token(pub Vec<usize>);

impl Token {
    /// The token of a run that took these choices.
    pub fn of(choices: &[Choice]) -> Token {
        Token(choices.iter().map(|c| c.taken).collect())
    }

    /// A plan that replays this token without knowing the choice points.
    pub fn plan(&self) -> Vec<Planned> {
        self.0
            .iter()
            .map(|&taken| Planned {
                expect: None,
                taken,
            })
            .collect()
    }
}

impl fmt::Display for Token {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() {
            return write!(f, "-");
        }
        for (i, t) in self.0.iter().enumerate() {
            if i > 0 {
                write!(f, ".")?;
            }
            write!(f, "{t}")?;
        }
        Ok(())
    }
}

impl std::str::FromStr for Token {
    type Err = String;

    fn from_str(s: &str) -> Result<Token, String> {
        let s = s.trim();
        if s == "-" || s.is_empty() {
            return Ok(Token(Vec::new()));
        }
        s.split('.')
            .map(|p| {
                p.parse::<usize>().map_err(|_| {
                    format!("`{s}` is not a replay token (expected e.g. `1.0.2` or `-`)")
                })
            })
            .collect::<Result<Vec<_>, _>>()
            .map(Token)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_round_trip() {
        for s in ["-", "0", "1.0.2"] {
            assert_eq!(s.parse::<Token>().unwrap().to_string(), s);
        }
        assert!("1..2".parse::<Token>().is_err());
        assert!("x".parse::<Token>().is_err());
    }
}
