//! The HTML report as a reviewer sees it: the real `fib` binary writes the
//! report of real MPICH runs with `--format html -o FILE`, headless Chromium
//! loads it, and the tests read the DOM Chromium rendered and the
//! screenshot it took. Each report is also compared with its snapshot in
//! `tests/html/snapshots/` (times, the build cache and the inline style
//! sheet redacted).
//!
//! Chromium is required (`scripts/setup.sh` installs Debian's `chromium`);
//! without it these tests fail. Every Chromium call is bounded by a time
//! limit and killed, with its whole process group, when it goes past it.

use std::io::Read;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use wait_timeout::ChildExt;

/// How long one Chromium call may take.
const CHROMIUM_LIMIT: Duration = Duration::from_secs(90);

/// The size of the screenshots, in pixels.
const WIDTH: u32 = 1280;
const HEIGHT: u32 = 2000;

/// `fib check ARGS --format html -o OUT`, run from the workspace root with
/// its build cache in `cache`; returns fib's exit code and standard output.
fn fib_html(cache: &Path, args: &[&str], out: &Path) -> (i32, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_fib"))
        .arg("check")
        .args(args)
        .args(["--format", "html", "-o"])
        .arg(out)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("FIB_CACHE_DIR", cache)
        .output()
        .expect("running fib");
    assert!(
        o.stderr.is_empty(),
        "fib wrote to stderr: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    (
        o.status.code().expect("fib exited"),
        String::from_utf8(o.stdout).unwrap(),
    )
}

/// The Chromium binary: `chromium` on the PATH. Its absence fails the test.
fn chromium() -> PathBuf {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .map(|d| d.join("chromium"))
        .find(|p| p.is_file())
        .unwrap_or_else(|| {
            panic!(
                "chromium is not installed: the HTML report's tests load the report in headless \
                 Chromium (run `bash scripts/setup.sh` as root, which installs Debian's chromium)"
            )
        })
}

/// What one headless Chromium call printed.
struct Browser {
    stdout: String,
    stderr: String,
}

/// Headless Chromium on the file `page` with the extra arguments `args`
/// and a fresh profile, within [`CHROMIUM_LIMIT`]; its whole process group
/// is killed when it goes past the limit.
fn headless(page: &Path, args: &[&str]) -> Browser {
    let profile = tempfile::tempdir().unwrap();
    let mut child = Command::new(chromium())
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--enable-logging=stderr",
            "--v=0",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .args(args)
        .arg(format!("file://{}", page.display()))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .spawn()
        .expect("starting chromium");
    // Read both pipes while Chromium runs, so that it never blocks on a
    // full one.
    let mut out = child.stdout.take().unwrap();
    let mut err = child.stderr.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut s = Vec::new();
        let _ = out.read_to_end(&mut s);
        s
    });
    let err_reader = std::thread::spawn(move || {
        let mut s = Vec::new();
        let _ = err.read_to_end(&mut s);
        s
    });
    let status = match child
        .wait_timeout(CHROMIUM_LIMIT)
        .expect("waiting for chromium")
    {
        Some(status) => status,
        None => {
            // SAFETY: kill(2) on the process group this test started.
            unsafe { libc::kill(-(child.id() as i32), libc::SIGKILL) };
            let _ = child.wait();
            panic!(
                "chromium took more than {CHROMIUM_LIMIT:?} on {}",
                page.display()
            );
        }
    };
    let stdout = String::from_utf8_lossy(&reader.join().unwrap()).into_owned();
    let stderr = String::from_utf8_lossy(&err_reader.join().unwrap()).into_owned();
    assert!(
        status.success(),
        "chromium failed ({status}) on {}:\n{stderr}",
        page.display()
    );
    Browser { stdout, stderr }
}

/// The DOM Chromium rendered from `page`, after checking that loading it
/// logged no console message and no failed load.
fn rendered_dom(page: &Path) -> String {
    let b = headless(page, &["--dump-dom"]);
    let bad: Vec<&str> = b
        .stderr
        .lines()
        .filter(|l| {
            l.contains(":CONSOLE")
                || l.contains("Uncaught")
                || l.contains("net::ERR")
                || l.contains("Failed to load resource")
        })
        .collect();
    assert!(
        bad.is_empty(),
        "the page logged errors:\n{}",
        bad.join("\n")
    );
    assert!(
        b.stdout.contains("</html>"),
        "no DOM from chromium:\n{}",
        b.stderr
    );
    b.stdout
}

/// A screenshot of `page` at [`WIDTH`]×[`HEIGHT`], checked to be a PNG of
/// that size that is not blank, with the report's dark header band at the
/// top and white below it. Written to `png`.
fn check_screenshot(page: &Path, png: &Path) {
    let _ = headless(
        page,
        &[
            &format!("--screenshot={}", png.display()),
            &format!("--window-size={WIDTH},{HEIGHT}"),
            "--hide-scrollbars",
        ],
    );
    let file = std::fs::File::open(png).expect("chromium wrote no screenshot");
    let mut decoder = png::Decoder::new(std::io::BufReader::new(file));
    decoder.set_transformations(png::Transformations::EXPAND | png::Transformations::STRIP_16);
    let mut reader = decoder.read_info().expect("the screenshot is not a PNG");
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let frame = reader
        .next_frame(&mut buf)
        .expect("the PNG does not decode");
    assert_eq!((frame.width, frame.height), (WIDTH, HEIGHT));
    let channels = frame.color_type.samples();
    assert!(channels >= 3, "{:?}", frame.color_type);
    let pixel = |x: u32, y: u32| -> [u8; 3] {
        let i = (y as usize * frame.width as usize + x as usize) * channels;
        [buf[i], buf[i + 1], buf[i + 2]]
    };
    let mut colours = std::collections::HashSet::new();
    for y in (0..HEIGHT).step_by(7) {
        for x in (0..WIDTH).step_by(7) {
            colours.insert(pixel(x, y));
        }
    }
    assert!(
        colours.len() > 20,
        "the screenshot is nearly blank: {} colours",
        colours.len()
    );
    // The header band is dark (#24292f), the page below it white.
    let [r, g, b] = pixel(4, 4);
    assert!(r < 60 && g < 60 && b < 60, "header pixel {:?}", (r, g, b));
    assert_eq!(pixel(WIDTH - 4, 400), [255, 255, 255]);
}

/// Settings that redact what varies between runs: elapsed times, whether
/// the build was cached, the cache directory; and the inline style sheet,
/// which says how the page looks rather than what it reports.
fn redacted(cache: &Path) -> insta::Settings {
    let mut s = insta::Settings::clone_current();
    s.set_snapshot_path("snapshots");
    s.set_prepend_module_to_snapshot(false);
    let cache = cache.to_str().unwrap();
    s.add_filter(&regex_literal(cache), "[CACHE]");
    s.add_filter(r#"<span class="time">\d+\.\d+ s</span>"#, "[ELAPSED]");
    s.add_filter("; build cached", "");
    s.add_filter(r"(?s)<style>.*</style>", "<style>[CSS]</style>");
    s
}

fn regex_literal(text: &str) -> String {
    text.chars()
        .flat_map(|c| {
            let escape = "\\.+*?()|[]{}^$#&-~".contains(c);
            escape.then_some('\\').into_iter().chain([c])
        })
        .collect()
}

/// The `<figure class="timeline">` pictures of a page, each as its text.
fn pictures(dom: &str) -> Vec<&str> {
    dom.split("<figure class=\"timeline\">")
        .skip(1)
        .map(|rest| &rest[..rest.find("</figure>").expect("a figure ends")])
        .collect()
}

/// What every report must be: one self-contained page that fetches
/// nothing and runs no script.
fn assert_self_contained(html: &str) {
    for bad in [
        "<script", "<link", "<img", "<iframe", "@import", "src=", "url(http",
    ] {
        assert!(!html.contains(bad), "the page contains {bad}");
    }
    let outside = html.replace("xmlns=\"http://www.w3.org/2000/svg\"", "");
    assert!(!outside.contains("http:") && !outside.contains("https:"));
}

#[test]
fn examples_report_in_chromium() {
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    let page = dir.path().join("report.html");
    let (code, stdout) = fib_html(&cache, &["examples", "--confirm"], &page);
    assert_eq!(
        code, 1,
        "one example deadlocks, one has a barrier to delete"
    );
    assert_eq!(stdout, "", "with -o nothing goes to standard output");
    let html = std::fs::read_to_string(&page).unwrap();
    assert_self_contained(&html);

    let dom = rendered_dom(&page);
    // The summary rows: each program, its outcome, ranks and buffering.
    let rows: Vec<&str> = dom.split("<tr>").collect();
    let row = |program: &str| {
        *rows
            .iter()
            .find(|r| r.contains(&format!("<code>{program}</code>")))
            .unwrap_or_else(|| panic!("no row for {program}"))
    };
    let race = row("examples/any_source_race.c");
    assert!(
        race.contains("<span class=\"badge bad\">deadlock</span>"),
        "{race}"
    );
    assert!(race.contains("<td class=\"num\">3</td><td>buffered</td><td class=\"num\">2</td>"));
    let barriers = row("examples/barriers.c");
    assert!(
        barriers.contains("<span class=\"badge ok\">ok</span>"),
        "{barriers}"
    );
    // One run stands for every order of rank 0's rows of wildcard receives.
    assert!(
        barriers.contains("<td class=\"num\">1</td>"),
        "1 interleaving: {barriers}"
    );
    // The barrier groups: one relevant, one irrelevant, both confirmed by
    // removal and valid for every input.
    let relevant = row("examples/barriers.c:32");
    assert!(relevant.contains("relevant: keep"), "{relevant}");
    assert!(relevant.contains("rank 1's <code>MPI_Send</code> (line 21)"));
    let irrelevant = row("examples/barriers.c:34");
    assert!(irrelevant.contains("irrelevant: can be deleted"));
    for r in [relevant, irrelevant] {
        assert_eq!(
            r.matches("<span class=\"yes\">yes</span>").count(),
            2,
            "{r}"
        );
    }
    // Every finding, with its code, and the source of its location.
    for code in ["FIB001", "FIB015", "FIB014"] {
        assert!(
            dom.contains(&format!("<span class=\"code\">{code}</span>")),
            "{code}"
        );
    }
    assert!(dom.contains("deadlock: rank 0 in MPI_Recv"));
    assert!(dom.contains(
        "<mark class=\"primary\">MPI_Recv(&amp;value, 1, MPI_INT, 2, HELLO, MPI_COMM_WORLD, MPI_STATUS_IGNORE)</mark>"
    ));
    assert!(dom.contains("wildcard receive (rank 0)"));
    assert!(dom.contains("help:</b> it orders the output at line 36 of examples/barriers.c (printf) after every rank got here: keep it if that output needs it; otherwise delete line 34 of examples/barriers.c"));
    // The replay commands.
    assert!(dom.contains("fib check examples/any_source_race.c -n 3 --replay 1.0"));
    assert!(dom.contains("fib check examples/barriers.c -n 3 --replay 0.0.0.0"));
    // A picture for the deadlock and one for the relevant barrier, each
    // with one lane per rank.
    let pics = pictures(&dom);
    assert_eq!(pics.len(), 2);
    for p in &pics {
        assert_eq!(p.matches("<svg").count(), 1);
        assert_eq!(p.matches("<g class=\"lane\">").count(), 3);
        for rank in 0..3 {
            assert!(p.contains(&format!(">rank {rank}</text>")));
        }
    }
    assert_eq!(pics[0].matches("<g class=\"mark blocked\">").count(), 1);
    assert!(pics[0].contains("MPI_Recv ←2</text>"));
    assert_eq!(pics[0].matches("<g class=\"mark waiting\">").count(), 2);
    assert_eq!(pics[1].matches("<g class=\"mark w-recv\">").count(), 1);
    assert_eq!(pics[1].matches("<g class=\"mark w-barrier\">").count(), 3);
    assert_eq!(pics[1].matches("<g class=\"mark w-send\">").count(), 1);
    assert_eq!(pics[1].matches("class=\"rival\"").count(), 1);
    assert_eq!(pics[1].matches("<rect class=\"coll hl\"").count(), 1);
    assert!(pics[1].contains("<polyline class=\"path\""));

    check_screenshot(&page, &dir.path().join("report.png"));
    redacted(&cache).bind(|| insta::assert_snapshot!("examples", html));
}

#[test]
fn deadlock_report_in_chromium() {
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    let page = dir.path().join("deadlock.html");
    let (code, _) = fib_html(&cache, &["examples/any_source_race.c"], &page);
    assert_eq!(code, 1);
    let html = std::fs::read_to_string(&page).unwrap();
    assert_self_contained(&html);
    let dom = rendered_dom(&page);
    assert!(dom.contains("<title>fib report: examples/any_source_race.c</title>"));
    assert!(dom.contains("No program has a barrier group."));
    assert!(
        dom.contains("<span class=\"badge error\">error</span> <span class=\"code\">FIB001</span>")
    );
    assert!(dom.contains("rank 1: waiting in MPI_Finalize at examples/any_source_race.c:54:5"));
    assert!(dom.contains(
        "<code class=\"cmd\">fib check examples/any_source_race.c -n 3 --replay 1.0</code>"
    ));
    let pics = pictures(&dom);
    assert_eq!(pics.len(), 1);
    let p = pics[0];
    assert_eq!(p.matches("<g class=\"lane\">").count(), 3);
    // Rank 0's calls in order: two wildcard receives, then the receive
    // from rank 2 it is blocked in; two messages joined them.
    let calls: Vec<&str> = p
        .split("<text class=\"call\"")
        .skip(1)
        .map(|t| &t[t.find('>').unwrap() + 1..t.find("</text>").unwrap()])
        .collect();
    assert_eq!(
        calls,
        [
            "MPI_Recv ←any",
            "MPI_Recv ←any",
            "MPI_Recv ←2",
            "MPI_Send →0",
            "MPI_Send →0",
            "MPI_Finalize",
            "MPI_Send →0",
            "MPI_Finalize"
        ]
    );
    assert_eq!(p.matches("<line class=\"msg wild\"").count(), 2);
    assert!(p.contains(
        "<title>rank 0, call 3: MPI_Recv from 2 at examples/any_source_race.c:45 (blocked)</title>"
    ));
    check_screenshot(&page, &dir.path().join("deadlock.png"));
    redacted(&cache).bind(|| insta::assert_snapshot!("deadlock", html));
}

#[test]
fn output_file_takes_any_format_and_keeps_the_exit_code() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("report.json");
    let o = Command::new(env!("CARGO_BIN_EXE_fib"))
        .args([
            "check",
            "examples/any_source_race.c",
            "--format",
            "json",
            "-o",
        ])
        .arg(&out)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("FIB_CACHE_DIR", dir.path().join("cache"))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert!(o.stdout.is_empty());
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert_eq!(json["programs"][0]["outcome"], "deadlock");
    assert_eq!(json["programs"][0]["findings"][0]["replay"], "1.0");
    // The human format in a file has no colour codes.
    let text = dir.path().join("report.txt");
    let o = Command::new(env!("CARGO_BIN_EXE_fib"))
        .args(["check", "examples/any_source_race.c", "--output"])
        .arg(&text)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("FIB_CACHE_DIR", dir.path().join("cache"))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    let text = std::fs::read_to_string(&text).unwrap();
    assert!(text.contains("error[FIB001]: deadlock: rank 0 in MPI_Recv"));
    assert!(!text.contains('\x1b'));
    // A file that cannot be written is fib's failure.
    let o = Command::new(env!("CARGO_BIN_EXE_fib"))
        .args([
            "check",
            "examples/any_source_race.c",
            "-o",
            "/nonexistent/dir/r.html",
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("FIB_CACHE_DIR", dir.path().join("cache"))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr)
        .contains("writing the report to /nonexistent/dir/r.html"));
}

#[test]
fn memory_barrier_report_in_chromium() {
    // A barrier relevant through window memory: the table says which two
    // accesses it keeps from racing, and the witness's picture marks both
    // (the load as a mark of its own), the unlock that completes the put,
    // both ranks' barrier calls and the path between them.
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    let page = dir.path().join("memory.html");
    let (code, _) = fib_html(
        &cache,
        &["tests/barriers/mem_lock_put_read.c", "-n", "2"],
        &page,
    );
    assert_eq!(code, 0);
    let html = std::fs::read_to_string(&page).unwrap();
    assert_self_contained(&html);
    let dom = rendered_dom(&page);
    assert!(dom.contains(
        "keeps from racing rank 1's <code>MPI_Put</code> (line 24) and rank 0's <code>load</code> (line 29) on rank 0's window"
    ), "{dom}");
    let pics = pictures(&dom);
    assert_eq!(pics.len(), 1);
    let p = pics[0];
    assert_eq!(p.matches("<g class=\"lane\">").count(), 2);
    for title in [
        "<title>rank 1, call 3: MPI_Put at tests/barriers/mem_lock_put_read.c:24 (racing access)</title>",
        "<title>rank 0, before call 3: load at tests/barriers/mem_lock_put_read.c:29 (racing access)</title>",
        "<title>rank 1, call 4: MPI_Win_unlock at tests/barriers/mem_lock_put_read.c:25 (completes it)</title>",
        "<title>rank 0, call 2: MPI_Barrier at tests/barriers/mem_lock_put_read.c:27 (the barrier)</title>",
        "<title>rank 1, call 5: MPI_Barrier at tests/barriers/mem_lock_put_read.c:27 (the barrier)</title>",
    ] {
        assert!(p.contains(title), "{title}\n{p}");
    }
    assert_eq!(p.matches("<polyline class=\"path\"").count(), 1);
    check_screenshot(&page, &dir.path().join("memory.png"));
    redacted(&cache).bind(|| insta::assert_snapshot!("memory_barrier", html));
}
