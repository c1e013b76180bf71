//! Process groups fib started, killed whole with every descendant (MPICH's
//! proxy and ranks start sessions of their own): when their work ends, and
//! all at once when the user interrupts fib.

use std::sync::Mutex;

use super::interrupted;

/// The process groups of the runs in progress (several with `--jobs`), and
/// of a build command, for the interrupt handler.
static GROUPS: Mutex<Vec<i32>> = Mutex::new(Vec::new());

/// Adds `group` to the ones an interrupt kills; `false` (and the group is
/// not added) when the user already interrupted fib: the caller kills it.
pub(crate) fn watch_group(group: i32) -> bool {
    let mut groups = GROUPS.lock().unwrap_or_else(|e| e.into_inner());
    if interrupted() {
        return false;
    }
    groups.push(group);
    true
}

/// The groups led by a launcher of the user's (`srun`, a hostfile's
/// `mpiexec`): its ranks may be on other hosts, out of reach of a signal
/// from here, and a job step or allocation only the launcher can end.
/// [`kill_tree`] asks such a leader to end first.
static GENTLE: Mutex<Vec<i32>> = Mutex::new(Vec::new());

/// Marks `group`'s leader as a launcher to ask first ([`GENTLE`]).
pub(crate) fn ask_first(group: i32) {
    GENTLE.lock().unwrap_or_else(|e| e.into_inner()).push(group);
}

/// The environment variable fib sets, to a value of the run's own, in the
/// environment of a run's launcher: every process the run starts on this
/// machine inherits it, wherever it goes in the process tree. Hydra's
/// proxy for a host starts in a session of its own and, when `mpiexec`
/// dies first (a proxy that cannot start its ranks), hangs below init,
/// neither in the run's group nor below its leader: the tag still finds it.
pub(crate) const TAG: &str = "FIB_RUN_TAG";

/// The tag ([`TAG`]) of each watched group that has one.
static TAGS: Mutex<Vec<(i32, String)>> = Mutex::new(Vec::new());

/// Notes that every process of `group`'s run has `tag` as its [`TAG`]:
/// [`kill_tree`] and [`kill_stragglers`] kill those too.
pub(crate) fn tag_group(group: i32, tag: String) {
    TAGS.lock()
        .unwrap_or_else(|e| e.into_inner())
        .push((group, tag));
}

/// The tag of `group`, if it has one.
fn tag_of(group: i32) -> Option<String> {
    TAGS.lock()
        .unwrap_or_else(|e| e.into_inner())
        .iter()
        .find(|(g, _)| *g == group)
        .map(|(_, t)| t.clone())
}

/// The processes whose environment has `TAG=tag`, read from `/proc` (a
/// process of another user's is not readable, and not ours).
fn tagged(tag: &str) -> Vec<i32> {
    let entry = format!("{TAG}={tag}");
    let mut found = Vec::new();
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return found;
    };
    for e in dir.flatten() {
        let Some(pid) = e.file_name().to_str().and_then(|s| s.parse::<i32>().ok()) else {
            continue;
        };
        if let Ok(environ) = std::fs::read(format!("/proc/{pid}/environ")) {
            if environ
                .split(|&b| b == 0)
                .any(|var| var == entry.as_bytes())
            {
                found.push(pid);
            }
        }
    }
    found
}

/// Removes `group` from the ones an interrupt kills.
pub(crate) fn forget_group(group: i32) {
    TAGS.lock()
        .unwrap_or_else(|e| e.into_inner())
        .retain(|(g, _)| *g != group);
    GROUPS
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .retain(|&g| g != group);
    GENTLE
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .retain(|&g| g != group);
}

/// How long a launcher of the user's has to end its job once asked
/// (`SIGTERM`): `srun` cancels its step and gives the allocation back,
/// hydra's `mpiexec` kills its proxies on every host.
const ASK_GRACE: std::time::Duration = std::time::Duration::from_secs(5);

/// Asks the launcher `leader` to end (`SIGTERM`) and waits, at most
/// [`ASK_GRACE`], until it has.
fn ask_to_end(leader: i32) {
    // SAFETY: signalling the leader of a group fib started.
    unsafe { libc::kill(leader, libc::SIGTERM) };
    let until = std::time::Instant::now() + ASK_GRACE;
    while running(leader) && std::time::Instant::now() < until {
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
}

/// Kills every group watched (the interrupt handler's part).
pub(super) fn kill_all() {
    let groups = std::mem::take(&mut *GROUPS.lock().unwrap_or_else(|e| e.into_inner()));
    for g in groups {
        kill_tree(g);
    }
}

/// A process group fib started besides a run (the user's build command of
/// `fib check --build`): an interrupt kills it as it kills a run, and
/// dropping the guard kills whatever of it is left.
pub(crate) struct Group(i32);

impl Group {
    /// Tracks the group `leader` leads (started with its own process
    /// group); `None` when the user already interrupted fib (the group is
    /// then killed here).
    pub(crate) fn track(leader: i32) -> Option<Group> {
        if !watch_group(leader) {
            kill_tree(leader);
            return None;
        }
        Some(Group(leader))
    }
}

impl Drop for Group {
    fn drop(&mut self) {
        forget_group(self.0);
        kill_tree(self.0);
    }
}

/// Kills the process group `root` leads and every descendant of `root`
/// (MPICH's proxy and ranks start sessions of their own), then waits, for a
/// bounded time, until none of them runs any more.
///
/// The tree is stopped before it is killed: a process that is still
/// starting others (the proxy launching the ranks when the user hits
/// Ctrl-C) would otherwise fork between the look at `/proc` and its own
/// kill, and its new children, orphaned, could no longer be found. A
/// process stops once it leaves the call it is in (a fork under way
/// completes first, and its child shows in `/proc` by then) and forks no
/// more: once every process found has stopped and a look finds nothing
/// new, every process of the tree is known.
pub(crate) fn kill_tree(root: i32) {
    let _killing = KILLING.lock().unwrap_or_else(|e| e.into_inner());
    let gentle = GENTLE
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .contains(&root);
    if gentle {
        ask_to_end(root);
    }
    let tag = tag_of(root);
    let mut victims = vec![root];
    // SAFETY: signalling the group we created and the processes found
    // below it.
    unsafe {
        libc::kill(root, libc::SIGSTOP);
        libc::kill(-root, libc::SIGSTOP);
    }
    let until = std::time::Instant::now() + std::time::Duration::from_secs(1);
    for _ in 0..FREEZE_ROUNDS {
        // Until every process found has stopped (or died).
        while victims
            .iter()
            .any(|&p| state(p).is_some_and(|s| !"TtZX".contains(s)))
            && std::time::Instant::now() < until
        {
            std::thread::sleep(std::time::Duration::from_micros(200));
        }
        let mut new: Vec<i32> = descendants(root);
        if let Some(t) = &tag {
            new.extend(tagged(t));
        }
        new.sort_unstable();
        new.dedup();
        new.retain(|p| !victims.contains(p));
        if new.is_empty() {
            break;
        }
        for &pid in &new {
            // SAFETY: as above.
            unsafe { libc::kill(pid, libc::SIGSTOP) };
        }
        victims.extend(new);
    }
    // SAFETY: as above; SIGKILL ends stopped processes too.
    unsafe {
        for &pid in &victims {
            libc::kill(pid, libc::SIGKILL);
        }
        libc::kill(-root, libc::SIGKILL);
    }
    let until = std::time::Instant::now() + std::time::Duration::from_secs(5);
    while victims.iter().any(|&p| running(p)) && std::time::Instant::now() < until {
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
}

/// The most looks at `/proc` [`kill_tree`] takes to stop a tree: each
/// finds the children the processes stopped by the last one had started
/// before they stopped, so a tree needs as many as it has levels.
const FREEZE_ROUNDS: usize = 32;

/// Held while [`kill_tree`] kills and waits: a run that ends because its
/// launcher died under the interrupt handler's kill waits for that kill to
/// finish before it goes on (and perhaps lets fib exit).
static KILLING: Mutex<()> = Mutex::new(());

/// Kills what is left of the group `group` once its leader has been reaped
/// (stragglers only), and every process with the group's tag ([`TAG`]),
/// after any kill under way.
pub(crate) fn kill_stragglers(group: i32) {
    let _killing = KILLING.lock().unwrap_or_else(|e| e.into_inner());
    // SAFETY: signalling the group we created; stragglers only.
    unsafe {
        libc::kill(-group, libc::SIGKILL);
    }
    let Some(tag) = tag_of(group) else {
        return;
    };
    let left = tagged(&tag);
    for &pid in &left {
        // SAFETY: a process of the run's own (its environment has the
        // run's tag), left when its launcher ended.
        unsafe { libc::kill(pid, libc::SIGKILL) };
    }
    let until = std::time::Instant::now() + std::time::Duration::from_secs(5);
    while left.iter().any(|&p| running(p)) && std::time::Instant::now() < until {
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
}

/// Whether `pid` exists and is not a zombie.
fn running(pid: i32) -> bool {
    state(pid).is_some_and(|s| s != 'Z' && s != 'X')
}

/// The state of `pid` as `/proc` shows it (`R`, `S`, `T` for stopped,
/// `Z` for a zombie, ...), or `None` once it is gone.
fn state(pid: i32) -> Option<char> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let rest = &stat[stat.rfind(')')? + 1..];
    rest.split_whitespace().next()?.chars().next()
}

/// Every process below `root` in the process tree, and every process of
/// the group `root` leads with those below it, read from `/proc`: once the
/// leader is reaped, what it started in the background (a build's
/// `sleep &`) hangs below init, found by its group only.
fn descendants(root: i32) -> Vec<i32> {
    let mut parent_of = Vec::new();
    let mut grouped = Vec::new();
    if let Ok(dir) = std::fs::read_dir("/proc") {
        for e in dir.flatten() {
            let Some(pid) = e.file_name().to_str().and_then(|s| s.parse::<i32>().ok()) else {
                continue;
            };
            let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
                continue;
            };
            // The parent pid is the second field after the command's
            // closing parenthesis.
            let Some(rest) = stat.rfind(')').map(|i| &stat[i + 1..]) else {
                continue;
            };
            let mut fields = rest.split_whitespace().skip(1);
            let mut next = || fields.next().and_then(|s| s.parse::<i32>().ok());
            if let (Some(ppid), Some(pgrp)) = (next(), next()) {
                parent_of.push((pid, ppid));
                if pgrp == root && pid != root {
                    grouped.push(pid);
                }
            }
        }
    }
    let mut found = vec![root];
    found.extend(grouped);
    let mut i = 0;
    while i < found.len() {
        let p = found[i];
        for &(c, pp) in &parent_of {
            if pp == p && !found.contains(&c) {
                found.push(c);
            }
        }
        i += 1;
    }
    found.remove(0);
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::Command;

    /// Processes whose command line contains `marker`.
    fn with_marker(marker: &str) -> Vec<i32> {
        let mut found = Vec::new();
        for e in std::fs::read_dir("/proc").unwrap().flatten() {
            let Some(pid) = e.file_name().to_str().and_then(|s| s.parse::<i32>().ok()) else {
                continue;
            };
            if let Ok(cmd) = std::fs::read(format!("/proc/{pid}/cmdline")) {
                if String::from_utf8_lossy(&cmd).contains(marker) && running(pid) {
                    found.push(pid);
                }
            }
        }
        found
    }

    /// Processes with `marker` in their command line that have become
    /// `sleep` (a forked shell's copy that is still on its way to the
    /// exec shows the shell's command line, or for a moment none).
    fn sleeps_with(marker: &str) -> Vec<i32> {
        with_marker(marker)
            .into_iter()
            .filter(|pid| {
                std::fs::read_to_string(format!("/proc/{pid}/comm"))
                    .is_ok_and(|c| c.trim_end() == "sleep")
            })
            .collect()
    }

    /// A process in a session of its own (as MPICH's proxy is) that keeps
    /// starting children while the tree is killed: none of them survives.
    #[test]
    fn a_tree_that_keeps_forking_leaves_no_process() {
        use std::os::unix::process::CommandExt;
        // `sleep` adds up its arguments: this one makes the sleeps' command
        // lines this test's own.
        let marker = format!("0.{}7", std::process::id());
        let script = format!(
            "setsid sh -c 'for i in $(seq 400); do sleep 1000 {marker} & done; wait' & wait"
        );
        let mut child = Command::new("sh")
            .args(["-c", &script])
            .process_group(0)
            .spawn()
            .unwrap();
        let until = std::time::Instant::now() + std::time::Duration::from_secs(20);
        while with_marker(&marker).len() < 20 {
            assert!(std::time::Instant::now() < until, "the tree never grew");
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        kill_tree(child.id() as i32);
        let _ = child.wait();
        let left = with_marker(&marker);
        for &p in &left {
            // SAFETY: cleaning up what the test started.
            unsafe { libc::kill(p, libc::SIGKILL) };
        }
        assert_eq!(left, Vec::<i32>::new());
    }

    /// A background process of a group whose leader has already been
    /// reaped (a build's `sleep &`): it hangs below init, and the kill
    /// finds it, and waits until it is gone.
    #[test]
    fn a_reaped_leaders_background_process_is_gone_when_the_kill_returns() {
        use std::os::unix::process::CommandExt;
        let marker = format!("0.{}3", std::process::id());
        let mut child = Command::new("sh")
            .args(["-c", &format!("sleep 1000 {marker} & exit 0")])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .process_group(0)
            .spawn()
            .unwrap();
        let until = std::time::Instant::now() + std::time::Duration::from_secs(20);
        while sleeps_with(&marker).is_empty() {
            assert!(std::time::Instant::now() < until, "the sleep never started");
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        let _ = child.wait();
        // Found by its group, though its parent is init now.
        let found = descendants(child.id() as i32);
        let started = sleeps_with(&marker);
        kill_tree(child.id() as i32);
        let left = with_marker(&marker);
        for &p in &left {
            // SAFETY: cleaning up what the test started.
            unsafe { libc::kill(p, libc::SIGKILL) };
        }
        assert_eq!(found, started);
        assert_eq!(left, Vec::<i32>::new());
    }
}
