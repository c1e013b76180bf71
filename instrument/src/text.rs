//! Small lexical helpers over C source text: offsets and line/column pairs,
//! skipping comments and literals, matching parentheses and splitting an
//! argument list at its top-level commas.

/// Whether `b` can be part of a C identifier.
pub(crate) fn is_ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// The identifier starting at `at`, if one does.
pub(crate) fn ident_at(text: &str, at: usize) -> Option<&str> {
    let bytes = text.as_bytes();
    if at >= bytes.len() || !is_ident(bytes[at]) || bytes[at].is_ascii_digit() {
        return None;
    }
    if at > 0 && is_ident(bytes[at - 1]) {
        return None;
    }
    let end = (at..bytes.len())
        .find(|&i| !is_ident(bytes[i]))
        .unwrap_or(bytes.len());
    Some(&text[at..end])
}

/// Whether the identifier `name` is written at `at` (and does not continue).
pub(crate) fn ident_is(text: &str, at: usize, name: &str) -> bool {
    ident_at(text, at) == Some(name)
}

/// Skips whitespace, comments and line continuations from `at`.
pub(crate) fn skip_blank(text: &str, mut at: usize) -> usize {
    let b = text.as_bytes();
    loop {
        if at >= b.len() {
            return at;
        }
        if b[at].is_ascii_whitespace() {
            at += 1;
        } else if b[at] == b'\\' && b.get(at + 1) == Some(&b'\n') {
            at += 2;
        } else if b[at] == b'/' && b.get(at + 1) == Some(&b'*') {
            at = text[at + 2..]
                .find("*/")
                .map_or(b.len(), |e| at + 2 + e + 2);
        } else if b[at] == b'/' && b.get(at + 1) == Some(&b'/') {
            at = text[at..].find('\n').map_or(b.len(), |e| at + e);
        } else {
            return at;
        }
    }
}

/// Given `open` at a `(`, the offset just past its matching `)`, skipping
/// comments, strings and character literals.
pub(crate) fn match_paren(text: &str, open: usize) -> Option<usize> {
    let b = text.as_bytes();
    if b.get(open) != Some(&b'(') {
        return None;
    }
    let mut depth = 0i32;
    let mut i = open;
    while i < b.len() {
        match b[i] {
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            b'"' | b'\'' => {
                let q = b[i];
                i += 1;
                while i < b.len() && b[i] != q {
                    if b[i] == b'\\' {
                        i += 1;
                    }
                    i += 1;
                }
            }
            b'/' if matches!(b.get(i + 1), Some(b'*') | Some(b'/')) => {
                i = skip_blank(text, i);
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// Splits the text between the parentheses `[open, close)` (`open` at `(`,
/// `close` just past `)`) at its top-level commas; each piece trimmed.
pub(crate) fn split_args(text: &str, open: usize, close: usize) -> Vec<String> {
    arg_spans(text, open, close)
        .into_iter()
        .map(|(a, b)| normalize(&text[a..b]))
        .collect()
}

/// The byte ranges of the arguments between the parentheses `[open,
/// close)`, as [`split_args`] splits them, each without the blanks around
/// it.
pub(crate) fn arg_spans(text: &str, open: usize, close: usize) -> Vec<(usize, usize)> {
    let base = open + 1;
    let inner = &text[base..close - 1];
    let b = inner.as_bytes();
    let trimmed = |from: usize, to: usize| {
        let piece = &inner[from..to];
        let lead = piece.len() - piece.trim_start().len();
        let tail = piece.len() - piece.trim_end().len();
        if lead == piece.len() {
            (base + from, base + from)
        } else {
            (base + from + lead, base + to - tail)
        }
    };
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut start = 0;
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => depth -= 1,
            b',' if depth == 0 => {
                out.push(trimmed(start, i));
                start = i + 1;
            }
            b'/' if matches!(b.get(i + 1), Some(b'*') | Some(b'/')) => {
                i = skip_blank(inner, i);
                continue;
            }
            b'"' | b'\'' => {
                let q = b[i];
                i += 1;
                while i < b.len() && b[i] != q {
                    if b[i] == b'\\' {
                        i += 1;
                    }
                    i += 1;
                }
            }
            _ => {}
        }
        i += 1;
    }
    let last = trimmed(start, b.len());
    if !(out.is_empty() && last.0 == last.1) {
        out.push(last);
    }
    out
}

/// Collapses runs of whitespace (an argument written over several lines)
/// into single spaces.
pub(crate) fn normalize(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The call written at `at` (an identifier, then an argument list): the
/// offset just past its `)` and its arguments.
pub(crate) fn call_at(text: &str, at: usize) -> Option<(usize, Vec<String>)> {
    let name = ident_at(text, at)?;
    let open = skip_blank(text, at + name.len());
    let close = match_paren(text, open)?;
    Some((close, split_args(text, open, close)))
}

/// The byte ranges of the arguments of the call written at `at`, as
/// [`arg_spans`] gives them.
pub(crate) fn arg_spans_at(text: &str, at: usize) -> Option<Vec<(usize, usize)>> {
    let name = ident_at(text, at)?;
    let open = skip_blank(text, at + name.len());
    let close = match_paren(text, open)?;
    Some(arg_spans(text, open, close))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calls_and_args() {
        let t = "x = MPI_Send(buf, f(a, b), /* c, */ 3,\n    \"s,)\");";
        let (end, args) = call_at(t, 4).unwrap();
        assert_eq!(&t[end - 1..end], ")");
        assert_eq!(args, vec!["buf", "f(a, b)", "/* c, */ 3", "\"s,)\""]);
        assert!(ident_is(t, 4, "MPI_Send"));
        assert!(!ident_is(t, 5, "PI_Send"));
        let spans = arg_spans_at(t, 4).unwrap();
        let texts: Vec<&str> = spans.iter().map(|&(a, b)| &t[a..b]).collect();
        assert_eq!(texts, vec!["buf", "f(a, b)", "/* c, */ 3", "\"s,)\""]);
    }
}

/// The text of the source file at `path`. A file that is not valid UTF-8
/// (a comment in Latin-1, say) is read with each byte that is not part of
/// valid UTF-8 replaced by `?`: one byte for one, so that the byte offsets
/// libclang reports still point where they should.
pub fn read_source(path: &std::path::Path) -> std::io::Result<String> {
    let bytes = std::fs::read(path)?;
    Ok(source_text(bytes))
}

/// `bytes` as text, invalid UTF-8 replaced byte for byte (see
/// [`read_source`]).
pub(crate) fn source_text(bytes: Vec<u8>) -> String {
    match String::from_utf8(bytes) {
        Ok(s) => s,
        Err(e) => {
            let mut bytes = e.into_bytes();
            let mut i = 0;
            while i < bytes.len() {
                match std::str::from_utf8(&bytes[i..]) {
                    Ok(_) => break,
                    Err(e) => {
                        let bad = i + e.valid_up_to();
                        let n = e.error_len().unwrap_or(bytes.len() - bad);
                        for b in &mut bytes[bad..bad + n] {
                            *b = b'?';
                        }
                        i = bad + n;
                    }
                }
            }
            String::from_utf8(bytes).expect("only valid UTF-8 is left")
        }
    }
}

#[cfg(test)]
mod source_tests {
    use super::source_text;

    #[test]
    fn invalid_utf8_is_replaced_byte_for_byte() {
        let latin1 = b"/* caf\xe9 */ int main(void) { return 0; }\n".to_vec();
        let text = source_text(latin1.clone());
        assert_eq!(text.len(), latin1.len());
        assert_eq!(text, "/* caf? */ int main(void) { return 0; }\n");
        assert_eq!(source_text(b"ok \xc3\xa9".to_vec()), "ok \u{e9}");
        assert_eq!(source_text(b"cut \xc3".to_vec()), "cut ?");
    }
}
