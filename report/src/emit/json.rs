//! The machine-readable format: the report model as pretty-printed JSON,
//! with fields in the order [`crate::model`] declares them.

use crate::model::Report;

/// The report as pretty JSON, ending in a newline.
pub fn render(report: &Report) -> String {
    // The model holds only strings, numbers, enums and vectors, so
    // serialising it cannot fail.
    let mut out =
        serde_json::to_string_pretty(report).expect("the report model always serialises to JSON");
    out.push('\n');
    out
}
