//! The output formats. Each format is one small module with one function
//! from a [`Report`](crate::Report) to the text fib prints (`render` for
//! JSON, `render_with_sources` for the formats that show or measure source
//! lines); the command line picks the module, and nothing else knows about
//! formats. The formats never read files themselves: the caller passes the
//! function that loads a source file, so this crate stays free of I/O.
//!
//! What several formats share is here: the [`Sources`] the findings' files
//! are read through, the position of a finding in its file as the
//! code-scanning formats count it ([`Extent`]), and how a rank's state reads.

pub mod github;
pub mod html;
pub mod human;
pub mod json;
pub mod sarif;

use std::collections::HashMap;
use std::fmt::Write as _;
use std::ops::Range;

use codespan_reporting::files::SimpleFiles;

use crate::finding::RankState;

/// Source files read so far, each at most once per rendering, kept in the
/// file database codespan draws from.
pub(crate) struct Sources<'a> {
    load: &'a mut dyn FnMut(&str) -> Option<String>,
    /// The codespan file id of each path asked for, or `None` when it could
    /// not be read.
    ids: HashMap<String, Option<usize>>,
    pub(crate) files: SimpleFiles<String, String>,
}

impl<'a> Sources<'a> {
    /// No file read yet; `load` returns a file's text, or `None` when it
    /// cannot be read.
    pub(crate) fn new(load: &'a mut dyn FnMut(&str) -> Option<String>) -> Sources<'a> {
        Sources {
            load,
            ids: HashMap::new(),
            files: SimpleFiles::new(),
        }
    }

    /// The file id of `path`, reading it the first time.
    pub(crate) fn id(&mut self, path: &str) -> Option<usize> {
        if let Some(id) = self.ids.get(path) {
            return *id;
        }
        let id = (self.load)(path).map(|text| self.files.add(path.to_string(), text));
        self.ids.insert(path.to_string(), id);
        id
    }

    /// The text of `path`, when it can be read.
    pub(crate) fn text(&mut self, path: &str) -> Option<&str> {
        let id = self.id(path)?;
        Some(self.files.get(id).ok()?.source().as_str())
    }

    /// Line `line` (1-based) of `path`, as displayed: tabs expanded and
    /// trailing white space removed.
    pub(crate) fn line(&mut self, path: &str, line: u32) -> Option<String> {
        let text = self.text(path)?;
        let text = text
            .lines()
            .nth(usize::try_from(line).ok()?.checked_sub(1)?)?;
        Some(text.replace('\t', "    ").trim_end().to_string())
    }

    /// The file id of `path` and the byte range `span`, when the file can be
    /// read and the span lies inside it on character boundaries.
    pub(crate) fn span(
        &mut self,
        path: &str,
        span: (usize, usize),
    ) -> Option<(usize, Range<usize>)> {
        let id = self.id(path)?;
        let text = self.files.get(id).ok()?.source();
        let (start, end) = span;
        let fits = start <= end
            && end <= text.len()
            && text.is_char_boundary(start)
            && text.is_char_boundary(end);
        fits.then_some((id, start..end))
    }

    /// Where a finding or label lies in `path`, as the code-scanning formats
    /// count: from the byte `span` when the file can be read and the span
    /// fits it, else from `line` and the byte `column` (converted when the
    /// line can be read). `None` without a line or a readable span.
    pub(crate) fn extent(
        &mut self,
        path: &str,
        line: Option<u32>,
        column: Option<u32>,
        span: Option<(usize, usize)>,
    ) -> Option<Extent> {
        if let Some((_, range)) = span.and_then(|s| self.span(path, s)) {
            let text = self.text(path)?;
            let (line, column) = position(text, range.start);
            let (end_line, end_column) = position(text, range.end);
            return Some(Extent {
                line,
                column: Some(column),
                end: Some((end_line, end_column)),
            });
        }
        let line = line.filter(|&l| l >= 1)?;
        let column = column.filter(|&c| c >= 1);
        let converted = column.and_then(|c| {
            let text = self.text(path)?;
            let row = text.split_inclusive('\n').nth(line as usize - 1)?;
            let before = row.get(..c as usize - 1)?;
            Some(to_u32(before.encode_utf16().count() + 1))
        });
        Some(Extent {
            line,
            column: converted.or(column),
            end: None,
        })
    }
}

/// A place in a file as SARIF counts it by default and as annotations show
/// it: lines from 1, columns from 1 in UTF-16 code units (bytes, for ASCII
/// sources), the end just past the last character.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Extent {
    pub line: u32,
    pub column: Option<u32>,
    /// The line and column just past the end, when the span is known.
    pub end: Option<(u32, u32)>,
}

/// The line and column (both from 1, the column in UTF-16 code units) of the
/// byte `offset` of `text`, which lies on a character boundary.
fn position(text: &str, offset: usize) -> (u32, u32) {
    let before = &text[..offset];
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let line = before.matches('\n').count() + 1;
    let column = before[line_start..].encode_utf16().count() + 1;
    (to_u32(line), to_u32(column))
}

fn to_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// `rank 0: blocked in MPI_Recv at file.c:12` (`rank 0: thread 1 blocked
/// in ...` when the rank had several threads), `rank 2: waiting in
/// MPI_Finalize`, `rank 3: called MPI_Ibarrier` (a nonblocking collective
/// returns at once), or `rank 1: exited` for a state that is not an MPI
/// call.
pub(crate) fn rank_state(r: &RankState) -> String {
    let mut s = if r.call == "MPI_Finalize" {
        // A rank in MPI_Finalize has finished its part; it is not at fault.
        format!("rank {}: waiting in {}", r.rank, r.call)
    } else if crate::finding::NONBLOCKING_COLLECTIVES.contains(&r.call.as_str()) {
        format!("rank {}: called {}", r.rank, r.call)
    } else if r.call.starts_with("MPI_") {
        match r.thread {
            Some(t) => format!("rank {}: thread {t} blocked in {}", r.rank, r.call),
            None => format!("rank {}: blocked in {}", r.rank, r.call),
        }
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

/// The lines a finding's text carries after its message in the formats that
/// have one text per finding (SARIF, annotations): every rank's state, the
/// notes (each line of a note on its own), the labels that the format does
/// not place itself when `labels` is set, the help and the replay token.
pub(crate) fn detail_lines(f: &crate::finding::Finding, labels: bool) -> Vec<String> {
    let mut lines: Vec<String> = f.ranks.iter().map(rank_state).collect();
    for note in &f.notes {
        let mut parts = note.lines();
        lines.push(format!("note: {}", parts.next().unwrap_or("")));
        lines.extend(parts.map(|l| format!("  {l}")));
    }
    if labels {
        for l in &f.labels {
            lines.push(format!("{}:{}:{}: {}", l.file, l.line, l.column, l.message));
        }
    }
    if let Some(help) = &f.help {
        lines.push(format!("help: {help}"));
    }
    if let Some(token) = &f.replay {
        lines.push(format!("replay: {token}"));
    }
    lines
}

/// `file:line:column (rank R)`, with whatever parts are known.
pub(crate) fn location(f: &crate::finding::Finding) -> Option<String> {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn state(rank: usize, call: &str, line: Option<u32>) -> RankState {
        RankState {
            rank,
            call: call.into(),
            file: line.map(|_| "a.c".into()),
            line,
            column: None,
            span: None,
            thread: None,
        }
    }

    #[test]
    fn a_rank_is_blocked_in_a_call_but_has_only_called_a_nonblocking_collective() {
        assert_eq!(
            rank_state(&state(0, "MPI_Recv", Some(12))),
            "rank 0: blocked in MPI_Recv at a.c:12"
        );
        assert_eq!(
            rank_state(&state(1, "MPI_Ibarrier", Some(16))),
            "rank 1: called MPI_Ibarrier at a.c:16"
        );
        assert_eq!(
            rank_state(&state(2, "MPI_Finalize", None)),
            "rank 2: waiting in MPI_Finalize"
        );
        assert_eq!(rank_state(&state(3, "exited", None)), "rank 3: exited");
    }
}
