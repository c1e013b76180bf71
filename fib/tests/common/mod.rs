//! Helpers shared by the pass's integration tests: the pass as it was (the
//! oracle) and generated traces.

#![allow(dead_code)]

pub mod collector;
pub mod oracle;
