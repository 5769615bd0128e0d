//! Rank 0's records waiting for the replay, in bounded memory.
//!
//! Records arrive in whatever order the ranks walk (work stealing hands
//! out the biggest subtrees first), and the replay takes them in the
//! sequential walk's order; when it waits for one directory (a big one,
//! still being read), every other rank's records pile up — in the worst
//! case the listing of the whole tree. So records are held in memory up to
//! a budget ([`DEFAULT_BUDGET`], `RINGUTILS_MPI_MEMORY`), and past it
//! written to an unnamed temporary file (`O_TMPFILE` in `$TMPDIR` or
//! `/tmp`, gone with the process however it ends) and read back when the
//! replay asks. What stays in memory for a spilled record is its key (the
//! directory's path) and where it is: tens of bytes per directory, not
//! ~150 per entry.
//!
//! Why not flow control (credits per rank): the record the replay needs
//! next may sit behind records it doesn't need yet, on a rank that is out
//! of credits, so the sender would have to hold them instead (the same
//! memory, on another rank) or the job would deadlock. A file never
//! refuses a record, so the one the replay needs can always arrive.
//!
//! The file's space is reused once everything in it has been read back
//! (the usual case between bursts) and at each new operand.

use std::collections::HashMap;
use std::fs::File;
use std::io;
use std::os::unix::fs::{FileExt, OpenOptionsExt};
use std::path::PathBuf;

/// Bytes of records held in memory before they go to the file.
pub(crate) const DEFAULT_BUDGET: usize = 16 << 20;

/// A record's key: its kind and its directory's path.
pub(crate) type Key = (u8, Vec<u8>);

enum Slot {
    /// The record, and where its body starts (past the header).
    Mem(Vec<u8>, usize),
    /// In the file: offset, length, where its body starts.
    File(u64, usize, usize),
}

/// Why a record could not be written to or read back from the file.
#[derive(Debug)]
pub(crate) struct SpillError {
    pub dir: PathBuf,
    pub err: io::Error,
}

impl std::fmt::Display for SpillError {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        let why = match self.err.raw_os_error() {
            Some(e) => ringio::Errno(e).message(),
            None => self.err.to_string(),
        };
        write!(f, "a temporary file in {}: {why}", self.dir.display())
    }
}

pub(crate) struct Spill {
    budget: usize,
    /// Bytes of the records in memory.
    held: usize,
    recs: HashMap<Key, Slot>,
    dir: PathBuf,
    /// Created at the first record past the budget.
    file: Option<File>,
    /// Where the next spilled record goes.
    end: u64,
    /// Records in the file not read back yet.
    in_file: usize,
    /// The file could not be made or written: records stay in memory
    /// (over budget) rather than being lost.
    unusable: bool,
}

impl Spill {
    pub fn new(budget: usize, dir: PathBuf) -> Spill {
        Spill {
            budget,
            held: 0,
            recs: HashMap::new(),
            dir,
            file: None,
            end: 0,
            in_file: 0,
            unusable: false,
        }
    }

    /// Keeps `rec` (body from `at`) under `key`, replacing any record held
    /// under it. Err, once, when the file fails: the record is kept in
    /// memory, as all later ones are.
    pub fn put(&mut self, key: Key, rec: Vec<u8>, at: usize) -> Result<(), SpillError> {
        self.remove(&key);
        if self.held + rec.len() <= self.budget || self.unusable {
            self.held += rec.len();
            self.recs.insert(key, Slot::Mem(rec, at));
            return Ok(());
        }
        match self.write(&rec) {
            Ok(off) => {
                self.in_file += 1;
                self.recs.insert(key, Slot::File(off, rec.len(), at));
                Ok(())
            }
            Err(err) => {
                self.unusable = true;
                self.held += rec.len();
                self.recs.insert(key, Slot::Mem(rec, at));
                Err(SpillError { dir: self.dir.clone(), err })
            }
        }
    }

    /// Takes the record held under `key`, reading it back from the file
    /// if it went there.
    pub fn take(&mut self, key: &Key) -> Option<Result<(Vec<u8>, usize), SpillError>> {
        let slot = self.recs.remove(key)?;
        Some(match slot {
            Slot::Mem(rec, at) => {
                self.held -= rec.len();
                Ok((rec, at))
            }
            Slot::File(off, len, at) => {
                let r = self.read(off, len).map(|rec| (rec, at));
                self.in_file -= 1;
                self.reuse();
                r.map_err(|err| SpillError { dir: self.dir.clone(), err })
            }
        })
    }

    /// Drops everything held (a new operand).
    pub fn clear(&mut self) {
        self.recs = HashMap::new();
        self.held = 0;
        self.in_file = 0;
        self.reuse();
    }

    /// Bytes of records in memory.
    #[cfg(test)]
    pub fn held(&self) -> usize {
        self.held
    }

    /// Records in the file.
    #[cfg(test)]
    pub fn spilled(&self) -> usize {
        self.in_file
    }

    fn remove(&mut self, key: &Key) {
        match self.recs.remove(key) {
            Some(Slot::Mem(rec, _)) => self.held -= rec.len(),
            Some(Slot::File(..)) => {
                self.in_file -= 1;
                self.reuse();
            }
            None => {}
        }
    }

    /// With nothing left in the file, its space is given back and the next
    /// record goes to its start.
    fn reuse(&mut self) {
        if self.in_file == 0 && self.end > 0 {
            if let Some(f) = &self.file {
                // Best effort: a file not shrunk is only overwritten.
                let _ = f.set_len(0);
            }
            self.end = 0;
        }
    }

    fn write(&mut self, rec: &[u8]) -> io::Result<u64> {
        if self.file.is_none() {
            self.file = Some(tmpfile(&self.dir)?);
        }
        let f = self.file.as_ref().expect("made above");
        let off = self.end;
        f.write_all_at(rec, off)?;
        self.end += rec.len() as u64;
        Ok(off)
    }

    fn read(&self, off: u64, len: usize) -> io::Result<Vec<u8>> {
        let f = self.file.as_ref().ok_or_else(|| io::Error::from_raw_os_error(libc::EBADF))?;
        let mut rec = vec![0; len];
        f.read_exact_at(&mut rec, off)?;
        Ok(rec)
    }
}

/// Where the file goes: `$TMPDIR`, else `/tmp`.
pub(crate) fn temp_dir() -> PathBuf {
    match std::env::var_os("TMPDIR") {
        Some(d) if !d.is_empty() => PathBuf::from(d),
        _ => PathBuf::from("/tmp"),
    }
}

/// An unnamed file in `dir` (`O_TMPFILE`: nothing to clean up however the
/// job ends); where the file system can't, a named one unlinked at once.
fn tmpfile(dir: &std::path::Path) -> io::Result<File> {
    let unnamed = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .custom_flags(libc::O_TMPFILE | libc::O_CLOEXEC)
        .mode(0o600)
        .open(dir);
    match unnamed {
        Ok(f) => Ok(f),
        Err(e) if matches!(e.raw_os_error(), Some(libc::EOPNOTSUPP | libc::EISDIR)) => {
            let name = dir.join(format!(".ringutils-records-{}", std::process::id()));
            let f = std::fs::OpenOptions::new()
                .read(true)
                .write(true)
                .create_new(true)
                .mode(0o600)
                .open(&name)?;
            std::fs::remove_file(&name)?;
            Ok(f)
        }
        Err(e) => Err(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(i: usize) -> Vec<u8> {
        // A header of 5 bytes, then a body that tells records apart.
        let mut r = vec![i as u8; 5];
        r.extend(vec![(i * 7) as u8; 10 + i % 13]);
        r
    }

    fn key(i: usize) -> Key {
        (1, format!("d/{i}").into_bytes())
    }

    /// Past the budget records go to the file and come back intact, in
    /// any order; memory held stays within the budget.
    #[test]
    fn spills_past_the_budget_and_reads_back() {
        let budget = 100;
        let mut s = Spill::new(budget, temp_dir());
        for i in 0..200 {
            s.put(key(i), rec(i), 5).unwrap();
            assert!(s.held() <= budget);
        }
        assert!(s.spilled() > 150, "{} spilled", s.spilled());
        // Taken in another order than put, some twice.
        for i in (0..200).rev().step_by(2).chain((0..200).step_by(2)) {
            let (r, at) = s.take(&key(i)).unwrap().unwrap();
            assert_eq!((r, at), (rec(i), 5), "record {i}");
            assert!(s.take(&key(i)).is_none());
        }
        assert_eq!((s.held(), s.spilled()), (0, 0));
        // Emptied, the file is reused from its start.
        assert_eq!(s.end, 0);
        for i in 0..50 {
            s.put(key(i), rec(i), 5).unwrap();
        }
        assert!(s.spilled() > 0);
        s.clear();
        assert_eq!((s.held(), s.spilled(), s.end), (0, 0, 0));
        assert!(s.take(&key(3)).is_none());
    }

    /// A record put again under its key replaces the old one.
    #[test]
    fn a_key_put_again_replaces() {
        let mut s = Spill::new(20, temp_dir());
        s.put(key(1), rec(1), 5).unwrap();
        s.put(key(2), rec(2), 5).unwrap();
        s.put(key(2), rec(3), 5).unwrap();
        s.put(key(1), rec(4), 5).unwrap();
        assert_eq!(s.take(&key(2)).unwrap().unwrap().0, rec(3));
        assert_eq!(s.take(&key(1)).unwrap().unwrap().0, rec(4));
        assert_eq!((s.held(), s.spilled()), (0, 0));
    }

    /// Without a usable directory the records stay in memory: the bound
    /// is lost (said once), never a record.
    #[test]
    fn an_unusable_directory_keeps_records_in_memory() {
        let mut s = Spill::new(10, PathBuf::from("/nonexistent/ringutils-spill"));
        let mut errors = 0;
        for i in 0..20 {
            errors += s.put(key(i), rec(i), 5).is_err() as usize;
        }
        assert_eq!(errors, 1);
        for i in 0..20 {
            assert_eq!(s.take(&key(i)).unwrap().unwrap().0, rec(i));
        }
    }
}
