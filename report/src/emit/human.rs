//! The format for people at a terminal: per program a summary line, then
//! each finding as a rustc-style diagnostic with its code, its location, the
//! source line with a line-number gutter, every rank's state, notes, help and
//! the replay token; a totals line at the end.
//!
//! A finding with a byte span (the barrier verdicts) is drawn by
//! `codespan-reporting`, which underlines the span and its labels, in any
//! number of files. A finding with only a line and column (the runtime
//! findings) is drawn here: its location line names the rank, which
//! codespan's header has no place for. A spanned finding whose file cannot be
//! read, or whose span does not fit the file, falls back to the same plain
//! drawing.

use std::fmt::Write as _;

use codespan_reporting::diagnostic::{self, Diagnostic};
use codespan_reporting::term::termcolor::{Buffer, Color, ColorSpec};
use codespan_reporting::term::{self, Chars, Config, Styles, StylesWriter};

use super::{location, rank_state, Sources};
use crate::finding::{Finding, Label, Severity};
use crate::model::{BarrierReport, Outcome, ProgramReport, Report, Verdict};

/// ANSI escape sequences, or nothing when colour is off.
struct Style {
    color: bool,
}

impl Style {
    fn paint(&self, code: &str, text: &str) -> String {
        if self.color {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_string()
        }
    }

    fn bold(&self, text: &str) -> String {
        self.paint("1", text)
    }

    fn gutter(&self, text: &str) -> String {
        self.paint("1;34", text)
    }

    fn severity(&self, severity: Severity, text: &str) -> String {
        match severity {
            Severity::Error => self.paint("1;31", text),
            Severity::Warning => self.paint("1;33", text),
            Severity::Note => self.paint("1;36", text),
        }
    }

    fn outcome(&self, outcome: Outcome) -> String {
        match outcome {
            Outcome::Ok => self.paint("1;32", outcome.as_str()),
            _ => self.paint("1;31", outcome.as_str()),
        }
    }
}

/// The report for a terminal; `color` turns ANSI colours on. The source
/// lines of the files the findings name come from `load` (fib's command
/// line reads them relative to the current directory), which returns a
/// file's text or `None` when it cannot be read; the snippet is then left
/// out.
pub fn render_with_sources(
    report: &Report,
    color: bool,
    load: &mut dyn FnMut(&str) -> Option<String>,
) -> String {
    let style = Style { color };
    let mut sources = Sources::new(load);
    let mut out = String::new();
    for program in &report.programs {
        render_program(&mut out, &style, &mut sources, program);
        out.push('\n');
    }
    let counts = crate::counts::render_human(&crate::counts::counts(report));
    if !counts.is_empty() {
        out.push_str(&counts);
        out.push('\n');
    }
    out.push_str(&style.bold(&totals(report)));
    out.push('\n');
    out
}

/// How many of `sites` a run reaches depending on input, and how many none
/// reaches (in functions the program never calls), when any.
fn reach(line: &mut String, sites: &[crate::model::SiteFact]) {
    let dependent = sites.iter().filter(|f| !f.all_inputs && !f.dead).count();
    let dead = sites.iter().filter(|f| f.dead).count();
    let parts: Vec<String> = [
        (dependent, "reached depending on input"),
        (dead, "in code never called"),
    ]
    .into_iter()
    .filter(|(n, _)| *n > 0)
    .map(|(n, what)| format!("{n} {what}"))
    .collect();
    if !parts.is_empty() {
        let _ = write!(line, " ({})", parts.join(", "));
    }
}

fn render_program(out: &mut String, style: &Style, sources: &mut Sources, p: &ProgramReport) {
    let buffering = match p.buffering {
        crate::model::Buffering::Buffered => "buffered",
        crate::model::Buffering::Zero => "zero-buffer",
    };
    let _ = writeln!(
        out,
        "{} ({}, {}): {}{} — {}, {}, {:.2} s",
        style.bold(&p.program),
        plural(p.nprocs as u64, "rank"),
        buffering,
        style.outcome(p.outcome),
        if p.interrupted {
            " so far, interrupted"
        } else {
            ""
        },
        plural(p.interleavings as u64, "interleaving"),
        plural(p.calls, "call"),
        p.elapsed_ms as f64 / 1000.0,
    );
    if let Some(facts) = &p.static_facts {
        let mut line = format!(
            "  {}, {}",
            plural(facts.sites as u64, "MPI call site"),
            plural(facts.barriers.len() as u64, "barrier"),
        );
        reach(&mut line, &facts.barriers);
        let _ = write!(
            line,
            ", {}",
            plural(facts.wildcards.len() as u64, "wildcard receive")
        );
        reach(&mut line, &facts.wildcards);
        if p.build == Some(crate::model::BuildKind::Cached) {
            line.push_str("; build cached");
        }
        let _ = writeln!(out, "{line}");
    }
    if !p.barriers.is_empty() {
        let _ = writeln!(out, "  {}", barrier_summary(&p.barriers));
    }
    for w in &p.workflow.waived {
        let reason = w
            .reason
            .as_ref()
            .map_or(String::new(), |r| format!(" — {r}"));
        let _ = writeln!(out, "  waived: {} at {}:{}{reason}", w.code, w.file, w.line);
    }
    if p.workflow.baselined > 0 {
        let _ = writeln!(
            out,
            "  baseline: {} left out",
            plural(p.workflow.baselined as u64, "known finding")
        );
    }
    if let Some(k) = &p.files {
        let _ = writeln!(out, "  {}", kept_files(k));
    }
    for finding in &p.findings {
        out.push('\n');
        match render_spanned(style, sources, finding) {
            Some(text) => out.push_str(&text),
            None => render_finding(out, style, sources, finding),
        }
    }
}

/// `the first run's files are in DIR: a.txt, b.txt`, naming at most
/// four of them.
pub(crate) fn kept_files(k: &crate::model::KeptFiles) -> String {
    const NAMED: usize = 4;
    let mut names = k.files[..k.files.len().min(NAMED)].join(", ");
    if k.files.len() > NAMED {
        let _ = write!(names, " and {} more", k.files.len() - NAMED);
    }
    format!("the first run's files are in {}: {names}", k.dir)
}

/// `barriers: 4 groups — 1 relevant, 2 irrelevant, 1 not covered`, with
/// `, confirmed by removal` when `--confirm` confirmed every verdict.
pub(crate) fn barrier_summary(barriers: &[BarrierReport]) -> String {
    let count = |verdict: Verdict| barriers.iter().filter(|b| b.verdict == verdict).count();
    let mut line = format!(
        "barriers: {} — {} relevant, {} irrelevant, {} not covered",
        plural(barriers.len() as u64, "group"),
        count(Verdict::Relevant),
        count(Verdict::Irrelevant),
        count(Verdict::NotCovered),
    );
    let undecided = count(Verdict::Undecided);
    if undecided > 0 {
        let _ = write!(line, ", {undecided} not decided");
    }
    if barriers.iter().all(|b| b.confirmed) {
        line.push_str(", confirmed by removal");
    }
    line
}

/// A finding with a span, drawn by codespan: the primary span underlined,
/// each label with a span underlined with its message (in whichever file it
/// is), then the ranks, notes, labels that cannot be drawn, help and the
/// replay token as `=` lines. `None` when the finding has no span or its
/// span cannot be drawn.
fn render_spanned(style: &Style, sources: &mut Sources, f: &Finding) -> Option<String> {
    let (id, range) = sources.span(f.file.as_deref()?, f.span?)?;
    let mut primary = diagnostic::Label::primary(id, range);
    if let Some(rank) = f.rank {
        primary = primary.with_message(format!("rank {rank}"));
    }
    let mut labels = vec![primary];
    let mut notes: Vec<String> = f.ranks.iter().map(rank_state).collect();
    notes.extend(f.notes.iter().map(|n| format!("note: {n}")));
    for label in &f.labels {
        match label.span.and_then(|span| sources.span(&label.file, span)) {
            Some((id, range)) => {
                labels.push(diagnostic::Label::secondary(id, range).with_message(&label.message));
            }
            None => notes.push(label_line(label)),
        }
    }
    if let Some(help) = &f.help {
        notes.push(format!("help: {help}"));
    }
    if let Some(token) = &f.replay {
        notes.push(format!("replay: {token}"));
    }
    let severity = match f.severity() {
        Severity::Error => diagnostic::Severity::Error,
        Severity::Warning => diagnostic::Severity::Warning,
        Severity::Note => diagnostic::Severity::Note,
    };
    let diagnostic = Diagnostic::new(severity)
        .with_code(f.code.code)
        .with_message(&f.message)
        .with_labels(labels)
        .with_notes(notes);
    let config = Config {
        chars: Chars::ascii(),
        ..Config::default()
    };
    let mut buffer = if style.color {
        Buffer::ansi()
    } else {
        Buffer::no_color()
    };
    let styles = codespan_styles();
    let mut writer = StylesWriter::new(&mut buffer, &styles);
    term::emit_to_write_style(&mut writer, &config, &sources.files, &diagnostic).ok()?;
    let mut text = String::from_utf8(buffer.into_inner()).ok()?;
    // codespan ends a diagnostic with an empty line; the findings here are
    // separated by the caller instead.
    while text.ends_with("\n\n") {
        text.pop();
    }
    Some(text)
}

/// Colours for codespan matching [`Style`]'s: bold red, yellow and cyan
/// headers, a bold blue gutter.
fn codespan_styles() -> Styles {
    let bold = |color: Color| ColorSpec::new().set_bold(true).set_fg(Some(color)).clone();
    let plain = |color: Color| ColorSpec::new().set_fg(Some(color)).clone();
    Styles {
        header_bug: bold(Color::Red),
        header_error: bold(Color::Red),
        header_warning: bold(Color::Yellow),
        header_note: bold(Color::Cyan),
        header_help: bold(Color::Cyan),
        header_message: ColorSpec::new().set_bold(true).clone(),
        primary_label_bug: bold(Color::Red),
        primary_label_error: bold(Color::Red),
        primary_label_warning: bold(Color::Yellow),
        primary_label_note: bold(Color::Cyan),
        primary_label_help: bold(Color::Cyan),
        secondary_label: plain(Color::Blue),
        line_number: bold(Color::Blue),
        source_border: bold(Color::Blue),
        note_bullet: bold(Color::Blue),
    }
}

/// `file.c:17:9: also part of this barrier group`, for a label drawn
/// without its source.
pub(crate) fn label_line(l: &Label) -> String {
    format!("{}:{}:{}: {}", l.file, l.line, l.column, l.message)
}

fn render_finding(out: &mut String, style: &Style, sources: &mut Sources, f: &Finding) {
    let label = format!("{}[{}]", f.severity().as_str(), f.code);
    let _ = writeln!(
        out,
        "{}{}",
        style.severity(f.severity(), &label),
        style.bold(&format!(": {}", f.message))
    );

    let snippet = match (&f.file, f.line) {
        (Some(file), Some(line)) => sources.line(file, line).map(|text| (line, text)),
        _ => None,
    };
    // The gutter is as wide as the line number, and at least two columns so
    // that findings with and without a snippet line up.
    let width = snippet
        .as_ref()
        .map_or(0, |(line, _)| line.to_string().len())
        .max(2);
    let pad = " ".repeat(width);

    if let Some(location) = location(f) {
        let _ = writeln!(out, "{pad}{} {location}", style.gutter("-->"));
    }
    if let Some((line, text)) = &snippet {
        let bar = style.gutter("|");
        let _ = writeln!(out, "{pad} {bar}");
        let number = style.gutter(&format!("{line:>width$}"));
        if text.is_empty() {
            let _ = writeln!(out, "{number} {bar}");
        } else {
            let _ = writeln!(out, "{number} {bar} {text}");
        }
        match f.column {
            Some(c) if c >= 1 => {
                let caret = style.severity(f.severity(), "^");
                let _ = writeln!(out, "{pad} {bar} {}{caret}", " ".repeat(c as usize - 1));
            }
            _ => {
                let _ = writeln!(out, "{pad} {bar}");
            }
        }
    }

    let eq = style.gutter("=");
    for rank in &f.ranks {
        let _ = writeln!(out, "{pad} {eq} {}", rank_state(rank));
    }
    for note in &f.notes {
        let mut lines = note.lines();
        let first = lines.next().unwrap_or("");
        let _ = writeln!(out, "{pad} {eq} {}: {first}", style.bold("note"));
        for rest in lines {
            let _ = writeln!(out, "{pad}         {rest}");
        }
    }
    for label in &f.labels {
        let _ = writeln!(out, "{pad} {eq} {}", label_line(label));
    }
    if let Some(help) = &f.help {
        let _ = writeln!(out, "{pad} {eq} {}: {help}", style.bold("help"));
    }
    if let Some(token) = &f.replay {
        let _ = writeln!(out, "{pad} {eq} {}: {token}", style.bold("replay"));
    }
}

/// `2 programs checked: 1 ok, 1 deadlock; 1 error`.
pub(crate) fn totals(report: &Report) -> String {
    const ORDER: [Outcome; 6] = [
        Outcome::Ok,
        Outcome::Deadlock,
        Outcome::Crash,
        Outcome::Timeout,
        Outcome::BuildFailed,
        Outcome::Unsupported,
    ];
    let outcomes: Vec<String> = ORDER
        .iter()
        .filter_map(|&o| {
            let n = report.programs.iter().filter(|p| p.outcome == o).count();
            (n > 0).then(|| format!("{n} {}", o.as_str()))
        })
        .collect();
    let count = |severity: Severity| -> u64 {
        let n = report
            .programs
            .iter()
            .flat_map(|p| &p.findings)
            .filter(|f| f.severity() == severity)
            .count();
        n as u64
    };
    let mut findings = Vec::new();
    for severity in [Severity::Error, Severity::Warning, Severity::Note] {
        let n = count(severity);
        if n > 0 {
            findings.push(plural(n, severity.as_str()));
        }
    }
    let findings = if findings.is_empty() {
        "no findings".to_string()
    } else {
        findings.join(", ")
    };
    let mut line = format!(
        "{} checked",
        plural(report.programs.len() as u64, "program")
    );
    if !outcomes.is_empty() {
        let _ = write!(line, ": {}", outcomes.join(", "));
    }
    let _ = write!(line, "; {findings}");
    let waived: usize = report
        .programs
        .iter()
        .map(|p| p.workflow.waived.len())
        .sum();
    if waived > 0 {
        let _ = write!(line, "; {waived} waived");
    }
    let known: usize = report.programs.iter().map(|p| p.workflow.baselined).sum();
    if known > 0 {
        let _ = write!(line, "; {known} known (baseline)");
    }
    if report.interrupted {
        let _ = write!(line, "; {}", interruption(report));
    }
    line
}

/// What an interrupted check left undone: `interrupted after 5
/// interleavings of a.c; not checked: b.c (2 ranks), src/`.
pub(crate) fn interruption(report: &Report) -> String {
    let mut line = match report.programs.iter().find(|p| p.interrupted) {
        Some(p) => format!(
            "interrupted after {} of {}",
            plural(p.interleavings as u64, "interleaving"),
            p.program
        ),
        None => "interrupted".to_string(),
    };
    if !report.not_checked.is_empty() {
        let names: Vec<String> = report
            .not_checked
            .iter()
            .map(|n| match n.nprocs {
                Some(k) => format!("{} ({})", n.program, plural(k as u64, "rank")),
                None => n.program.clone(),
            })
            .collect();
        let _ = write!(line, "; not checked: {}", names.join(", "));
    }
    line
}

/// `1 call`, `2 calls`.
pub(crate) fn plural(n: u64, word: &str) -> String {
    if n == 1 {
        format!("1 {word}")
    } else {
        format!("{n} {word}s")
    }
}
