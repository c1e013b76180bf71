//! The format for people at a terminal: per program a summary line, then
//! each finding as a rustc-style diagnostic with its code, its location, the
//! source line with a line-number gutter, every rank's state, notes and the
//! replay token; a totals line at the end.
//!
//! The source snippet is drawn here rather than with `codespan-reporting`:
//! a finding's location line names the rank, which codespan's header has no
//! place for, and a finding has a column but not always a span.

use std::collections::HashMap;
use std::fmt::Write as _;

use crate::model::{Finding, Outcome, ProgramReport, RankState, Report, Severity};

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

/// The report for a terminal, reading source lines from the files the
/// findings name (paths relative to the current directory). `color` turns
/// ANSI colours on.
pub fn render(report: &Report, color: bool) -> String {
    render_with_sources(report, color, &mut |path| {
        std::fs::read_to_string(path).ok()
    })
}

/// Like [`render`], but source files come from `load`, which returns a
/// file's text or `None` when it cannot be read; the snippet is then left
/// out.
pub fn render_with_sources(
    report: &Report,
    color: bool,
    load: &mut dyn FnMut(&str) -> Option<String>,
) -> String {
    let style = Style { color };
    let mut sources = Sources {
        load,
        cache: HashMap::new(),
    };
    let mut out = String::new();
    for program in &report.programs {
        render_program(&mut out, &style, &mut sources, program);
        out.push('\n');
    }
    out.push_str(&style.bold(&totals(report)));
    out.push('\n');
    out
}

/// Source files read so far, each at most once per rendering.
struct Sources<'a> {
    load: &'a mut dyn FnMut(&str) -> Option<String>,
    cache: HashMap<String, Option<Vec<String>>>,
}

impl Sources<'_> {
    /// Line `line` (1-based) of `path`, as displayed: tabs expanded and
    /// trailing white space removed.
    fn line(&mut self, path: &str, line: u32) -> Option<String> {
        let load = &mut self.load;
        let lines = self
            .cache
            .entry(path.to_string())
            .or_insert_with(|| load(path).map(|text| text.lines().map(str::to_string).collect()))
            .as_ref()?;
        let text = lines.get(usize::try_from(line).ok()?.checked_sub(1)?)?;
        Some(text.replace('\t', "    ").trim_end().to_string())
    }
}

fn render_program(out: &mut String, style: &Style, sources: &mut Sources, p: &ProgramReport) {
    let buffering = match p.buffering {
        crate::model::Buffering::Buffered => "buffered",
        crate::model::Buffering::Zero => "zero-buffer",
    };
    let _ = writeln!(
        out,
        "{} ({}, {}): {} — {}, {}, {:.2} s",
        style.bold(&p.program),
        plural(p.nprocs as u64, "rank"),
        buffering,
        style.outcome(p.outcome),
        plural(p.interleavings as u64, "interleaving"),
        plural(p.calls, "call"),
        p.elapsed_ms as f64 / 1000.0,
    );
    if let Some(facts) = &p.static_facts {
        let dependent = |v: &[crate::model::SiteFact]| v.iter().filter(|f| !f.all_inputs).count();
        let mut line = format!(
            "  {}, {}",
            plural(facts.sites as u64, "MPI call site"),
            plural(facts.barriers.len() as u64, "barrier"),
        );
        let d = dependent(&facts.barriers);
        if d > 0 {
            let _ = write!(line, " ({d} reached depending on input)");
        }
        let _ = write!(
            line,
            ", {}",
            plural(facts.wildcards.len() as u64, "wildcard receive")
        );
        let d = dependent(&facts.wildcards);
        if d > 0 {
            let _ = write!(line, " ({d} reached depending on input)");
        }
        if p.build == Some(crate::model::BuildKind::Cached) {
            line.push_str("; build cached");
        }
        let _ = writeln!(out, "{line}");
    }
    for finding in &p.findings {
        out.push('\n');
        render_finding(out, style, sources, finding);
    }
}

fn render_finding(out: &mut String, style: &Style, sources: &mut Sources, f: &Finding) {
    let label = format!("{}[{}]", severity_name(f.severity), f.code);
    let _ = writeln!(
        out,
        "{}{}",
        style.severity(f.severity, &label),
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
                let caret = style.severity(f.severity, "^");
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
    if let Some(token) = &f.replay {
        let _ = writeln!(out, "{pad} {eq} {}: {token}", style.bold("replay"));
    }
}

/// `file:line (rank R)`, with whatever parts are known.
fn location(f: &Finding) -> Option<String> {
    let place = f.file.as_ref().map(|file| match (f.line, f.column) {
        (Some(line), Some(col)) => format!("{file}:{line}:{col}"),
        (Some(line), None) => format!("{file}:{line}"),
        _ => file.clone(),
    });
    match (place, f.rank) {
        (Some(place), Some(rank)) => Some(format!("{place} (rank {rank})")),
        (Some(place), None) => Some(place),
        (None, Some(rank)) => Some(format!("rank {rank}")),
        (None, None) => None,
    }
}

/// `rank 0: blocked in MPI_Recv at file.c:12`, `rank 2: waiting in
/// MPI_Finalize`, or `rank 1: exited` for a state that is not an MPI call.
fn rank_state(r: &RankState) -> String {
    let mut s = if r.call == "MPI_Finalize" {
        // A rank in MPI_Finalize has finished its part; it is not at fault.
        format!("rank {}: waiting in {}", r.rank, r.call)
    } else if r.call.starts_with("MPI_") {
        format!("rank {}: blocked in {}", r.rank, r.call)
    } else {
        format!("rank {}: {}", r.rank, r.call)
    };
    if let Some(file) = &r.file {
        let _ = write!(s, " at {file}");
        if let Some(line) = r.line {
            let _ = write!(s, ":{line}");
            if let Some(col) = r.column {
                let _ = write!(s, ":{col}");
            }
        }
    }
    s
}

/// `2 programs checked: 1 ok, 1 deadlock; 1 error`.
fn totals(report: &Report) -> String {
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
            .filter(|f| f.severity == severity)
            .count();
        n as u64
    };
    let mut findings = Vec::new();
    for (severity, word) in [
        (Severity::Error, "error"),
        (Severity::Warning, "warning"),
        (Severity::Note, "note"),
    ] {
        let n = count(severity);
        if n > 0 {
            findings.push(plural(n, word));
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
    line
}

fn severity_name(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Note => "note",
    }
}

/// `1 call`, `2 calls`.
fn plural(n: u64, word: &str) -> String {
    if n == 1 {
        format!("1 {word}")
    } else {
        format!("{n} {word}s")
    }
}
