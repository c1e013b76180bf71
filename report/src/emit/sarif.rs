//! The format for code-scanning services: a SARIF 2.1.0 log with one run.
//!
//! The run's tool is fib with one rule per finding code (in code order, so
//! a result's `ruleIndex` is its code's place in [`codes::ALL`]), each with
//! the code's summary, its `fib explain` text as description and help, and
//! its severity as default level. Each finding is one result: its code, its
//! level, its message followed by the ranks' states, notes, help and replay
//! token, one location, its labels as related locations, and its program,
//! process count, buffering, rank, replay token and ranks in `properties`.
//!
//! Paths are relative to the current directory, as fib prints them, and
//! marked relative to `%SRCROOT%`; regions count columns in UTF-16 code
//! units (the SARIF default) and end just past the call when its span is
//! known. Code-scanning services show a result only at a line of a file, so
//! a finding with no line is placed on line 1 of its file, and one with no
//! file on line 1 of its program's main source. The log holds no times, so
//! the same findings always give the same text.
//!
//! The object model is the `serde-sarif` crate's, generated from the SARIF
//! 2.1.0 schema.

use serde_json::{json, Value};
use serde_sarif::sarif::{
    ArtifactLocation, Invocation, Location, Message, MultiformatMessageString, PhysicalLocation,
    PropertyBag, Region, ReportingConfiguration, ReportingDescriptor, Result as SarifResult,
    ResultLevel, Run, Sarif, Tool, ToolComponent, Version,
};

use super::{detail_lines, Extent, Sources};
use crate::codes;
use crate::finding::{Code, Finding, Severity};
use crate::model::{Buffering, ProgramReport, Report};

/// The schema the log names in `$schema`: the OASIS SARIF 2.1.0 schema.
pub const SCHEMA_URI: &str =
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json";

/// The base every relative artifact URI is relative to: the directory fib
/// ran in, which a code-scanning upload takes as the repository's root.
pub const SRCROOT: &str = "%SRCROOT%";

/// The report as a pretty-printed SARIF 2.1.0 log, ending in a newline.
/// The findings' files, which turn byte spans into lines and columns, come
/// from `load` (fib's command line reads them relative to the current
/// directory), which returns a file's text or `None` when it cannot be
/// read; regions then keep fib's line and column and have no end.
pub fn render_with_sources(
    report: &Report,
    load: &mut dyn FnMut(&str) -> Option<String>,
) -> String {
    let mut sources = Sources::new(load);
    let results: Vec<SarifResult> = report
        .programs
        .iter()
        .flat_map(|p| p.findings.iter().map(move |f| (p, f)))
        .map(|(p, f)| result(&mut sources, p, f))
        .collect();
    let exit_code = report.exit_code();
    let invocation = Invocation::builder()
        .execution_successful(matches!(exit_code, 0 | 1))
        .exit_code(i64::from(exit_code))
        .build();
    let run = Run::builder()
        .tool(Tool::from(driver()))
        .results(results)
        .invocations(vec![invocation])
        .column_kind(json!("utf16CodeUnits"))
        .properties(bag([(
            "programs",
            Value::Array(report.programs.iter().map(program_summary).collect()),
        )]))
        .build();
    let log = Sarif::builder()
        .schema(SCHEMA_URI)
        .version(json!(Version::V2_1_0))
        .runs(vec![run])
        .build();
    // The log holds only strings, numbers and maps with string keys, so
    // serialising it cannot fail.
    let mut out = serde_json::to_string_pretty(&log).expect("a SARIF log always serialises");
    out.push('\n');
    out
}

/// fib, with one rule per code.
fn driver() -> ToolComponent {
    ToolComponent::builder()
        .name("fib")
        .version(env!("CARGO_PKG_VERSION"))
        .semantic_version(env!("CARGO_PKG_VERSION"))
        .rules(codes::ALL.iter().map(|c| rule(c)).collect::<Vec<_>>())
        .build()
}

/// The rule of one code: its id, name, summary, `fib explain` text (as
/// Markdown too: its sections are Markdown headings) and default level.
fn rule(code: &Code) -> ReportingDescriptor {
    let explained = crate::explain(code.code).unwrap_or_else(|| code.explanation.to_string());
    ReportingDescriptor::builder()
        .id(code.code)
        .name(code.name)
        .short_description(text(code.summary))
        .full_description(text(&explained))
        .help(
            MultiformatMessageString::builder()
                .text(explained.clone())
                .markdown(explained)
                .build(),
        )
        .default_configuration(
            ReportingConfiguration::builder()
                .level(json!(level(code.severity)))
                .build(),
        )
        .build()
}

fn text(s: &str) -> MultiformatMessageString {
    MultiformatMessageString::builder().text(s).build()
}

/// A severity as a SARIF level: error, warning or note.
pub fn level(severity: Severity) -> ResultLevel {
    match severity {
        Severity::Error => ResultLevel::Error,
        Severity::Warning => ResultLevel::Warning,
        Severity::Note => ResultLevel::Note,
    }
}

/// One finding of program `p` as a result.
fn result(sources: &mut Sources, p: &ProgramReport, f: &Finding) -> SarifResult {
    let rule_index = codes::ALL
        .iter()
        .position(|c| c.code == f.code.code)
        .map(|i| i as i64);
    let mut message = f.message.clone();
    for line in detail_lines(f, false) {
        message.push('\n');
        message.push_str(&line);
    }
    let primary = match &f.file {
        Some(file) => location(sources, file, f.line, f.column, f.span),
        None => location(sources, &p.program, None, None, None),
    };
    let related: Vec<Location> = f
        .labels
        .iter()
        .enumerate()
        .map(|(i, l)| Location {
            id: Some(i as i64),
            message: Some(Message::from(l.message.as_str())),
            ..location(sources, &l.file, Some(l.line), Some(l.column), l.span)
        })
        .collect();

    let mut properties = vec![
        ("program", json!(p.program)),
        ("nprocs", json!(p.nprocs)),
        ("buffering", json!(buffering(p.buffering))),
    ];
    if let Some(rank) = f.rank {
        properties.push(("rank", json!(rank)));
    }
    if let Some(token) = &f.replay {
        properties.push(("replay", json!(token)));
    }
    if !f.ranks.is_empty() {
        properties.push(("ranks", json!(f.ranks)));
    }
    if let Some(help) = &f.help {
        properties.push(("help", json!(help)));
    }

    let mut r = SarifResult::builder()
        .rule_id(f.code.code)
        .level(level(f.severity()))
        .message(Message::from(message.as_str()))
        .locations(vec![primary])
        .properties(bag(properties))
        .build();
    r.rule_index = rule_index;
    if !related.is_empty() {
        r.related_locations = Some(related);
    }
    r
}

/// A location in `file`: its region from the span, or from the line and
/// column, or line 1 when the line is unknown.
fn location(
    sources: &mut Sources,
    file: &str,
    line: Option<u32>,
    column: Option<u32>,
    span: Option<(usize, usize)>,
) -> Location {
    let extent = sources.extent(file, line, column, span).unwrap_or(Extent {
        line: 1,
        column: None,
        end: None,
    });
    let mut region = Region::builder().start_line(i64::from(extent.line)).build();
    region.start_column = extent.column.map(i64::from);
    if let Some((end_line, end_column)) = extent.end {
        region.end_line = Some(i64::from(end_line));
        region.end_column = Some(i64::from(end_column));
    }
    Location::builder()
        .physical_location(
            PhysicalLocation::builder()
                .artifact_location(artifact(file))
                .region(region)
                .build(),
        )
        .build()
}

/// The artifact at `path`: a URI relative to `%SRCROOT%` for a relative
/// path, a `file:` URI for an absolute one.
fn artifact(path: &str) -> ArtifactLocation {
    if path.starts_with('/') {
        ArtifactLocation::builder()
            .uri(format!("file://{}", uri_path(path)))
            .build()
    } else {
        let mut relative = path;
        while let Some(rest) = relative.strip_prefix("./") {
            relative = rest;
        }
        ArtifactLocation::builder()
            .uri(uri_path(relative))
            .uri_base_id(SRCROOT)
            .build()
    }
}

/// `path` as the path of a URI: every byte other than an unreserved
/// character or `/` percent-encoded (`my file.c` becomes `my%20file.c`).
pub fn uri_path(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for b in path.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~/".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

fn buffering(b: Buffering) -> &'static str {
    match b {
        Buffering::Buffered => "buffered",
        Buffering::Zero => "zero",
    }
}

/// What the run says of each program: no times, nothing that varies
/// between two checks of the same program.
fn program_summary(p: &ProgramReport) -> Value {
    json!({
        "program": p.program,
        "nprocs": p.nprocs,
        "buffering": buffering(p.buffering),
        "outcome": p.outcome.as_str(),
        "interleavings": p.interleavings,
    })
}

fn bag<'a>(entries: impl IntoIterator<Item = (&'a str, Value)>) -> PropertyBag {
    PropertyBag::builder()
        .additional_properties(
            entries
                .into_iter()
                .map(|(k, v)| (k.to_string(), v))
                .collect::<std::collections::BTreeMap<_, _>>(),
        )
        .build()
}
