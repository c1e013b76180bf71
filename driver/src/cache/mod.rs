//! fib's cache: the directory where it keeps what it computed once and can
//! reuse (parses, built programs, the interposition libraries it built),
//! and the content hash that names the entries. The directory is the one
//! [`crate::settings::cache_dir`] reads from the environment; each user of
//! the cache keeps its entries in a subdirectory of its own.

use std::path::PathBuf;

/// The subdirectory `name` of fib's cache (`parses`, `builds`,
/// `interpose`).
pub(crate) fn dir(name: &str) -> PathBuf {
    crate::settings::cache_dir().join(name)
}

/// A stable 128-bit content hash (XXH3), for cache keys: it hashes the
/// sources and every header a kept parse read at each check, so it must be
/// fast (a byte-at-a-time FNV took 6 ms of a check).
pub(crate) struct Hash(twox_hash::xxhash3_128::Hasher);

impl Hash {
    pub(crate) fn new() -> Hash {
        Hash(twox_hash::xxhash3_128::Hasher::new())
    }
    /// Adds `bytes` and their length, so that the pieces' boundaries count.
    pub(crate) fn add(&mut self, bytes: &[u8]) {
        self.0.write(bytes);
        self.0.write(&(bytes.len() as u64).to_le_bytes());
    }
    pub(crate) fn hex(&self) -> String {
        format!("{:032x}", self.0.finish_128())
    }
}
