//! A byte arena for the paths handed to the kernel.
//!
//! Paths are copied here once, NUL-terminated, and the pointer stays valid
//! until the engine resets the arena, which it only does when no operation is
//! in flight. Chunks are never moved or freed before that, so a path's address
//! is stable while the kernel or a worker thread may read it.

use std::ffi::CStr;

const CHUNK: usize = 64 * 1024;

pub(crate) struct Arena {
    chunks: Vec<Vec<u8>>,
    /// Index of the chunk being filled; chunks after it are kept for reuse.
    cur: usize,
}

/// A NUL-terminated path inside an [`Arena`] chunk.
#[derive(Clone, Copy)]
pub(crate) struct PathPtr(*const libc::c_char);

// SAFETY: the pointed-to bytes are immutable after being written and outlive
// every operation that holds a PathPtr (the arena is only reset once nothing is
// in flight), so sharing the pointer with worker threads is sound.
unsafe impl Send for PathPtr {}

impl PathPtr {
    pub(crate) fn as_ptr(self) -> *const libc::c_char {
        self.0
    }

    /// # Safety
    /// The arena that produced this pointer must not have been reset since.
    pub(crate) unsafe fn as_cstr<'a>(self) -> &'a CStr {
        // SAFETY: per the caller's contract the bytes are alive and NUL-terminated.
        unsafe { CStr::from_ptr(self.0) }
    }
}

impl Arena {
    pub(crate) fn new() -> Arena {
        Arena { chunks: vec![Vec::with_capacity(CHUNK)], cur: 0 }
    }

    /// Copies `path` in and appends a NUL. A path containing a NUL byte is cut
    /// there, as the kernel would read it.
    pub(crate) fn push(&mut self, path: &[u8]) -> PathPtr {
        let path = match path.iter().position(|&b| b == 0) {
            Some(i) => &path[..i],
            None => path,
        };
        let need = path.len() + 1;
        if self.chunks[self.cur].capacity() - self.chunks[self.cur].len() < need {
            self.cur += 1;
            if self.cur == self.chunks.len() {
                self.chunks.push(Vec::with_capacity(CHUNK.max(need)));
            } else if self.chunks[self.cur].capacity() < need {
                // Never reallocate a chunk in place: replace it (it is empty and unused).
                self.chunks[self.cur] = Vec::with_capacity(CHUNK.max(need));
            }
        }
        let chunk = &mut self.chunks[self.cur];
        let start = chunk.len();
        // The capacity check above guarantees these pushes never reallocate, so
        // pointers into earlier parts of this chunk stay valid.
        chunk.extend_from_slice(path);
        chunk.push(0);
        PathPtr(chunk[start..].as_ptr().cast())
    }

    /// Forgets every path. Only called when nothing in flight refers to them.
    pub(crate) fn reset(&mut self) {
        for c in &mut self.chunks[..=self.cur] {
            c.clear();
        }
        self.cur = 0;
        // Keep at most a few chunks around so one huge batch doesn't pin memory.
        self.chunks.truncate(4);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_stay_put_across_chunks() {
        let mut a = Arena::new();
        let mut ptrs = Vec::new();
        for i in 0..20_000 {
            ptrs.push((i, a.push(format!("file-{i:07}.txt").as_bytes())));
        }
        let big = vec![b'x'; 200_000];
        let pb = a.push(&big);
        for (i, p) in ptrs {
            // SAFETY: the arena has not been reset.
            assert_eq!(unsafe { p.as_cstr() }.to_bytes(), format!("file-{i:07}.txt").as_bytes());
        }
        // SAFETY: as above.
        assert_eq!(unsafe { pb.as_cstr() }.to_bytes().len(), 200_000);
        a.reset();
        let p = a.push(b"again");
        // SAFETY: fresh pointer after reset.
        assert_eq!(unsafe { p.as_cstr() }.to_bytes(), b"again");
    }
}
