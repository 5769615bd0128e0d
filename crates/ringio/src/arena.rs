//! A byte arena for the paths handed to the kernel.
//!
//! Paths are copied here once, NUL-terminated. Each chunk counts the
//! operations still holding a path in it ([`PathPtr`] is that hold: made by
//! [`Arena::push`], released when the operation is dropped, after its
//! syscall or CQE), and a chunk is refilled only once its count is zero,
//! so a path's address is stable while the kernel or a worker thread may
//! read it.
//!
//! Counting per chunk, rather than resetting only when nothing at all is
//! in flight, bounds the arena by the paths in flight: a listing keeps its
//! pipeline full from the first getdents to the last, so it never drained,
//! and `lsr -l` of a million entries through the ring held every entry's
//! two paths (~45 MB) until the end.

use std::ffi::CStr;
use std::ptr::NonNull;
use std::sync::atomic::{AtomicUsize, Ordering};

const CHUNK: usize = 64 * 1024;
/// Idle chunks kept for reuse when the engine goes idle.
const KEEP: usize = 4;

struct Chunk {
    buf: Vec<u8>,
    /// Operations holding a path in `buf`. Boxed: its address is in every
    /// PathPtr, and stays put when `chunks` grows.
    live: Box<AtomicUsize>,
}

impl Chunk {
    fn new(cap: usize) -> Chunk {
        Chunk { buf: Vec::with_capacity(cap), live: Box::new(AtomicUsize::new(0)) }
    }

    /// No operation holds a path here (Acquire: their reads of the bytes
    /// happened before the releases that brought the count to zero).
    fn idle(&self) -> bool {
        self.live.load(Ordering::Acquire) == 0
    }
}

pub(crate) struct Arena {
    chunks: Vec<Chunk>,
    /// Index of the chunk being filled.
    cur: usize,
}

/// A NUL-terminated path inside an [`Arena`] chunk, holding that chunk
/// until dropped. Not `Copy`: a second operation on the same path (a ring
/// operation redone inline) takes its own hold with `clone`.
pub(crate) struct PathPtr {
    ptr: *const libc::c_char,
    live: NonNull<AtomicUsize>,
}

// SAFETY: the pointed-to bytes are immutable after being written and are
// not reused while this hold exists (the chunk's count includes it); the
// count is an atomic in a box the arena frees only at a count of zero, so
// the drop on a worker thread is sound.
unsafe impl Send for PathPtr {}

impl PathPtr {
    pub(crate) fn as_ptr(&self) -> *const libc::c_char {
        self.ptr
    }

    /// # Safety
    /// The returned reference must not outlive `self`.
    pub(crate) unsafe fn as_cstr<'a>(&self) -> &'a CStr {
        // SAFETY: the hold keeps the bytes alive and unchanged, and they are
        // NUL-terminated; the caller keeps `self` alive while using them.
        unsafe { CStr::from_ptr(self.ptr) }
    }
}

impl Clone for PathPtr {
    fn clone(&self) -> PathPtr {
        // SAFETY: the chunk's counter lives while any hold on it does.
        unsafe { self.live.as_ref() }.fetch_add(1, Ordering::Relaxed);
        PathPtr { ptr: self.ptr, live: self.live }
    }
}

impl Drop for PathPtr {
    fn drop(&mut self) {
        // SAFETY: as in clone. Release: this operation's reads of the path
        // come before the chunk can be seen idle and refilled.
        unsafe { self.live.as_ref() }.fetch_sub(1, Ordering::Release);
    }
}

impl Arena {
    pub(crate) fn new() -> Arena {
        Arena { chunks: vec![Chunk::new(CHUNK)], cur: 0 }
    }

    /// Copies `path` in and appends a NUL. A path containing a NUL byte is cut
    /// there, as the kernel would read it.
    pub(crate) fn push(&mut self, path: &[u8]) -> PathPtr {
        let path = match path.iter().position(|&b| b == 0) {
            Some(i) => &path[..i],
            None => path,
        };
        let need = path.len() + 1;
        let c = &self.chunks[self.cur];
        if c.buf.capacity() - c.buf.len() < need {
            // Another chunk nothing holds any more, else a new one.
            let cur = self.cur;
            let free = self
                .chunks
                .iter()
                .enumerate()
                .position(|(j, c)| j != cur && c.idle() && c.buf.capacity() >= need);
            self.cur = match free {
                Some(j) => {
                    self.chunks[j].buf.clear();
                    j
                }
                None => {
                    self.chunks.push(Chunk::new(CHUNK.max(need)));
                    self.chunks.len() - 1
                }
            };
        }
        let chunk = &mut self.chunks[self.cur];
        let start = chunk.buf.len();
        // The capacity check above guarantees these pushes never reallocate, so
        // pointers into earlier parts of this chunk stay valid.
        chunk.buf.extend_from_slice(path);
        chunk.buf.push(0);
        // Relaxed: holds are only taken on this thread, which alone refills.
        chunk.live.fetch_add(1, Ordering::Relaxed);
        PathPtr { ptr: chunk.buf[start..].as_ptr().cast(), live: NonNull::from(&*chunk.live) }
    }

    /// Called when nothing is in flight: starts over in an idle chunk and
    /// lets all but a few idle chunks go. A chunk still held (an operation
    /// a broken ring left with the kernel) is kept as it is.
    pub(crate) fn reset(&mut self) {
        let mut kept = 0;
        self.chunks.retain_mut(|c| {
            if !c.idle() {
                return true;
            }
            c.buf.clear();
            kept += 1;
            kept <= KEEP
        });
        self.cur = match self.chunks.iter().position(Chunk::idle) {
            Some(i) => i,
            None => {
                self.chunks.push(Chunk::new(CHUNK));
                self.chunks.len() - 1
            }
        };
    }

    /// Chunks allocated (tests: the arena stays bounded).
    #[cfg(test)]
    fn chunks(&self) -> usize {
        self.chunks.len()
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
        // (the holds of `ptrs` were dropped in the loop)
        // SAFETY: as above.
        assert_eq!(unsafe { pb.as_cstr() }.to_bytes().len(), 200_000);
        drop(pb);
        a.reset();
        let p = a.push(b"again");
        // SAFETY: fresh pointer after reset.
        assert_eq!(unsafe { p.as_cstr() }.to_bytes(), b"again");
    }

    #[test]
    fn chunks_are_refilled_once_released_while_others_are_held() {
        let mut a = Arena::new();
        // A pipeline: a window of paths held, older ones released, far
        // more bytes in all than the window; nothing is ever idle overall.
        let mut window = std::collections::VecDeque::new();
        for i in 0..200_000 {
            window.push_back((i, a.push(format!("/some/dir/entry-{i:08}").as_bytes())));
            if window.len() > 4096 {
                let (j, p) = window.pop_front().unwrap();
                // SAFETY: p is held while the bytes are compared.
                let got = unsafe { p.as_cstr() }.to_bytes();
                assert_eq!(got, format!("/some/dir/entry-{j:08}").as_bytes());
            }
        }
        // 4096 paths of 25 bytes are ~2 chunks; 200,000 would be ~80.
        assert!(a.chunks() <= 4, "{} chunks", a.chunks());
        for (j, p) in &window {
            // SAFETY: p is held while the bytes are compared.
            let got = unsafe { p.as_cstr() }.to_bytes();
            assert_eq!(got, format!("/some/dir/entry-{j:08}").as_bytes());
        }
        // A held path survives a reset; its chunk is kept.
        let keep = window.pop_back().unwrap().1;
        // SAFETY: keep is held.
        let before = unsafe { keep.as_cstr() }.to_bytes().to_vec();
        drop(window);
        a.reset();
        for _ in 0..10_000 {
            drop(a.push(b"xxxxxxxxxxxxxxxxxxxxxxxx"));
        }
        // SAFETY: keep is held.
        assert_eq!(unsafe { keep.as_cstr() }.to_bytes(), &before[..]);
    }
}
