//! The audit report: one self-contained HTML page (inline CSS and SVG, no
//! script, nothing fetched) that a reviewer reads without fib. It has a
//! summary table of the programs and one of the barrier groups, then per
//! program every finding: its code, severity, message, the source lines of
//! its location and labels with the labels the terminal shows, its notes,
//! help and the command that replays its interleaving, and for a deadlock
//! or a relevant barrier the space-time picture of the run (drawn by the
//! `picture` module from a [`crate::timeline::Timeline`]).

mod picture;

use std::fmt::Write as _;

use super::human::{barrier_summary, label_line, plural, totals};
use super::{location, rank_state, Sources};
use crate::codes;
use crate::finding::{Finding, Severity};
use crate::model::{
    BarrierReport, Buffering, MemoryWitness, Outcome, ProgramReport, Report, Verdict, Witness,
};
use picture::timeline_figure;

/// The report as an HTML page. The source lines of the files the findings
/// name come from `load` (fib's command line reads them relative to the
/// current directory), which returns a file's text or `None` when it
/// cannot be read; the snippet is then left out.
pub fn render_with_sources(
    report: &Report,
    load: &mut dyn FnMut(&str) -> Option<String>,
) -> String {
    let mut sources = Sources::new(load);
    let mut out = String::new();
    let title = match report.programs.as_slice() {
        [one] => format!("fib report: {}", one.program),
        _ => format!(
            "fib report: {}",
            plural(report.programs.len() as u64, "program")
        ),
    };
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{}</title>\n<style>{CSS}</style>\n</head>\n<body>\n",
        esc(&title)
    );
    let _ = write!(
        out,
        "<header><h1>fib report</h1><p class=\"totals\">{}</p>\
         <p class=\"about\">fib {} · MPI programs run under its scheduler over every relevant interleaving</p></header>\n<main>\n",
        esc(&totals(report)),
        env!("CARGO_PKG_VERSION"),
    );
    programs_table(&mut out, report);
    barriers_table(&mut out, report);
    for (i, p) in report.programs.iter().enumerate() {
        program_section(&mut out, &mut sources, i, p);
    }
    out.push_str("</main>\n</body>\n</html>\n");
    out
}

/// Text with `&`, `<`, `>` and quotes escaped, for element content and
/// attribute values alike.
fn esc(text: &str) -> String {
    let mut s = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => s.push_str("&amp;"),
            '<' => s.push_str("&lt;"),
            '>' => s.push_str("&gt;"),
            '"' => s.push_str("&quot;"),
            '\'' => s.push_str("&#39;"),
            c => s.push(c),
        }
    }
    s
}

fn outcome_badge(o: Outcome) -> String {
    let class = if o == Outcome::Ok { "ok" } else { "bad" };
    format!("<span class=\"badge {class}\">{}</span>", o.as_str())
}

fn severity_badge(s: Severity) -> String {
    format!("<span class=\"badge {0}\">{0}</span>", s.as_str())
}

fn verdict_badge(v: Verdict) -> String {
    let (class, text) = match v {
        Verdict::Relevant => ("relevant", "relevant: keep"),
        Verdict::Irrelevant => ("irrelevant", "irrelevant: can be deleted"),
        Verdict::NotCovered => ("not-covered", "not covered"),
        Verdict::Undecided => ("not-covered", "not decided: interrupted"),
    };
    format!("<span class=\"badge {class}\">{text}</span>")
}

fn buffering(b: Buffering) -> &'static str {
    match b {
        Buffering::Buffered => "buffered",
        Buffering::Zero => "zero-buffer",
    }
}

fn seconds(ms: u64) -> String {
    format!("<span class=\"time\">{:.2} s</span>", ms as f64 / 1000.0)
}

fn programs_table(out: &mut String, report: &Report) {
    out.push_str(
        "<section id=\"programs\"><h2>Programs</h2>\n<table class=\"summary\">\n<thead><tr>\
         <th>program</th><th>outcome</th><th class=\"num\">ranks</th><th>buffering</th>\
         <th class=\"num\">interleavings</th><th class=\"num\">calls</th><th class=\"num\">time</th>\
         <th>findings</th></tr></thead>\n<tbody>\n",
    );
    for (i, p) in report.programs.iter().enumerate() {
        let mut counts = Vec::new();
        for s in [Severity::Error, Severity::Warning, Severity::Note] {
            let n = p.findings.iter().filter(|f| f.severity() == s).count();
            if n > 0 {
                counts.push(format!(
                    "<span class=\"count {}\">{}</span>",
                    s.as_str(),
                    plural(n as u64, s.as_str())
                ));
            }
        }
        if counts.is_empty() {
            counts.push("none".into());
        }
        let _ = writeln!(
            out,
            "<tr><td><a href=\"#p{i}\"><code>{}</code></a></td><td>{}</td><td class=\"num\">{}</td>\
             <td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td>{}</td></tr>",
            esc(&p.program),
            outcome_badge(p.outcome),
            p.nprocs,
            buffering(p.buffering),
            p.interleavings,
            p.calls,
            seconds(p.elapsed_ms),
            counts.join(" "),
        );
    }
    out.push_str("</tbody>\n</table></section>\n");
}

/// The finding that shows a barrier group's verdict: the barrier finding
/// placed at the group's first site.
fn group_finding(p: &ProgramReport, b: &BarrierReport) -> Option<usize> {
    let first = b.group.first()?;
    p.findings.iter().position(|f| {
        [&codes::FIB014, &codes::FIB015, &codes::FIB016].contains(&f.code)
            && f.file.as_deref() == Some(first.file.as_str())
            && f.line == Some(first.line)
            && f.column == Some(first.column)
    })
}

fn barriers_table(out: &mut String, report: &Report) {
    out.push_str("<section id=\"barriers\"><h2>Barrier groups</h2>\n");
    if report.programs.iter().all(|p| p.barriers.is_empty()) {
        out.push_str("<p class=\"quiet\">No program has a barrier group.</p></section>\n");
        return;
    }
    out.push_str(
        "<table class=\"summary\">\n<thead><tr><th>program</th><th>sites</th><th>verdict</th>\
         <th>confirmed by removal</th><th>valid for all inputs</th><th>why</th></tr></thead>\n<tbody>\n",
    );
    for (i, p) in report.programs.iter().enumerate() {
        for b in &p.barriers {
            let sites: Vec<String> = b
                .group
                .iter()
                .map(|s| format!("<code>{}:{}</code>", esc(&s.file), s.line))
                .collect();
            let why = match &b.witness {
                Some(Witness::Relevant { recv, send, .. }) => format!(
                    "keeps rank {}'s <code>{}</code> (line {}) away from rank {}'s wildcard <code>{}</code> (line {})",
                    send.rank,
                    esc(&send.call),
                    opt(send.line),
                    recv.rank,
                    esc(&recv.call),
                    opt(recv.line),
                ),
                Some(Witness::Irrelevant {
                    interleavings,
                    ranks,
                    instances,
                    ordered_by,
                }) => {
                    let mut why = format!(
                        "nothing changes without it over {}, {} on {}",
                        plural(*interleavings as u64, "interleaving"),
                        plural(*instances as u64, "barrier call"),
                        plural(*ranks as u64, "rank"),
                    );
                    if let Some(by) = ordered_by {
                        let _ = write!(why, "; {}", esc(by));
                    }
                    why
                }
                Some(Witness::Memory {
                    kind,
                    first,
                    second,
                    ..
                }) => format!(
                    "{} rank {}'s <code>{}</code> (line {}) and rank {}'s <code>{}</code> (line {}) on rank {}'s window",
                    match kind {
                        MemoryWitness::Race => "keeps from racing",
                        MemoryWitness::LockOrder => "fixes the order of the lock epochs of",
                        MemoryWitness::RaceInOtherOrder =>
                            "fixes the order of two lock epochs, without which these race:",
                    },
                    first.rank,
                    esc(&first.what),
                    opt(first.line),
                    second.rank,
                    esc(&second.what),
                    opt(second.line),
                    second.target,
                ),
                None if b.verdict == Verdict::NotCovered => "no site ran".to_string(),
                None if b.verdict == Verdict::Undecided => {
                    "the check was interrupted before it could decide".to_string()
                }
                None => "removal changes what the messages can do".to_string(),
            };
            let verdict = match group_finding(p, b) {
                Some(j) => format!("<a href=\"#p{i}-f{j}\">{}</a>", verdict_badge(b.verdict)),
                None => verdict_badge(b.verdict),
            };
            let _ = writeln!(
                out,
                "<tr><td><a href=\"#p{i}\"><code>{}</code></a></td><td>{}</td><td>{verdict}</td>\
                 <td>{}</td><td>{}</td><td>{why}</td></tr>",
                esc(&p.program),
                sites.join(" "),
                yes_no(b.confirmed, "yes", "no"),
                yes_no(b.all_inputs, "yes", "no: holds for the input tested"),
            );
        }
    }
    out.push_str("</tbody>\n</table></section>\n");
}

fn yes_no(v: bool, yes: &str, no: &str) -> String {
    if v {
        format!("<span class=\"yes\">{}</span>", esc(yes))
    } else {
        format!("<span class=\"no\">{}</span>", esc(no))
    }
}

fn opt(v: Option<u32>) -> String {
    v.map_or_else(|| "?".to_string(), |v| v.to_string())
}

fn program_section(out: &mut String, sources: &mut Sources, i: usize, p: &ProgramReport) {
    let _ = write!(
        out,
        "<section class=\"program\" id=\"p{i}\">\n<h2><code>{}</code> {}</h2>\n<p class=\"meta\">{}, {}, {}, {}, {}",
        esc(&p.program),
        outcome_badge(p.outcome),
        plural(p.nprocs as u64, "rank"),
        buffering(p.buffering),
        plural(p.interleavings as u64, "interleaving"),
        plural(p.calls, "call"),
        seconds(p.elapsed_ms),
    );
    if let Some(facts) = &p.static_facts {
        let _ = write!(
            out,
            "<br>{}, {}, {}",
            plural(facts.sites as u64, "MPI call site"),
            plural(facts.barriers.len() as u64, "barrier"),
            plural(facts.wildcards.len() as u64, "wildcard receive"),
        );
        if p.build == Some(crate::model::BuildKind::Cached) {
            out.push_str("; build cached");
        }
    }
    if !p.barriers.is_empty() {
        let _ = write!(out, "<br>{}", esc(&barrier_summary(&p.barriers)));
    }
    out.push_str("</p>\n");
    if p.findings.is_empty() {
        out.push_str("<p class=\"quiet\">Nothing found.</p>\n");
    }
    for (j, f) in p.findings.iter().enumerate() {
        finding(out, sources, p, &format!("p{i}-f{j}"), f);
    }
    out.push_str("</section>\n");
}

fn finding(out: &mut String, sources: &mut Sources, p: &ProgramReport, id: &str, f: &Finding) {
    let sev = f.severity().as_str();
    let _ = write!(
        out,
        "<article class=\"finding {sev}\" id=\"{id}\">\n<h3>{} <span class=\"code\">{}</span> {}</h3>\n",
        severity_badge(f.severity()),
        esc(f.code.code),
        esc(&f.message),
    );
    if let Some(loc) = location(f) {
        let _ = writeln!(out, "<p class=\"loc\">{}</p>", esc(&loc));
    }
    let unplaced = snippets(out, sources, f);
    let mut items: Vec<String> = f.ranks.iter().map(|r| esc(&rank_state(r))).collect();
    items.extend(
        f.notes
            .iter()
            .map(|n| format!("<b>note:</b> <span class=\"pre\">{}</span>", esc(n))),
    );
    items.extend(unplaced.iter().map(|l| esc(&label_line(l))));
    if let Some(help) = &f.help {
        items.push(format!("<b>help:</b> {}", esc(help)));
    }
    if !items.is_empty() {
        out.push_str("<ul class=\"notes\">");
        for item in items {
            let _ = write!(out, "<li>{item}</li>");
        }
        out.push_str("</ul>\n");
    }
    let token = f.replay.as_deref();
    if let Some(token) = token {
        let _ = writeln!(
            out,
            "<p class=\"replay\">replay this interleaving: <code class=\"cmd\">{}</code></p>",
            esc(&replay_command(p, token))
        );
    }
    if let Some(t) = &f.timeline {
        timeline_figure(out, id, t, token);
    }
    out.push_str("</article>\n");
}

/// `fib check FILE -n N --replay TOKEN`, the path quoted for a shell when
/// it needs to be.
fn replay_command(p: &ProgramReport, token: &str) -> String {
    let plain = |s: &str| {
        !s.is_empty()
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || "_-./+,:@".contains(c))
    };
    let path = if plain(&p.program) {
        p.program.clone()
    } else {
        format!("'{}'", p.program.replace('\'', r"'\''"))
    };
    let zero = if p.buffering == Buffering::Zero {
        " --zero-buffer"
    } else {
        ""
    };
    format!("fib check {path} -n {}{zero} --replay {token}", p.nprocs)
}

/// One underlined range of a source file, with its label.
struct Ann {
    file: String,
    start: usize,
    end: usize,
    primary: bool,
    message: String,
}

/// The byte range of `line` (1-based) in `text` without its line break,
/// and from `column` (1-based, bytes) when given: the range of one
/// character there, else the line's text without its indentation.
fn line_range(text: &str, line: u32, column: Option<u32>) -> Option<(usize, usize)> {
    let mut start = 0;
    for (n, l) in text.split_inclusive('\n').enumerate() {
        if n + 1 == line as usize {
            let body = l.trim_end_matches(['\n', '\r']);
            return match column {
                Some(c) if c >= 1 && (c as usize - 1) < body.len().max(1) => {
                    let at = start + c as usize - 1;
                    let len = text[at..].chars().next().map_or(0, char::len_utf8);
                    text.is_char_boundary(at).then_some((at, at + len))
                }
                _ => {
                    let indent = body.len() - body.trim_start().len();
                    Some((start + indent, start + body.trim_end().len()))
                }
            };
        }
        start += l.len();
    }
    None
}

/// The source lines of a finding's location and labels, each file once,
/// the location's first, with the labelled ranges underlined as the
/// terminal does. Returns the labels that could not be placed on a source
/// line (their file cannot be read), for the notes.
fn snippets<'f>(
    out: &mut String,
    sources: &mut Sources,
    f: &'f Finding,
) -> Vec<&'f crate::finding::Label> {
    let mut anns: Vec<Ann> = Vec::new();
    let mut unplaced = Vec::new();
    let place = |sources: &mut Sources,
                 file: &str,
                 span: Option<(usize, usize)>,
                 line: Option<u32>,
                 column: Option<u32>|
     -> Option<(usize, usize)> {
        if let Some((_, r)) = span.and_then(|s| sources.span(file, s)) {
            return Some((r.start, r.end));
        }
        line_range(sources.text(file)?, line?, column)
    };
    if let Some(file) = &f.file {
        if let Some((start, end)) = place(sources, file, f.span, f.line, f.column) {
            anns.push(Ann {
                file: file.clone(),
                start,
                end,
                primary: true,
                message: f.rank.map(|r| format!("rank {r}")).unwrap_or_default(),
            });
        }
    }
    for l in &f.labels {
        match place(sources, &l.file, l.span, Some(l.line), Some(l.column)) {
            Some((start, end)) => anns.push(Ann {
                file: l.file.clone(),
                start,
                end,
                primary: false,
                message: l.message.clone(),
            }),
            None => unplaced.push(l),
        }
    }
    let mut files: Vec<String> = Vec::new();
    for a in &anns {
        if !files.contains(&a.file) {
            files.push(a.file.clone());
        }
    }
    for file in files {
        let Some(text) = sources.text(&file) else {
            continue;
        };
        let mine: Vec<&Ann> = anns.iter().filter(|a| a.file == file).collect();
        snippet(out, &file, text, &mine);
    }
    unplaced
}

/// The 0-based line of byte `at` in `text`, given the lines' start offsets.
fn line_of(starts: &[usize], at: usize) -> usize {
    starts.partition_point(|&s| s <= at).saturating_sub(1)
}

/// One file's lines that the annotations cover, numbered, each annotation
/// underlined with `^` (primary) or `-` (secondary) and followed by its
/// label, a `…` row between lines that are not consecutive.
fn snippet(out: &mut String, file: &str, text: &str, anns: &[&Ann]) {
    let starts: Vec<usize> = std::iter::once(0)
        .chain(text.match_indices('\n').map(|(i, _)| i + 1))
        .filter(|&s| s < text.len() || s == 0)
        .collect();
    let line_text = |n: usize| -> &str {
        let s = starts[n];
        let e = starts.get(n + 1).copied().unwrap_or(text.len());
        text[s..e].trim_end_matches(['\n', '\r'])
    };
    let mut lines = std::collections::BTreeSet::new();
    for a in anns {
        let (first, last) = (
            line_of(&starts, a.start),
            line_of(&starts, a.end.max(a.start + 1) - 1),
        );
        // A long span shows its first and last three lines.
        for n in first..=last {
            if n < first + 3 || n + 3 > last {
                lines.insert(n);
            }
        }
    }
    let width = lines
        .iter()
        .next_back()
        .map_or(1, |n| (n + 1).to_string().len());
    let _ = write!(
        out,
        "<div class=\"snippet\"><div class=\"file\">{}</div><pre>",
        esc(file)
    );
    let mut prev: Option<usize> = None;
    for &n in &lines {
        if prev.is_some_and(|p| n > p + 1) {
            let _ = writeln!(
                out,
                "<span class=\"ln\">{:>width$}</span> <span class=\"gap\">…</span>",
                ""
            );
        }
        prev = Some(n);
        let s = starts[n];
        let body = line_text(n);
        // The class of each byte of the line: primary wins over secondary.
        let class_at = |i: usize| -> u8 {
            let at = s + i;
            let mut c = 0;
            for a in anns {
                if a.start <= at && at < a.end.max(a.start + 1) {
                    c = c.max(if a.primary { 2 } else { 1 });
                }
            }
            c
        };
        let _ = write!(out, "<span class=\"ln\">{:>width$}</span> ", n + 1);
        let mut cur = 0u8;
        for (i, ch) in body.char_indices() {
            let c = class_at(i);
            if c != cur {
                if cur != 0 {
                    out.push_str("</mark>");
                }
                if c != 0 {
                    out.push_str(if c == 2 {
                        "<mark class=\"primary\">"
                    } else {
                        "<mark class=\"secondary\">"
                    });
                }
                cur = c;
            }
            push_display(out, ch);
        }
        if cur != 0 {
            out.push_str("</mark>");
        }
        out.push('\n');
        // The labels ending on this line, left to right.
        let mut here: Vec<&&Ann> = anns
            .iter()
            .filter(|a| line_of(&starts, a.end.max(a.start + 1) - 1) == n)
            .collect();
        here.sort_by_key(|a| (a.start.max(s), !a.primary));
        for a in here {
            let from = a.start.max(s) - s;
            let to = (a.end.max(a.start + 1) - s).min(body.len()).max(from + 1);
            let pad = display_width(&body[..from.min(body.len())]);
            let len = display_width(body.get(from..to).unwrap_or(" ")).max(1);
            let (class, ch) = if a.primary {
                ("primary", "^")
            } else {
                ("secondary", "-")
            };
            let _ = writeln!(
                out,
                "<span class=\"ln\">{:>width$}</span> {}<span class=\"under {class}\">{}{}</span>",
                "",
                " ".repeat(pad),
                ch.repeat(len),
                if a.message.is_empty() {
                    String::new()
                } else {
                    format!(" {}", esc(&a.message))
                },
            );
        }
    }
    out.push_str("</pre></div>\n");
}

/// A source character as shown: tabs as four spaces, escaped.
fn push_display(out: &mut String, ch: char) {
    match ch {
        '\t' => out.push_str("    "),
        '&' => out.push_str("&amp;"),
        '<' => out.push_str("&lt;"),
        '>' => out.push_str("&gt;"),
        c => out.push(c),
    }
}

fn display_width(s: &str) -> usize {
    s.chars().map(|c| if c == '\t' { 4 } else { 1 }).sum()
}

const CSS: &str = r#"
:root { --fg: #1f2328; --muted: #59636e; --line: #d1d9e0; --bg: #ffffff; --panel: #f6f8fa;
  --error: #cf222e; --warning: #9a6700; --note: #0969da; --ok: #1a7f37; }
* { box-sizing: border-box; }
body { margin: 0; color: var(--fg); background: var(--bg);
  font: 14px/1.5 -apple-system, "Segoe UI", "Noto Sans", Helvetica, Arial, sans-serif; }
code, pre, .cmd { font-family: ui-monospace, "SFMono-Regular", "DejaVu Sans Mono", Menlo, Consolas, monospace; font-size: 12.5px; }
header { padding: 18px 32px 14px; background: #24292f; color: #fff; }
header h1 { margin: 0; font-size: 20px; }
header .totals { margin: 4px 0 0; font-size: 15px; }
header .about { margin: 2px 0 0; color: #c9d1d9; font-size: 12px; }
main { padding: 8px 32px 40px; max-width: 1400px; }
h2 { font-size: 17px; margin: 22px 0 8px; padding-bottom: 4px; border-bottom: 1px solid var(--line); }
h2 code { font-size: 16px; }
table.summary { border-collapse: collapse; width: 100%; }
table.summary th, table.summary td { text-align: left; padding: 6px 10px; border-bottom: 1px solid var(--line); vertical-align: top; }
table.summary th { background: var(--panel); font-weight: 600; font-size: 12.5px; color: var(--muted); }
table.summary .num { text-align: right; font-variant-numeric: tabular-nums; }
a { color: var(--note); text-decoration: none; }
a:hover { text-decoration: underline; }
.badge { display: inline-block; padding: 0 8px; border-radius: 10px; font-size: 12px; font-weight: 600;
  line-height: 20px; border: 1px solid transparent; white-space: nowrap; }
.badge.ok { background: #dafbe1; color: var(--ok); border-color: #aceebb; }
.badge.bad, .badge.error { background: #ffebe9; color: var(--error); border-color: #ffcecb; }
.badge.warning { background: #fff8c5; color: var(--warning); border-color: #f5e0a0; }
.badge.note { background: #ddf4ff; color: var(--note); border-color: #b6e3ff; }
.badge.relevant { background: #ddf4ff; color: #0550ae; border-color: #b6e3ff; }
.badge.irrelevant { background: #fff8c5; color: var(--warning); border-color: #f5e0a0; }
.badge.not-covered { background: var(--panel); color: var(--muted); border-color: var(--line); }
.count.error { color: var(--error); font-weight: 600; }
.count.warning { color: var(--warning); font-weight: 600; }
.count.note { color: var(--note); }
.yes { color: var(--ok); font-weight: 600; }
.no { color: var(--warning); }
.quiet { color: var(--muted); }
.meta { color: var(--muted); margin: 0 0 12px; }
.finding { border: 1px solid var(--line); border-left: 5px solid var(--note); border-radius: 6px; box-shadow: 0 1px 2px rgba(31,35,40,.06);
  padding: 10px 16px 12px; margin: 14px 0; background: #fff; }
.finding.error { border-left-color: var(--error); }
.finding.warning { border-left-color: #d4a72c; }
.finding h3 { margin: 0 0 4px; font-size: 15px; font-weight: 600; }
.finding h3 .code { font-family: ui-monospace, "DejaVu Sans Mono", monospace; color: var(--muted); font-weight: 600; margin: 0 4px; }
.loc { margin: 0 0 6px; color: var(--muted); font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: 12.5px; }
.snippet { border: 1px solid var(--line); border-radius: 6px; margin: 8px 0; overflow-x: auto; background: var(--panel); }
.snippet .file { padding: 3px 10px; font-size: 12px; color: var(--muted); border-bottom: 1px solid var(--line);
  font-family: ui-monospace, "DejaVu Sans Mono", monospace; }
.snippet pre { margin: 0; padding: 6px 10px; line-height: 1.45; }
.snippet .ln { color: #8c959f; user-select: none; padding-right: 6px; border-right: 1px solid var(--line); margin-right: 4px; }
.snippet .gap { color: #8c959f; }
mark.primary { background: #ffebe9; color: inherit; border-bottom: 2px solid var(--error); }
mark.secondary { background: #ddf4ff; color: inherit; border-bottom: 2px solid var(--note); }
.warning mark.primary { background: #fff8c5; border-bottom-color: #d4a72c; }
.note mark.primary { background: #ddf4ff; border-bottom-color: var(--note); }
.note mark.secondary { background: #fbefff; border-bottom-color: #8250df; }
.under.primary { color: var(--error); font-weight: 700; }
.warning .under.primary { color: var(--warning); }
.note .under.primary { color: var(--note); }
.under.secondary { color: var(--note); }
.note .under.secondary { color: #8250df; }
ul.notes { margin: 6px 0; padding-left: 20px; }
ul.notes li { margin: 2px 0; }
.pre { white-space: pre-wrap; }
.replay { margin: 8px 0 4px; }
.replay .cmd { background: #24292f; color: #f6f8fa; padding: 3px 8px; border-radius: 4px; user-select: all; }
figure.timeline { margin: 12px 0 4px; border: 1px solid var(--line); border-radius: 6px; background: #fff; }
figure.timeline .scroll { overflow-x: auto; padding: 4px 0; }
figure.timeline figcaption { padding: 6px 12px 8px; border-top: 1px solid var(--line); font-size: 12.5px; color: var(--muted); background: var(--panel); }
svg.timeline { display: block; }
svg.timeline text { font-family: ui-monospace, "DejaVu Sans Mono", Menlo, monospace; font-size: 11px; fill: var(--fg);
  text-anchor: middle; paint-order: stroke; stroke: #fff; stroke-width: 3px; stroke-linejoin: round; }
svg.timeline .lane line { stroke: #d1d9e0; stroke-width: 2; }
svg.timeline text.rank { text-anchor: start; font: 600 13px -apple-system, "Segoe UI", "Noto Sans", Helvetica, Arial, sans-serif; }
svg.timeline text.total { text-anchor: start; font-size: 10px; fill: var(--muted); }
svg.timeline text.line { fill: var(--muted); font-size: 10px; }
svg.timeline text.role { font-size: 10px; font-weight: 700; }
svg.timeline .gap rect { fill: #fff; stroke: #d1d9e0; stroke-dasharray: 3 2; }
svg.timeline .gap text { fill: var(--muted); font-size: 10px; }
svg.timeline .coll { fill: #8c959f; fill-opacity: 0.16; stroke: #8c959f; stroke-opacity: 0.5; }
svg.timeline .coll.hl { fill: #0e7490; fill-opacity: 0.2; stroke: #0e7490; stroke-opacity: 0.9; stroke-width: 1.5; }
svg.timeline .msg { stroke: #57606a; stroke-width: 1.4; fill: none; }
svg.timeline .msg.wild { stroke: #0969da; stroke-width: 1.6; }
svg.timeline .msg.probe { stroke-dasharray: 4 3; }
svg.timeline .msg.hl { stroke: #d97706; stroke-width: 2.6; }
svg.timeline .rival { stroke: #cf222e; stroke-width: 2; stroke-dasharray: 6 4; fill: none; }
svg.timeline .path { fill: none; stroke: #f59e0b; stroke-opacity: 0.55; stroke-width: 7; stroke-linecap: round; stroke-linejoin: round; }
svg.timeline .mark .dot { fill: #fff; stroke: #57606a; stroke-width: 1.6; }
svg.timeline .mark .halo { fill: none; stroke-width: 2.5; }
svg.timeline .blocked .dot { fill: #cf222e; stroke: #cf222e; }
svg.timeline .blocked .halo { stroke: #cf222e; }
svg.timeline .stuck { stroke: #cf222e; stroke-width: 2.5; stroke-dasharray: 2 4; stroke-linecap: round; }
svg.timeline .blocked text.role { fill: #cf222e; }
svg.timeline .waiting .dot { fill: #eaeef2; stroke: #8c959f; }
svg.timeline .waiting .halo { stroke: #d1d9e0; }
svg.timeline .waiting text.role { fill: var(--muted); }
svg.timeline .w-recv .dot { fill: #d97706; stroke: #d97706; }
svg.timeline .w-recv .halo { stroke: #d97706; }
svg.timeline .w-recv text.role { fill: #b45309; }
svg.timeline .w-barrier .dot { fill: #0e7490; stroke: #0e7490; }
svg.timeline .w-barrier .halo { stroke: #0e7490; }
svg.timeline .w-barrier text.role { fill: #0e7490; }
svg.timeline .w-send .dot { fill: #8250df; stroke: #8250df; }
svg.timeline .w-send .halo { stroke: #8250df; }
svg.timeline .w-send text.role { fill: #8250df; }
svg.timeline .on-path .dot { fill: #fde68a; stroke: #d97706; }
svg.timeline .on-path .halo { stroke: #fbbf24; }
svg.timeline .on-path text.role { fill: #b45309; }
svg.timeline .race .dot { fill: #cf222e; stroke: #cf222e; }
svg.timeline .race .halo { stroke: #cf222e; }
svg.timeline .race text.role { fill: #cf222e; }
svg.timeline .completes .dot { fill: #fff; stroke: #0e7490; }
svg.timeline .completes .halo { stroke: #0e7490; }
svg.timeline .completes text.role { fill: #0e7490; }
.legend { display: block; margin-top: 4px; }
.key { display: inline-flex; align-items: center; margin-right: 14px; white-space: nowrap; }
.key i { display: inline-block; width: 12px; height: 12px; border-radius: 50%; margin-right: 5px; border: 2px solid #57606a; }
.key.blocked i { background: #cf222e; border-color: #cf222e; }
.key.waiting i { background: #eaeef2; border-color: #8c959f; }
.key.w-recv i { background: #d97706; border-color: #d97706; }
.key.w-barrier i { background: #0e7490; border-color: #0e7490; border-radius: 2px; }
.key.w-send i { background: #8250df; border-color: #8250df; }
.key.on-path i { background: #fde68a; border-color: #d97706; }
.key.race i { background: #cf222e; border-color: #cf222e; }
.key.completes i { background: #fff; border-color: #0e7490; }
.key.k-msg i, .key.k-wild i, .key.k-hl i, .key.k-rival i { width: 22px; height: 0; border-radius: 0; border-width: 2px 0 0; }
.key.k-wild i { border-color: #0969da; }
.key.k-hl i { border-color: #d97706; border-top-width: 3px; }
.key.k-rival i { border-color: #cf222e; border-top-style: dashed; }
"#;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codes::{Deadlock, Rule};
    use crate::finding::RankState;
    use crate::model::Timing;
    use crate::timeline::{At, Lane, Link, LinkKind, Mark, Role, Timeline};

    fn mark(index: usize, call: &str, role: Role) -> Mark {
        Mark {
            index,
            call: call.into(),
            file: Some("a<b>.c".into()),
            line: Some(index as u32 + 10),
            peer: Some("from 1".into()),
            role,
            touch: false,
        }
    }

    /// A deadlock of two ranks after 500 messages, drawn as the last two
    /// calls of each rank, in a file whose name needs escaping.
    fn report() -> Report {
        let ranks = (0..2)
            .map(|rank| RankState {
                rank,
                call: "MPI_Recv".into(),
                file: Some("a<b>.c".into()),
                line: Some(3),
                column: Some(5),
                span: None,
                thread: None,
            })
            .collect();
        let lane = |rank| Lane {
            rank,
            total: 501,
            marks: vec![
                mark(499, "MPI_Recv", Role::Plain),
                mark(500, "MPI_Recv", Role::Blocked),
            ],
        };
        let t = Timeline {
            lanes: vec![lane(0), lane(1)],
            links: vec![Link {
                kind: LinkKind::Collective,
                ends: vec![
                    At {
                        rank: 0,
                        index: 499,
                    },
                    At {
                        rank: 1,
                        index: 499,
                    },
                ],
                highlight: false,
            }],
            path: Vec::new(),
        };
        let f = Deadlock {
            ranks,
            replay: "0".into(),
        }
        .finding()
        .with_timeline(Some(t));
        Report {
            interrupted: false,
            not_checked: Vec::new(),
            programs: vec![ProgramReport {
                program: "my prog's/a<b>.c".into(),
                nprocs: 2,
                buffering: Buffering::Zero,
                outcome: Outcome::Deadlock,
                interleavings: 1,
                findings: vec![f],
                calls: 1002,
                build: None,
                static_facts: None,
                barriers: Vec::new(),
                timing: Timing::default(),
                elapsed_ms: 1234,
                interrupted: false,
                sends_copied: false,
                files: None,
                workflow: Default::default(),
            }],
        }
    }

    #[test]
    fn a_long_run_is_drawn_with_its_left_out_calls_and_everything_escaped() {
        let html = render_with_sources(&report(), &mut |path| {
            (path == "a<b>.c").then(|| "int x;\nint y;\n    MPI_Recv(&x);\n".to_string())
        });
        // The source line, escaped, with the primary label under it.
        assert!(
            html.contains("<div class=\"file\">a&lt;b&gt;.c</div>"),
            "{html}"
        );
        assert!(html.contains(
            "<span class=\"ln\">3</span>     <mark class=\"primary\">M</mark>PI_Recv(&amp;x);"
        ));
        assert!(html.contains("<span class=\"under primary\">^ rank 0</span>"));
        // The replay command quotes the path for a shell, and keeps
        // --zero-buffer.
        assert!(html.contains(
            "fib check &#39;my prog&#39;\\&#39;&#39;s/a&lt;b&gt;.c&#39; -n 2 --zero-buffer --replay 0"
        ));
        // 499 calls left out before each lane's window, one column each.
        assert_eq!(html.matches("⋯ 499 ⋯").count(), 2);
        assert!(html.contains("998 calls of the run left out (at most 2 per rank drawn"));
        assert_eq!(html.matches("<g class=\"lane\">").count(), 2);
        assert_eq!(html.matches("<g class=\"mark blocked\">").count(), 2);
        assert_eq!(html.matches("<line class=\"stuck\"").count(), 2);
        assert!(html.contains(
            "<title>rank 1, call 501: MPI_Recv from 1 at a&lt;b&gt;.c:510 (blocked)</title>"
        ));
        assert!(!html.contains("a<b>"), "unescaped text");
        assert!(html.contains("<span class=\"time\">1.23 s</span>"));
    }

    #[test]
    fn a_race_picture_draws_the_load_as_a_diamond_before_the_call_it_preceded() {
        let load = Mark {
            index: 1,
            call: "load".into(),
            file: Some("w.c".into()),
            line: Some(17),
            peer: None,
            role: Role::RaceAccess,
            touch: true,
        };
        let t = Timeline {
            lanes: vec![
                Lane {
                    rank: 0,
                    total: 2,
                    marks: vec![
                        mark(0, "MPI_Win_allocate", Role::Plain),
                        load,
                        mark(1, "MPI_Win_free", Role::Plain),
                    ],
                },
                Lane {
                    rank: 1,
                    total: 3,
                    marks: vec![
                        mark(0, "MPI_Win_allocate", Role::Plain),
                        mark(1, "MPI_Put", Role::RaceAccess),
                        mark(2, "MPI_Win_unlock", Role::Completes),
                    ],
                },
            ],
            links: Vec::new(),
            path: Vec::new(),
        };
        // The load is no call: rank 0's call 1 is still found, and no call
        // is counted as left out.
        assert_eq!(t.find(At { rank: 0, index: 1 }), Some((0, 2)));
        assert_eq!(t.omitted(), 0);
        assert_eq!(t.columns()[0], vec![0, 1, 2]);
        let mut out = String::new();
        super::picture::timeline_figure(&mut out, "r", &t, None);
        assert!(out.contains(
            "<g class=\"mark race\"><title>rank 0, before call 2: load at w.c:17 (racing access)</title>"
        ), "{out}");
        assert_eq!(out.matches("<path class=\"dot\"").count(), 1);
        assert!(out.contains("<g class=\"mark completes\">"));
        assert!(out.contains("<i></i>racing access</span>"));
        assert!(out.contains("<i></i>completes it</span>"));
    }

    #[test]
    fn text_is_escaped() {
        assert_eq!(esc("a<b>&\"c'"), "a&lt;b&gt;&amp;&quot;c&#39;");
    }

    #[test]
    fn line_ranges_find_a_column_or_the_indented_line() {
        let text = "int x;\n    MPI_Send(a);\n";
        assert_eq!(line_range(text, 2, Some(5)), Some((11, 12)));
        assert_eq!(line_range(text, 2, None), Some((11, 23)));
        assert_eq!(line_range(text, 3, None), None);
    }
}
