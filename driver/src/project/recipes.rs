//! What a build made, read from the record of its compiler wrappers
//! ([`super::wrap`]), without running anything but reading an archive: every
//! executable the build linked, made of the sources of its objects
//! (archives made by `ar` followed, a member taken when the program needs a
//! symbol it defines, as a linker does), each with its recorded flags, and
//! the libraries and link flags of its link.

use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};

use super::discover;
use super::wrap::Invocation;

/// One source as the build compiled it.
#[derive(Clone, Debug, PartialEq)]
pub struct Unit {
    /// The source, absolute.
    pub source: PathBuf,
    /// The directory the compiler ran in.
    pub cwd: PathBuf,
    /// The compiler's command line, the compiler first.
    pub args: Vec<String>,
}

/// An executable as the build linked it.
#[derive(Clone, Debug, PartialEq)]
pub struct Recipe {
    /// The executable, absolute.
    pub exe: PathBuf,
    /// The sources of the objects (and the sources) the link names: all
    /// linked.
    pub direct: Vec<Unit>,
    /// The sources of the members of the archives it names, in link
    /// order: each linked when the program needs a symbol it defines.
    pub members: Vec<Unit>,
    /// Libraries, library directories, link flags and inputs fib did not
    /// see built (a shared library, a system archive), in order.
    pub link_flags: Vec<String>,
    /// Whether the link was made by a C++ compiler driver.
    pub cxx: bool,
}

/// Flags whose value may be the next word.
const VALUED: &[&str] = &[
    "-o",
    "-MF",
    "-MT",
    "-MQ",
    "-I",
    "-D",
    "-U",
    "-include",
    "-imacros",
    "-isystem",
    "-iquote",
    "-idirafter",
    "-x",
    "-Xlinker",
    "-Xpreprocessor",
    "-Xassembler",
    "-L",
    "-l",
    "-u",
    "-T",
    "-e",
    "-z",
    "--param",
    "-aux-info",
];

/// A compiler's command line, word by word: a flag with its separate value,
/// or an input file.
#[derive(Debug, PartialEq)]
enum Word {
    Flag(String, Option<String>),
    Input(String),
}

fn words(args: &[String]) -> Vec<Word> {
    let mut out = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        if a.starts_with('-') && a.len() > 1 {
            let value = VALUED.contains(&a.as_str()).then(|| it.next().cloned());
            out.push(Word::Flag(a.clone(), value.flatten()));
        } else {
            out.push(Word::Input(a.clone()));
        }
    }
    out
}

/// `path` against `cwd`, with `.` and `name/..` taken out.
fn absolute(cwd: &Path, path: &str) -> PathBuf {
    let mut out = PathBuf::new();
    for c in cwd.join(path).components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            c => out.push(c),
        }
    }
    out
}

fn ext(p: &Path) -> &str {
    p.extension().and_then(|e| e.to_str()).unwrap_or("")
}

/// The member names of a (GNU or BSD-style short-name) `ar` archive;
/// `None` for anything else, a thin archive included.
fn archive_members(data: &[u8]) -> Option<Vec<String>> {
    let mut at = 8;
    if data.get(..at)? != b"!<arch>\n" {
        return None;
    }
    let mut long: &[u8] = &[];
    let mut out = Vec::new();
    while at + 60 <= data.len() {
        let header = &data[at..at + 60];
        let name = String::from_utf8_lossy(&header[..16])
            .trim_end()
            .to_string();
        let size: usize = String::from_utf8_lossy(&header[48..58])
            .trim()
            .parse()
            .ok()?;
        let body = data.get(at + 60..at + 60 + size)?;
        if name == "//" {
            long = body;
        } else if let Some(off) = name.strip_prefix('/').and_then(|o| o.parse::<usize>().ok()) {
            let rest = long.get(off..)?;
            let end = rest.iter().position(|&b| b == b'\n').unwrap_or(rest.len());
            out.push(
                String::from_utf8_lossy(&rest[..end])
                    .trim_end_matches('/')
                    .to_string(),
            );
        } else if name != "/" && name != "/SYM64/" {
            out.push(name.trim_end_matches('/').to_string());
        }
        at += 60 + size + size % 2;
    }
    Some(out)
}

/// What the record says the build made, as it goes.
#[derive(Default)]
struct Made {
    /// Each object and the source it was compiled from.
    objects: BTreeMap<PathBuf, Unit>,
    /// Each archive and its members (objects), in order.
    archives: BTreeMap<PathBuf, Vec<PathBuf>>,
    /// Each executable, as last linked.
    links: Vec<Recipe>,
}

/// The executables of a build's record, each with its sources, in the
/// order the build first linked them (a relink replaces the recipe).
pub fn recipes(record: &[Invocation]) -> Vec<Recipe> {
    let mut made = Made::default();
    for inv in record {
        if inv.name == "ar" {
            made.archive(inv);
            continue;
        }
        let w = words(&inv.args);
        let has = |f: &str| w.iter().any(|x| matches!(x, Word::Flag(n, _) if n == f));
        if has("-c") {
            made.compile(inv, &w);
        } else if ["-E", "-S", "-M", "-MM", "-fsyntax-only", "-shared"]
            .iter()
            .all(|f| !has(f))
            && w.iter().any(|x| matches!(x, Word::Input(_)))
        {
            let r = made.link(inv, &w);
            match made.links.iter().position(|l| l.exe == r.exe) {
                Some(i) => made.links[i] = r,
                None => made.links.push(r),
            }
        }
    }
    made.links
}

impl Made {
    fn compile(&mut self, inv: &Invocation, w: &[Word]) {
        let output = w.iter().find_map(|x| match x {
            Word::Flag(f, Some(v)) if f == "-o" => Some(v.clone()),
            _ => None,
        });
        let sources: Vec<&String> = w
            .iter()
            .filter_map(|x| match x {
                Word::Input(p) if discover::is_source(Path::new(p)) => Some(p),
                _ => None,
            })
            .collect();
        for s in &sources {
            let obj = match (&output, sources.len()) {
                (Some(o), 1) => absolute(&inv.cwd, o),
                _ => inv.cwd.join(
                    Path::new(s.as_str())
                        .with_extension("o")
                        .file_name()
                        .unwrap_or_default(),
                ),
            };
            self.objects.insert(obj, self.unit(inv, s));
        }
    }

    fn unit(&self, inv: &Invocation, source: &str) -> Unit {
        Unit {
            source: absolute(&inv.cwd, source),
            cwd: inv.cwd.clone(),
            args: std::iter::once(inv.name.clone())
                .chain(inv.args.iter().cloned())
                .collect(),
        }
    }

    /// `ar`: members added (`r`, `q`: a member of the same path replaced)
    /// or deleted (`d`).
    fn archive(&mut self, inv: &Invocation) {
        let mut it = inv.args.iter().filter(|a| !a.starts_with("--"));
        let Some(ops) = it.next() else { return };
        let ops = ops.trim_start_matches('-');
        let Some(archive) = it.next() else { return };
        let archive = absolute(&inv.cwd, archive);
        let files: Vec<PathBuf> = it.map(|m| absolute(&inv.cwd, m)).collect();
        let members = self.archives.entry(archive).or_default();
        if ops.contains('d') {
            members.retain(|m| !files.iter().any(|f| f.file_name() == m.file_name()));
        } else if ops.contains('r') || ops.contains('q') {
            for f in files {
                match members.iter().position(|m| *m == f) {
                    Some(i) => members[i] = f,
                    None => members.push(f),
                }
            }
        }
    }

    /// The members of an archive no recorded `ar` made (the build called
    /// `ar` by a full path), read from the file: each the object of that
    /// name the build compiled, when there is exactly one. `None` when it
    /// is not an archive or a member is no such object (it is then linked
    /// as it is).
    fn read_archive(&self, path: &Path) -> Option<Vec<Unit>> {
        if ext(path) != "a" {
            return None;
        }
        let names = archive_members(&std::fs::read(path).ok()?)?;
        names
            .iter()
            .map(|n| {
                let mut found = self
                    .objects
                    .iter()
                    .filter(|(o, _)| o.file_name() == Some(n.as_ref()));
                match (found.next(), found.next()) {
                    (Some((_, u)), None) => Some(u.clone()),
                    _ => None,
                }
            })
            .collect()
    }

    /// The archive `-lNAME` names, if the build made it.
    fn library(&self, name: &str, dirs: &[PathBuf]) -> Option<PathBuf> {
        dirs.iter()
            .map(|d| d.join(format!("lib{name}.a")))
            .find(|a| self.archives.contains_key(a))
    }

    /// Adds the members of the archive `a` (made by the build) to `r`;
    /// the archive itself stays a link input when some member was not
    /// compiled by the build.
    fn take_archive(&self, a: &Path, r: &mut Recipe) {
        let mut unknown = false;
        for m in &self.archives[a] {
            match self.objects.get(m) {
                Some(u) => r.members.push(u.clone()),
                None => unknown = true,
            }
        }
        if unknown {
            r.link_flags.push(a.display().to_string());
        }
    }

    fn link(&self, inv: &Invocation, w: &[Word]) -> Recipe {
        let n = inv.name.to_ascii_lowercase();
        let mut r = Recipe {
            exe: inv.cwd.join("a.out"),
            direct: Vec::new(),
            members: Vec::new(),
            link_flags: Vec::new(),
            cxx: n.contains("++") || n.contains("cxx") || inv.name == "mpiCC",
        };
        let mut dirs = Vec::new();
        for x in w {
            if let Word::Flag(f, v) = x {
                if let Some(d) = f
                    .strip_prefix("-L")
                    .filter(|d| !d.is_empty())
                    .or(v.as_deref().filter(|_| f == "-L"))
                {
                    dirs.push(absolute(&inv.cwd, d));
                }
            }
        }
        for x in w {
            match x {
                Word::Input(p) => {
                    let abs = absolute(&inv.cwd, p);
                    if discover::is_source(Path::new(p)) {
                        r.direct.push(self.unit(inv, p));
                    } else if let Some(u) = self.objects.get(&abs) {
                        r.direct.push(u.clone());
                    } else if self.archives.contains_key(&abs) {
                        self.take_archive(&abs, &mut r);
                    } else if let Some(members) = self.read_archive(&abs) {
                        r.members.extend(members);
                    } else {
                        r.link_flags.push(abs.display().to_string());
                    }
                }
                Word::Flag(f, v) => self.link_flag(inv, f, v.as_deref(), &dirs, &mut r),
            }
        }
        r
    }

    fn link_flag(
        &self,
        inv: &Invocation,
        f: &str,
        v: Option<&str>,
        dirs: &[PathBuf],
        r: &mut Recipe,
    ) {
        if f == "-o" {
            if let Some(v) = v {
                r.exe = absolute(&inv.cwd, v);
            }
            return;
        }
        if let Some(lib) = f
            .strip_prefix("-l")
            .filter(|l| !l.is_empty())
            .or(v.filter(|_| f == "-l"))
        {
            match self.library(lib, dirs) {
                Some(a) => self.take_archive(&a, r),
                None => r.link_flags.push(format!("-l{lib}")),
            }
            return;
        }
        if let Some(d) = f
            .strip_prefix("-L")
            .filter(|d| !d.is_empty())
            .or(v.filter(|_| f == "-L"))
        {
            r.link_flags
                .push(format!("-L{}", absolute(&inv.cwd, d).display()));
            return;
        }
        let kept = f.starts_with("-Wl,")
            || f.starts_with("-fopenmp")
            || f.starts_with("-fsanitize")
            || f.starts_with("-static")
            || f.starts_with("-fuse-ld=")
            || ["-pthread", "-rdynamic", "-pie", "-no-pie"].contains(&f);
        if kept {
            r.link_flags.push(f.to_string());
        } else if ["-Xlinker", "-u", "-T", "-z"].contains(&f) {
            r.link_flags.push(f.to_string());
            r.link_flags.extend(v.map(str::to_string));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inv(name: &str, cwd: &str, args: &str) -> Invocation {
        Invocation {
            name: name.into(),
            cwd: cwd.into(),
            args: args.split_whitespace().map(String::from).collect(),
        }
    }

    #[test]
    fn a_link_follows_its_objects_and_archives_to_their_sources() {
        let record = [
            inv("mpicc", "/p", "-Ilib -DX -c app/main.c -o app/main.o"),
            inv("mpicc", "/p/lib", "-O2 -c a.c b.c"),
            inv("ar", "/p/lib", "rcs libx.a a.o b.o"),
            inv(
                "mpicc",
                "/p",
                "-o app/prog app/main.o -Llib -lx -lm -Wl,--as-needed",
            ),
            // A configure probe's query and a shared library: no programs.
            inv("mpicc", "/p", "--version"),
            inv("mpicc", "/p", "-shared -o libs.so lib/a.o"),
        ];
        let r = recipes(&record);
        assert_eq!(r.len(), 1);
        let r = &r[0];
        assert_eq!(r.exe, Path::new("/p/app/prog"));
        let src = |us: &[Unit]| us.iter().map(|u| u.source.clone()).collect::<Vec<_>>();
        assert_eq!(src(&r.direct), [PathBuf::from("/p/app/main.c")]);
        assert_eq!(
            src(&r.members),
            [PathBuf::from("/p/lib/a.c"), PathBuf::from("/p/lib/b.c")]
        );
        assert_eq!(r.direct[0].args[0], "mpicc");
        assert!(r.direct[0].args.contains(&"-DX".to_string()));
        assert_eq!(r.link_flags, ["-L/p/lib", "-lm", "-Wl,--as-needed"]);
        assert!(!r.cxx);
    }

    #[test]
    fn a_one_step_build_and_a_cxx_driver() {
        let record = [inv(
            "mpicxx",
            "/p",
            "-std=c++17 main.cpp util.c -o ../bin/tool -lstdc++fs",
        )];
        let r = &recipes(&record)[0];
        assert_eq!(r.exe, Path::new("/bin/tool"));
        assert_eq!(r.direct.len(), 2);
        assert!(r.cxx);
        assert_eq!(r.link_flags, ["-lstdc++fs"]);
    }

    #[test]
    fn archive_members_are_read_with_long_names() {
        let member = |name: &str, body: &[u8]| {
            let mut h = format!(
                "{name:<16}{:<12}{:<6}{:<6}{:<8}{:<10}`\n",
                0,
                0,
                0,
                644,
                body.len()
            )
            .into_bytes();
            h.extend(body);
            if body.len() % 2 == 1 {
                h.push(b'\n');
            }
            h
        };
        let mut a = b"!<arch>\n".to_vec();
        a.extend(member("/", b"symtab"));
        a.extend(member("//", b"a_very_long_member_name.c.o/\n"));
        a.extend(member("short.o/", b"x"));
        a.extend(member("/0", b"yy"));
        assert_eq!(
            archive_members(&a).unwrap(),
            ["short.o", "a_very_long_member_name.c.o"]
        );
        assert_eq!(archive_members(b"!<thin>\n"), None);
    }
}
