//! Listing directories: the one layer between the engine and the tools
//! that read directories (ls, and find and du through `walk`).
//!
//! A listing is "read this directory: its names, and the stats the caller
//! asks for, in engine batches, within the descriptor budget". What a
//! tool does with an entry (ls's `Entry` and what it prints; find's tests;
//! du's sums) stays in the tool, behind a per-entry hook.
//!
//! [`reader::Reader`] lists one directory at a time on a walker thread's
//! engine, the stats then pushed as one batch (or made inline, straight
//! into the listing's slots, where the engine runs syscalls inline and the
//! walker's threads are the parallelism): find and du, via `walk`. ls's
//! pipelined listing is the engine's own request (`ringio::listdir`),
//! since every one of its choices (windows, batch sizes, who reads, how
//! each entry's questions are put) follows from the executor.
//!
//! And what the tools share besides: the open of a directory and the stat
//! flags ([`open`]), the descriptor budget ([`budget`]), and reading
//! directories ahead on other threads ([`read_ahead`]).

#![forbid(unsafe_code)]

pub mod budget;
pub mod open;
pub mod read_ahead;
pub mod reader;
#[cfg(test)]
mod testing;

/// Which stat an entry needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StatNeed {
    /// d_type is enough (a walker still lstat's entries whose d_type is
    /// unknown, since it must know which are directories).
    None,
    /// `lstat`: the entry itself.
    Lstat,
    /// `stat`: follow a symlink; a dangling link is then reported with its
    /// own lstat and `followed == false`, as find -L does.
    Follow,
}
