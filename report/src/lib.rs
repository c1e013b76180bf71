//! Findings and how they are shown: the report model, the finding codes with
//! their explanations, and one emitter per output format; and what a project
//! does with findings: waivers in its sources, a baseline of known findings,
//! severity overrides, the view across process counts.

#![forbid(unsafe_code)]

pub mod baseline;
pub mod codes;
pub mod counts;
pub mod emit;
pub mod finding;
pub mod model;
pub mod overrides;
pub mod timeline;
pub mod waivers;

pub use finding::*;
pub use model::*;

/// The text `fib explain CODE` prints: the code, its name and severity, its
/// summary and its long explanation. `None` when no such code exists; the
/// code is matched ignoring case.
pub fn explain(code: &str) -> Option<String> {
    let c = codes::lookup(code)?;
    let severity = c.severity.as_str();
    Some(format!(
        "{} {} ({severity})\n\n{}\n\n{}",
        c.code, c.name, c.summary, c.explanation
    ))
}
