//! What the snapshot tests share: taking the colour out of a rendered report,
//! and reading the fixtures the findings name.

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

/// The text of the file at `path` (relative to the crate, where the tests
/// run), or `None` when it cannot be read: the source loader fib's command
/// line passes to the emitters.
pub fn read_source(path: &str) -> Option<String> {
    std::fs::read_to_string(path).ok()
}
