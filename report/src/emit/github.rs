//! The format for CI logs: one GitHub Actions workflow command per finding,
//! which the runner turns into an annotation on the file and line, then the
//! totals line of the human format.
//!
//! ```text
//! ::error file=a.c,line=12,col=5,endLine=12,endColumn=40,title=FIB001 deadlock::deadlock: ...%0Arank 0: ...%0Areplay: 1.0
//! ```
//!
//! Errors are `::error`, warnings `::warning`, notes `::notice`. The title is
//! the code and its name; the message is the finding's message followed by
//! the ranks' states, notes, other places (labels), help and replay token, a
//! line each. Columns count UTF-16 code units, as SARIF's; `endColumn` is the
//! last column of the call, and the columns are given only when the call
//! lies on one line (annotations take columns only within a line). A finding
//! with no file gets no `file` or `line`, and names its program in the
//! message. Values are escaped as the runner requires: `%`, carriage return
//! and line feed everywhere, `:` and `,` in the properties too.

use std::fmt::Write as _;

use super::{detail_lines, Sources};
use crate::finding::{Finding, Severity};
use crate::model::{ProgramReport, Report};

/// One line per finding, then the totals line. The findings' files, which
/// turn byte spans into lines and columns, come from `load` (fib's command
/// line reads them relative to the current directory), which returns a
/// file's text or `None` when it cannot be read; the command then keeps
/// fib's line and column and has no end.
pub fn render_with_sources(
    report: &Report,
    load: &mut dyn FnMut(&str) -> Option<String>,
) -> String {
    let mut sources = Sources::new(load);
    let mut out = String::new();
    for p in &report.programs {
        for f in &p.findings {
            out.push_str(&command(&mut sources, p, f));
            out.push('\n');
        }
    }
    out.push_str(&super::human::totals(report));
    out.push('\n');
    out
}

/// The workflow command of one finding of program `p`, without its newline.
fn command(sources: &mut Sources, p: &ProgramReport, f: &Finding) -> String {
    let name = match f.severity() {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Note => "notice",
    };
    let mut properties: Vec<(&str, String)> = Vec::new();
    if let Some(file) = &f.file {
        properties.push(("file", file.clone()));
        if let Some(e) = sources.extent(file, f.line, f.column, f.span) {
            properties.push(("line", e.line.to_string()));
            match (e.column, e.end) {
                (Some(col), Some((end_line, end_col))) if end_line == e.line => {
                    properties.push(("col", col.to_string()));
                    properties.push(("endLine", end_line.to_string()));
                    let last = end_col.saturating_sub(1).max(col);
                    properties.push(("endColumn", last.to_string()));
                }
                (_, Some((end_line, _))) => properties.push(("endLine", end_line.to_string())),
                (Some(col), None) => properties.push(("col", col.to_string())),
                (None, None) => {}
            }
        }
    }
    properties.push(("title", format!("{} {}", f.code.code, f.code.name)));

    let mut message = f.message.clone();
    if f.file.is_none() {
        let _ = write!(message, "\nprogram: {}", p.program);
    }
    for line in detail_lines(f, true) {
        message.push('\n');
        message.push_str(&line);
    }

    let properties: Vec<String> = properties
        .iter()
        .map(|(k, v)| format!("{k}={}", escape_property(v)))
        .collect();
    format!(
        "::{name} {}::{}",
        properties.join(","),
        escape_data(&message)
    )
}

/// A command's message as the runner reads it: `%`, `\r` and `\n` escaped.
pub fn escape_data(text: &str) -> String {
    text.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// A command's property value as the runner reads it: as
/// [`escape_data`], and `:` and `,` too.
pub fn escape_property(text: &str) -> String {
    escape_data(text).replace(':', "%3A").replace(',', "%2C")
}
