//! Findings and how they are shown: the report model, the finding codes with
//! their explanations, and one emitter per output format.

pub mod model;

pub use model::*;
