//! What the snapshot tests share: taking the colour out of a rendered report.

/// `text` without its ANSI escape sequences.
pub fn strip_ansi(text: &str) -> String {
    let mut stripped = String::new();
    let mut rest = text;
    while let Some(start) = rest.find('\x1b') {
        stripped.push_str(&rest[..start]);
        let end = rest[start..].find('m').unwrap();
        rest = &rest[start + end + 1..];
    }
    stripped.push_str(rest);
    stripped
}
