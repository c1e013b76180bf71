//! How fib shows a path of a checked tree: lexically normalised, and
//! relative to the current directory without a detour out of it and back
//! in. A tree found above the current directory (its compile database is
//! in a parent) is reached as `..`; its file `one-sided/put.c`, seen from
//! `one-sided`, is `put.c`, and a sibling's `../pt2pt/x.c`. Only names are
//! compared: the current directory is taken as the kernel resolves `..`
//! from it, symlinks resolved, and nothing here reads the file system.

use std::path::{Component, Path, PathBuf};

/// `path` with `.` and `name/..` taken out (`.` when nothing is left);
/// leading `..` stay, and `/..` is `/`.
pub fn lexical(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => match out.components().next_back() {
                Some(Component::Normal(_)) => {
                    out.pop();
                }
                Some(Component::RootDir | Component::Prefix(_)) => {}
                _ => out.push(".."),
            },
            c => out.push(c),
        }
    }
    if out.as_os_str().is_empty() {
        out.push(".");
    }
    out
}

/// How `rel`, a path relative to a tree's root, is shown when the root is
/// shown as `root` (as the user reached it: relative to the current
/// directory `cwd`, or absolute) and the current directory is `cwd`
/// (absolute, symlinks resolved; empty when unknown): `root/rel`
/// lexically normalised, each `..` that leaves `cwd` only to come back
/// into it taken out with the name that comes back. An absolute `root`
/// stays absolute.
pub fn shown_path(root: &Path, rel: &Path, cwd: &Path) -> PathBuf {
    let path = lexical(&root.join(rel));
    if path.is_absolute() {
        return path;
    }
    let comps: Vec<Component> = path.components().collect();
    let ups = comps
        .iter()
        .take_while(|c| matches!(c, Component::ParentDir))
        .count();
    let here: Vec<&std::ffi::OsStr> = cwd
        .components()
        .filter_map(|c| match c {
            Component::Normal(n) => Some(n),
            _ => None,
        })
        .collect();
    // The directories left by the `..`s, outermost first (those past `/`
    // leave nothing).
    let ups = ups.min(here.len());
    let left = &here[here.len() - ups..];
    let rest: Vec<&Component> = comps
        .iter()
        .skip_while(|c| matches!(c, Component::ParentDir))
        .collect();
    let back = left
        .iter()
        .zip(&rest)
        .take_while(|(l, r)| matches!(r, Component::Normal(n) if n == *l))
        .count();
    if back == 0 {
        return path;
    }
    let mut out = PathBuf::new();
    for _ in back..ups {
        out.push("..");
    }
    for c in &rest[back..] {
        out.push(c);
    }
    if out.as_os_str().is_empty() {
        out.push(".");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shown(root: &str, rel: &str, cwd: &str) -> String {
        shown_path(Path::new(root), Path::new(rel), Path::new(cwd))
            .display()
            .to_string()
    }

    #[test]
    fn a_detour_through_the_current_directory_is_taken_out() {
        let cwd = "/w/osu/mpi/one-sided";
        assert_eq!(
            shown("..", "one-sided/osu_put_latency.c", cwd),
            "osu_put_latency.c"
        );
        assert_eq!(
            shown("..", "pt2pt/osu_latency.c", cwd),
            "../pt2pt/osu_latency.c"
        );
        assert_eq!(shown("..", "util/osu_util.c", cwd), "../util/osu_util.c");
        // Two levels up, back one.
        assert_eq!(shown("../..", "mpi/pt2pt/x.c", cwd), "../pt2pt/x.c");
        assert_eq!(shown("../..", "mpi/one-sided/deep/x.c", cwd), "deep/x.c");
        assert_eq!(shown("../..", "c/x.c", cwd), "../../c/x.c");
        // A root named through the current directory's own name.
        assert_eq!(shown("../one-sided", "x.c", cwd), "x.c");
        assert_eq!(shown("../one-sided/..", "pt2pt/x.c", cwd), "../pt2pt/x.c");
    }

    #[test]
    fn other_paths_are_only_normalised() {
        let cwd = "/w/osu";
        assert_eq!(shown("", "a.c", cwd), "a.c");
        assert_eq!(shown(".", "src/./a.c", cwd), "src/a.c");
        assert_eq!(shown("mpi/one-sided", "x.c", cwd), "mpi/one-sided/x.c");
        assert_eq!(shown("mpi/one-sided/..", "pt2pt/x.c", cwd), "mpi/pt2pt/x.c");
        assert_eq!(shown("/abs/tree/../t", "x.c", cwd), "/abs/t/x.c");
        // The current directory unknown: the path as normalised.
        assert_eq!(shown("..", "osu/x.c", ""), "../osu/x.c");
        // More `..` than the current directory has names: `/..` is `/`.
        assert_eq!(shown("../../../..", "w/x.c", "/w"), "x.c");
    }

    #[test]
    fn lexical_keeps_leading_parents_and_the_root() {
        assert_eq!(lexical(Path::new("a/../../b/./c")), Path::new("../b/c"));
        assert_eq!(lexical(Path::new("/../a")), Path::new("/a"));
        assert_eq!(lexical(Path::new("a/..")), Path::new("."));
        assert_eq!(lexical(Path::new("./..")), Path::new(".."));
        assert_eq!(lexical(Path::new("../p/app/..")), Path::new("../p"));
        assert_eq!(lexical(Path::new("/t/p/a/b/../..")), Path::new("/t/p"));
    }
}
