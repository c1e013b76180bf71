//! Runs the real `fib` binary with `--confirm` on C programs whose header
//! states the expected barrier verdicts, and checks every one:
//!
//! ```text
//! /* fib-barriers: nprocs=N outcome=OUTCOME interleavings=K
//!  * also: nprocs=N2 interleavings=K2
//!  * barrier L<line>: relevant|irrelevant|not-covered[ witness: recv L<l> rank R, send L<l> rank S]
//!  * barrier L<line>: relevant memory: L<l> rank R, L<l> rank S
//!  * barrier L<line>: irrelevant ordered-by: L<l>
//! ```
//!
//! Each (program, process count) is checked for its outcome, its number of
//! interleavings, the verdict of the group of every barrier line, the
//! witness of relevant groups (a wildcard receive and a send, or for a
//! group relevant through memory its two accesses, each by line and rank),
//! what else orders the accesses an irrelevant group lies between (the
//! line of that synchronisation), and that the proof by removal agreed. An
//! `also:` line may give a barrier line another verdict at its process
//! count: `L<line>=<verdict>`.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

/// Cases with more interleavings than this are checked without `--confirm`
/// (its cost is one exploration per barrier group).
const CONFIRM_LIMIT: u64 = 30;

struct Expect {
    line: u64,
    verdict: String,
    witness: Option<(u64, u64, u64, u64)>,
    /// The witness names two memory accesses rather than a receive and a
    /// send.
    memory: bool,
    /// The line of the synchronisation that already orders what an
    /// irrelevant group lies between.
    ordered_by: Option<u64>,
}

struct Case {
    nprocs: u64,
    outcome: String,
    interleavings: u64,
    /// Barrier lines whose verdict differs at this process count.
    overrides: Vec<(u64, String)>,
}

fn overrides(text: &str) -> Vec<(u64, String)> {
    text.split_whitespace()
        .filter_map(|w| {
            let (l, v) = w.strip_prefix('L')?.split_once('=')?;
            Some((l.parse().ok()?, v.to_string()))
        })
        .collect()
}

fn field<'a>(text: &'a str, key: &str) -> Option<&'a str> {
    text.split_whitespace()
        .find_map(|w| w.strip_prefix(key).map(|v| v.trim_end_matches("*/")))
}

fn parse(text: &str) -> (Vec<Case>, Vec<Expect>) {
    let first = text.lines().next().unwrap_or("");
    assert!(first.starts_with("/* fib-barriers:"), "no header: {first}");
    let outcome = field(first, "outcome=").unwrap().to_string();
    let mut cases = vec![Case {
        nprocs: field(first, "nprocs=").unwrap().parse().unwrap(),
        outcome: outcome.clone(),
        interleavings: field(first, "interleavings=").unwrap().parse().unwrap(),
        overrides: Vec::new(),
    }];
    let mut expects = Vec::new();
    for l in text
        .lines()
        .skip(1)
        .take_while(|l| l.starts_with(" *") || l.trim() == "/*")
    {
        if let Some(rest) = l.strip_prefix(" * also:") {
            cases.push(Case {
                nprocs: field(rest, "nprocs=").unwrap().parse().unwrap(),
                outcome: outcome.clone(),
                interleavings: field(rest, "interleavings=").unwrap().parse().unwrap(),
                overrides: overrides(rest),
            });
        } else if let Some(rest) = l.strip_prefix(" * barrier L") {
            let (line, rest) = rest.split_once(':').unwrap();
            let mut words = rest.split_whitespace();
            let verdict = words.next().unwrap().to_string();
            let nums: Vec<u64> = rest
                .split(|c: char| !c.is_ascii_digit())
                .filter(|s| !s.is_empty())
                .map(|s| s.parse().unwrap())
                .collect();
            expects.push(Expect {
                line: line.parse().unwrap(),
                verdict,
                witness: (nums.len() == 4).then(|| (nums[0], nums[1], nums[2], nums[3])),
                memory: rest.contains("memory:"),
                ordered_by: (rest.contains("ordered-by:") && nums.len() == 1).then(|| nums[0]),
            });
        }
    }
    (cases, expects)
}

fn check_case(path: &Path, case: &Case, expects: &[Expect], cache: &Path) -> Vec<String> {
    let name = path.file_name().unwrap().to_string_lossy().to_string();
    let confirm = case.interleavings <= CONFIRM_LIMIT;
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_fib"));
    cmd.arg("check")
        .arg(path)
        .args(["-n", &case.nprocs.to_string(), "--format", "json"])
        .env("FIB_CACHE_DIR", cache);
    if confirm {
        cmd.arg("--confirm");
    }
    let out = cmd.output().unwrap();
    let v: Value = match serde_json::from_slice(&out.stdout) {
        Ok(v) => v,
        Err(e) => {
            return vec![format!(
                "{name} -n {}: no JSON ({e}): {}",
                case.nprocs,
                String::from_utf8_lossy(&out.stderr)
            )]
        }
    };
    let p = &v["programs"][0];
    let at = format!("{name} -n {}", case.nprocs);
    let mut bad = Vec::new();
    if p["outcome"] != case.outcome.as_str() {
        bad.push(format!(
            "{at}: outcome {} (expected {})",
            p["outcome"], case.outcome
        ));
    }
    if p["interleavings"] != case.interleavings {
        bad.push(format!(
            "{at}: {} interleavings (expected {})",
            p["interleavings"], case.interleavings
        ));
    }
    for f in p["findings"].as_array().unwrap() {
        if f["code"] == "FIB017" {
            bad.push(format!("{at}: {}", f["message"]));
        }
    }
    let groups = p["barriers"].as_array().unwrap();
    for e in expects {
        let g = groups.iter().find(|g| {
            g["group"]
                .as_array()
                .unwrap()
                .iter()
                .any(|s| s["line"] == e.line && s["file"].as_str().unwrap().ends_with(&name))
        });
        let Some(g) = g else {
            bad.push(format!("{at}: no barrier group has line {}", e.line));
            continue;
        };
        let overridden = case.overrides.iter().find(|(l, _)| *l == e.line);
        let verdict = overridden.map_or(e.verdict.as_str(), |(_, v)| v.as_str());
        if g["verdict"] != verdict {
            bad.push(format!(
                "{at}: barrier L{} is {} (expected {verdict})",
                e.line, g["verdict"]
            ));
        }
        if overridden.is_some() {
            continue;
        }
        if let Some(l) = e.ordered_by {
            let by = g["witness"]["ordered_by"].as_str().unwrap_or("");
            if !by.contains(&format!("{name}:{l} ")) {
                bad.push(format!(
                    "{at}: barrier L{}: ordered by {by:?} (expected the call at line {l})",
                    e.line
                ));
            }
        }
        if confirm && e.verdict != "not-covered" && g["confirmed"] != true {
            bad.push(format!(
                "{at}: barrier L{} not confirmed by removal",
                e.line
            ));
        }
        if let Some((rl, rr, sl, sr)) = e.witness {
            let w = &g["witness"];
            let (a, b) = if e.memory {
                ("first", "second")
            } else {
                ("recv", "send")
            };
            let got = (&w[a]["line"], &w[a]["rank"], &w[b]["line"], &w[b]["rank"]);
            if got
                != (
                    &Value::from(rl),
                    &Value::from(rr),
                    &Value::from(sl),
                    &Value::from(sr),
                )
            {
                bad.push(format!("{at}: barrier L{} witness {w} (expected {a} L{rl} rank {rr}, {b} L{sl} rank {sr})", e.line));
            }
        }
    }
    bad
}

/// Checks every `.c` program of `dir` at every process count its header
/// names; panics with every mismatch at once.
pub fn check_dir(dir: &str) -> usize {
    let dir: PathBuf = [env!("CARGO_MANIFEST_DIR"), dir].iter().collect();
    let cache = tempfile::tempdir().unwrap();
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "c"))
        .collect();
    files.sort();
    let mut bad = Vec::new();
    let mut cases = 0;
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        let (cs, expects) = parse(&text);
        for c in &cs {
            cases += 1;
            bad.extend(check_case(f, c, &expects, cache.path()));
        }
    }
    assert!(
        bad.is_empty(),
        "{} mismatches:\n{}",
        bad.len(),
        bad.join("\n")
    );
    cases
}
