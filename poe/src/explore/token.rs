//! The replay token: the name of one interleaving, as the alternatives taken
//! at its choice points, and its text form (`1.0.2`, or `-` for none).

use std::fmt;

use crate::engine::{Choice, Planned};

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
                prefer: None,
                before: None,
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
