//! The Fib pass: classifies every `MPI_Barrier` group of a program as
//! relevant or irrelevant, from the completes-before graph of each
//! interleaving POE explored.
//!
//! Its input is what [`poe::engine::Engine`] records for every run: each
//! rank's operations in program order and the match sets fired
//! ([`poe::engine::Fired`]). Like the engine it is pure: no I/O. The pass
//! itself is tracked as its own piece of work; until it lands this crate only
//! fixes its place in the workspace, and `fib check` reports no barrier
//! verdicts.
