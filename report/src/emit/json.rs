//! The machine-readable format: the report model as pretty-printed JSON,
//! with fields in the order [`crate::model`] declares them, and after the
//! programs, when some program was checked at several process counts, the
//! view across counts ([`crate::counts`]).

use serde::Serialize;

use crate::counts::{counts, ProgramCounts};
use crate::model::{NotChecked, ProgramReport, Report};

#[derive(Serialize)]
struct Json<'a> {
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    interrupted: bool,
    programs: &'a [ProgramReport],
    #[serde(skip_serializing_if = "<[NotChecked]>::is_empty")]
    not_checked: &'a [NotChecked],
    #[serde(skip_serializing_if = "Vec::is_empty")]
    counts: Vec<ProgramCounts>,
}

/// The report as pretty JSON, ending in a newline.
pub fn render(report: &Report) -> String {
    let json = Json {
        interrupted: report.interrupted,
        programs: &report.programs,
        not_checked: &report.not_checked,
        counts: counts(report),
    };
    // The model holds only strings, numbers, enums and vectors, so
    // serialising it cannot fail.
    let mut out =
        serde_json::to_string_pretty(&json).expect("the report model always serialises to JSON");
    out.push('\n');
    out
}
