//! Where a rank's MPI call was made ([`Site`]), and the two `u32` words that
//! carry a site on the wire and in the interposition library's atomics. A
//! site names a line of a file, an id of the program's site table, or an
//! offset in a loaded module (whose id [`module_id`] derives from its path);
//! this module depends on no other module of the crate.

/// The file word of a [`Site`] on the wire whose line word is a site-table
/// id (see [`Site::to_raw`]).
const RAW_TABLE: u32 = u32::MAX;
/// The bit of a file word that says the word names a module and the line
/// word is an offset in it ([`Site::Addr`]).
const RAW_ADDR: u32 = 1 << 31;
/// Module ids ([`module_id`]) have this bit set and [`RAW_ADDR`] clear, so
/// they never meet the small file ids ranks count up from 1.
const MODULE_BIT: u32 = 1 << 30;

/// Where a rank's MPI call was made, as the rank knows it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Site {
    /// No instrumented call has named its site (a call from an
    /// uninstrumented library, or before the first one).
    #[default]
    Unknown,
    /// A line of a file previously named by [`Up::File`](crate::Up::File):
    /// calls produced by the program's own macros report the macro use's
    /// `__FILE__` and `__LINE__`.
    Line { file: u32, line: u32 },
    /// An id of the program's site table: instrumented copies of the
    /// sources name every direct call this way.
    Table(u32),
    /// A call no instrumented site named, by its return address: `offset` bytes
    /// from the load base of the module (executable or shared library)
    /// previously named by [`Up::File`](crate::Up::File) under id `module` (see
    /// [`module_id`]).
    Addr { module: u32, offset: u32 },
}

/// The id under which a rank names the module at `path` in
/// [`Site::Addr`]: derived from the path alone, so that every rank names a
/// module the same way whatever order it meets modules in (ranks share one
/// table of names per run), and never equal to a file id.
pub fn module_id(path: &str) -> u32 {
    // FNV-1a, 32 bits.
    let mut h: u32 = 0x811c_9dc5;
    for b in path.bytes() {
        h ^= u32::from(b);
        h = h.wrapping_mul(0x0100_0193);
    }
    MODULE_BIT | (h & (MODULE_BIT - 1))
}

impl Site {
    /// The two words that carry the site on the wire (and in the
    /// interposition library's atomics): file id 0 is unknown, file id
    /// `u32::MAX` says the line word is a site-table id, a file word with
    /// its top bit set names a module (the rest of it is the module id) and
    /// the line word is the offset. A module id outside those
    /// [`module_id`] gives is carried as unknown.
    pub fn to_raw(self) -> (u32, u32) {
        match self {
            Site::Unknown => (0, 0),
            Site::Table(id) => (RAW_TABLE, id),
            Site::Addr { module, offset } if module & RAW_ADDR == 0 && module & MODULE_BIT != 0 => {
                (RAW_ADDR | module, offset)
            }
            Site::Addr { .. } => (0, 0),
            Site::Line { file, line } => (file, line),
        }
    }

    /// The site two wire words carry (the inverse of [`Site::to_raw`]).
    pub fn from_raw(file: u32, line: u32) -> Site {
        match file {
            0 => Site::Unknown,
            RAW_TABLE => Site::Table(line),
            file if file & RAW_ADDR != 0 => Site::Addr {
                module: file & !RAW_ADDR,
                offset: line,
            },
            file => Site::Line { file, line },
        }
    }

    /// Whether the rank named where the call was made.
    pub fn is_known(self) -> bool {
        self != Site::Unknown
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_of_site_round_trips_through_its_wire_words() {
        for site in [
            Site::Unknown,
            Site::Table(0),
            Site::Table(17),
            Site::Line { file: 1, line: 9 },
            Site::Addr {
                module: module_id("/tmp/prog"),
                offset: 0x1234,
            },
        ] {
            let (file, line) = site.to_raw();
            assert_eq!(Site::from_raw(file, line), site);
        }
        assert_eq!(Site::from_raw(0, 12), Site::Unknown);
        // A module id module_id cannot give does not pass for another site.
        let bad = Site::Addr {
            module: 7,
            offset: 1,
        };
        assert_eq!(bad.to_raw(), (0, 0));
    }

    #[test]
    fn module_ids_depend_on_the_path_only_and_are_no_file_ids() {
        let a = module_id("/tmp/prog");
        assert_eq!(a, module_id("/tmp/prog"));
        assert_ne!(a, module_id("/tmp/libwork.so"));
        for p in ["", "a", "/usr/lib/x86_64-linux-gnu/libc.so.6"] {
            let id = module_id(p);
            assert!(id >= MODULE_BIT && id & RAW_ADDR == 0, "{p}: {id:#x}");
        }
    }
}
