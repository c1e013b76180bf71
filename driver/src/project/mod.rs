//! The user's project, as fib reads it before anything runs: from the paths
//! the user names to the programs to check ([`discover`]), each made of its
//! sources with their compile flags (from the tree's compile [`database`],
//! else the MPI compiler's) and analysed with libclang ([`parses`] keeps
//! those results in the cache); from a build command to the programs the
//! build links (`--build`: [`buildcmd`] runs it with the compiler wrappers
//! of [`wrap`], and [`recipes`] reads their record); and the settings the
//! project keeps in `fib.toml` ([`config`]). Nothing here builds or runs a
//! program: that is [`crate::run`]'s.

pub(crate) mod buildcmd;
pub(crate) mod config;
mod database;
mod discover;
mod parses;
mod recipes;
pub(crate) mod wrap;

pub(crate) use database::enclosing;
pub(crate) use database::{find as find_database, Database};
pub(crate) use discover::{discover_in, is_cxx, is_header, is_source, split_file, Program, Tree};
pub(crate) use parses::analyze as analyze_units;
