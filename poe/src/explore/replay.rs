//! Replay of one interleaving named by a [`Token`]: a single run that takes
//! the token's choices, then exploration is over.

use crate::engine::{Choice, Planned};

use super::{Strategy, Token};

/// Runs one token's plan once.
#[derive(Clone, Debug)]
pub struct Replay {
    token: Token,
    done: bool,
}

impl Replay {
    /// A replay of `token`.
    pub fn new(token: Token) -> Replay {
        Replay { token, done: false }
    }

    /// How many choices the token plans.
    pub fn planned(&self) -> usize {
        self.token.0.len()
    }

    /// Whether a run that took `choices` stopped before the token's last
    /// choice (the program did not reach a planned choice point).
    pub fn fell_short(&self, choices: &[Choice]) -> bool {
        choices.len() < self.planned()
    }
}

impl Strategy for Replay {
    fn next_plan(&mut self) -> Option<Vec<Planned>> {
        if self.done {
            return None;
        }
        self.done = true;
        Some(self.token.plan())
    }

    fn finished(&mut self, _choices: &[Choice]) {}
}
