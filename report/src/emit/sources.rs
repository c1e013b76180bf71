//! Source files as the emitters that show source lines read them: each file
//! at most once per rendering, kept in the file database codespan draws
//! from, with the lines and spans the emitters ask for.

use std::collections::HashMap;
use std::ops::Range;

use codespan_reporting::files::SimpleFiles;

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
    /// No file read yet; files come from `load`, which returns a file's
    /// text or `None` when it cannot be read.
    pub(crate) fn new(load: &'a mut dyn FnMut(&str) -> Option<String>) -> Sources<'a> {
        Sources {
            load,
            ids: HashMap::new(),
            files: SimpleFiles::new(),
        }
    }

    /// The text of `path`, when it can be read.
    pub(crate) fn text(&mut self, path: &str) -> Option<&str> {
        let id = self.id(path)?;
        Some(self.files.get(id).ok()?.source().as_str())
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

    /// Line `line` (1-based) of `path`, as displayed: tabs expanded and
    /// trailing white space removed.
    pub(crate) fn line(&mut self, path: &str, line: u32) -> Option<String> {
        let id = self.id(path)?;
        let text = self.files.get(id).ok()?.source();
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
}
