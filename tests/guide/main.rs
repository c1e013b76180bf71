//! The user guide (`docs/`, an mdBook) and README.md, checked:
//!
//! - every command they show in a ```` ```console ```` block runs, with the
//!   output shown (trycmd; `...` and `[..]` stand for what varies).
//!   `TRYCMD=overwrite cargo test --test guide` writes the real output into
//!   the pages (keep the wildcards where times or paths vary);
//! - every page of a finding code (`docs/src/codes/FIBNNN.md`) is what
//!   `fib explain FIBNNN` prints, and there is one per code;
//!   `FIB_GUIDE_BLESS=1 cargo test --test guide` writes them;
//! - every relative link of `docs/src/**/*.md` and README.md reaches a file,
//!   and its `#anchor` a heading of that page (mdBook's heading ids); the
//!   guide's links stay inside `docs/src` (the book holds nothing else);
//! - every page is listed in `docs/src/SUMMARY.md`.
//!
//! `scripts/test.sh` builds the book (`mdbook build docs`) before the tests.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn fib() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_fib"))
}

/// Every `.md` file under `dir`, sorted.
fn markdown_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap_or_else(|e| panic!("{}: {e}", d.display())) {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|x| x == "md") {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// The pages the checks read: the guide's and README.md.
fn pages() -> Vec<PathBuf> {
    let mut pages = markdown_files(&root().join("docs/src"));
    pages.push(root().join("README.md"));
    pages
}

fn rel(path: &Path) -> String {
    path.strip_prefix(root())
        .unwrap_or(path)
        .display()
        .to_string()
}

// ---------------------------------------------------------------- commands

#[test]
fn every_command_shown_runs_as_shown() {
    let cache = tempfile::tempdir().unwrap();
    let cases = trycmd::TestCases::new();
    cases
        .register_bin("fib", fib())
        .register_bin("mpicc.mpich", PathBuf::from("/usr/bin/mpicc.mpich"))
        .env("HWLOC_COMPONENTS", "-linuxio,-pci")
        .env("FIB_CACHE_DIR", cache.path().display().to_string())
        .env("NO_COLOR", "1")
        .timeout(std::time::Duration::from_secs(120))
        .case("README.md");
    for page in markdown_files(&root().join("docs/src")) {
        let text = std::fs::read_to_string(&page).unwrap();
        if text.contains("```console") {
            cases.case(page.strip_prefix(root()).unwrap());
        }
    }
    cases.run();
}

// ------------------------------------------------------------- code pages

/// The finding codes, from the files that define them
/// (`report/src/codes/fibNNN_*.rs`).
fn codes() -> Vec<String> {
    let mut codes: Vec<String> = std::fs::read_dir(root().join("report/src/codes"))
        .unwrap()
        .filter_map(|e| {
            let name = e.unwrap().file_name().into_string().unwrap();
            let digits = name.strip_prefix("fib")?.get(..3)?.to_string();
            digits
                .chars()
                .all(|c| c.is_ascii_digit())
                .then(|| format!("FIB{digits}"))
        })
        .collect();
    codes.sort();
    codes
}

/// `fib explain CODE` as a page: its first line (`FIB014 irrelevant-barrier
/// (warning)`) made the title and the severity, the rest as it is.
fn code_page(code: &str) -> (String, String) {
    let out = Command::new(fib())
        .args(["explain", code])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "fib explain {code}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let (first, body) = text.split_once('\n').unwrap();
    let (title, severity) = first
        .trim_end()
        .strip_suffix(')')
        .and_then(|s| s.rsplit_once(" ("))
        .unwrap_or_else(|| panic!("fib explain {code}: first line `{first}`"));
    let (_, name) = title.split_once(' ').unwrap();
    let (summary, rest) = body.trim_start().split_once("\n\n").unwrap_or((body, ""));
    let page = format!(
        "# {title}\n\
         \n\
         <!-- Written by tests/guide from `fib explain {code}`: run\n     \
         FIB_GUIDE_BLESS=1 cargo test --test guide to write it again. -->\n\
         \n\
         Severity: **{severity}**. {summary}\n\
         \n\
         {rest}",
        summary = summary.replace('\n', " ").trim(),
        rest = rest.trim_end().to_string() + "\n",
    );
    let row = format!(
        "| [{code}]({code}.md) | {name} | {severity} | {} |",
        summary.replace('\n', " ").replace('|', "\\|").trim()
    );
    (page, row)
}

#[test]
fn every_code_page_is_what_fib_explain_prints() {
    let dir = root().join("docs/src/codes");
    let bless = std::env::var_os("FIB_GUIDE_BLESS").is_some_and(|v| v == "1");
    let mut wanted: BTreeMap<PathBuf, String> = BTreeMap::new();
    let mut rows = Vec::new();
    for code in codes() {
        let (page, row) = code_page(&code);
        wanted.insert(dir.join(format!("{code}.md")), page);
        rows.push(row);
    }
    let index = format!(
        "# Finding codes\n\
         \n\
         <!-- Written by tests/guide from `fib explain`: run\n     \
         FIB_GUIDE_BLESS=1 cargo test --test guide to write it again. -->\n\
         \n\
         Every finding has a stable code. Each page below is what\n\
         `fib explain CODE` prints: what the finding means, why it matters, an\n\
         example and what to do.\n\
         \n\
         | code | name | severity | summary |\n\
         | --- | --- | --- | --- |\n\
         {}\n",
        rows.join("\n")
    );
    wanted.insert(dir.join("index.md"), index);

    let mut wrong = Vec::new();
    for (path, text) in &wanted {
        if std::fs::read_to_string(path).ok().as_deref() != Some(text.as_str()) {
            if bless {
                std::fs::create_dir_all(&dir).unwrap();
                std::fs::write(path, text).unwrap();
            } else {
                wrong.push(format!("{} differs from what it would be", rel(path)));
            }
        }
    }
    for path in markdown_files(&dir) {
        if !wanted.contains_key(&path) {
            if bless {
                std::fs::remove_file(&path).unwrap();
            } else {
                wrong.push(format!("{} names no finding code", rel(&path)));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "the finding codes' pages do not match `fib explain`:\n  {}\n\
         write them again with FIB_GUIDE_BLESS=1 cargo test --test guide",
        wrong.join("\n  ")
    );
}

// ------------------------------------------------------------------ links

/// mdBook's id of a heading: lower case, white space to `-`, every
/// character other than a letter, a digit, `_` or `-` dropped.
fn heading_id(text: &str) -> String {
    text.chars()
        .filter_map(|c| {
            if c.is_alphanumeric() || c == '_' || c == '-' {
                Some(c.to_lowercase().collect::<String>())
            } else if c.is_whitespace() {
                Some("-".to_string())
            } else {
                None
            }
        })
        .collect()
}

struct Parsed {
    /// Heading ids, a repeated one numbered as mdBook does (`x`, `x-1`, ...).
    anchors: BTreeSet<String>,
    /// Link and image destinations.
    links: Vec<String>,
}

fn parse(path: &Path) -> Parsed {
    let text = std::fs::read_to_string(path).unwrap();
    let mut anchors = BTreeSet::new();
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    let mut links = Vec::new();
    let mut heading: Option<String> = None;
    let options = Options::ENABLE_TABLES
        | Options::ENABLE_FOOTNOTES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_TASKLISTS
        | Options::ENABLE_HEADING_ATTRIBUTES;
    for event in Parser::new_ext(&text, options) {
        match event {
            Event::Start(Tag::Heading { id, .. }) => {
                if let Some(id) = id {
                    anchors.insert(id.to_string());
                }
                heading = Some(String::new());
            }
            Event::End(TagEnd::Heading(_)) => {
                let id = heading_id(&heading.take().unwrap());
                let n = seen.entry(id.clone()).or_insert(0);
                anchors.insert(if *n == 0 { id } else { format!("{id}-{n}") });
                *n += 1;
            }
            Event::Text(t) | Event::Code(t) => {
                if let Some(h) = heading.as_mut() {
                    h.push_str(&t);
                }
            }
            Event::Start(Tag::Link { dest_url, .. })
            | Event::Start(Tag::Image { dest_url, .. }) => links.push(dest_url.to_string()),
            _ => {}
        }
    }
    Parsed { anchors, links }
}

#[test]
fn every_link_reaches_its_page_and_heading() {
    let guide = root().join("docs/src");
    let mut parsed: BTreeMap<PathBuf, Parsed> = BTreeMap::new();
    for page in pages() {
        let p = parse(&page);
        parsed.insert(page, p);
    }
    let mut broken = Vec::new();
    let mut external = 0;
    for (page, p) in &parsed {
        for link in &p.links {
            if link.starts_with("http://") || link.starts_with("https://") {
                external += 1;
                continue;
            }
            if link.starts_with("mailto:") {
                continue;
            }
            let (file, anchor) = match link.split_once('#') {
                Some((f, a)) => (f, Some(a)),
                None => (link.as_str(), None),
            };
            let target = if file.is_empty() {
                page.clone()
            } else {
                let mut t = page.parent().unwrap().to_path_buf();
                for part in Path::new(file).components() {
                    match part {
                        std::path::Component::ParentDir => {
                            t.pop();
                        }
                        std::path::Component::CurDir => {}
                        c => t.push(c),
                    }
                }
                t
            };
            let what = format!("{}: link `{link}`", rel(page));
            if !target.exists() {
                broken.push(format!("{what}: {} does not exist", rel(&target)));
                continue;
            }
            if page.starts_with(&guide) && !target.starts_with(&guide) {
                broken.push(format!(
                    "{what}: {} is outside docs/src, which the book does not hold",
                    rel(&target)
                ));
                continue;
            }
            if let Some(anchor) = anchor {
                let anchors = match parsed.get(&target) {
                    Some(t) => &t.anchors,
                    None => {
                        broken.push(format!("{what}: an anchor into a page that is not checked"));
                        continue;
                    }
                };
                if !anchors.contains(anchor) {
                    broken.push(format!(
                        "{what}: {} has no heading `#{anchor}`",
                        rel(&target)
                    ));
                }
            }
        }
    }
    assert!(
        broken.is_empty(),
        "broken links:\n  {}",
        broken.join("\n  ")
    );
    // External links are not fetched (the tests run without the network):
    // keep them few.
    assert!(external <= 12, "{external} external links: keep them few");
}

#[test]
fn every_page_is_in_the_summary() {
    let src = root().join("docs/src");
    let summary = src.join("SUMMARY.md");
    let listed: BTreeSet<PathBuf> = parse(&summary)
        .links
        .iter()
        .map(|l| src.join(l.split('#').next().unwrap()))
        .collect();
    let missing: Vec<String> = markdown_files(&src)
        .into_iter()
        .filter(|p| *p != summary && !listed.contains(p))
        .map(|p| rel(&p))
        .collect();
    assert!(
        missing.is_empty(),
        "pages that docs/src/SUMMARY.md does not list (mdBook leaves them out of the book):\n  {}",
        missing.join("\n  ")
    );
}
