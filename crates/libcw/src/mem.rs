//! Memory: tuning of the C allocator for short-lived tools that build one
//! large listing, and a global allocator that turns an allocation failure
//! into GNU's `prog: memory exhausted` and a clean exit instead of Rust's
//! abort (SIGABRT, a core dump, and no useful message under `ulimit -v`).

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::OnceLock;

/// Whether the address space is limited (`ulimit -v`): then every
/// reserved-but-unused mapping counts against the limit, so the allocator
/// must not reserve generously. Asked once per process.
pub fn address_space_limited() -> bool {
    static LIMITED: OnceLock<bool> = OnceLock::new();
    *LIMITED.get_or_init(|| {
        // SAFETY: rlimit is a plain C struct of integers; all-zero is valid.
        let mut rl: libc::rlimit = unsafe { std::mem::zeroed() };
        // SAFETY: rl is a valid, writable rlimit for getrlimit to fill.
        unsafe {
            libc::getrlimit(libc::RLIMIT_AS, &mut rl) == 0 && rl.rlim_cur != libc::RLIM_INFINITY
        }
    })
}

/// Asks malloc to grow the heap in large steps (untouched heap pages cost
/// nothing, so a generous pad is cheap), and to put blocks over 4 MiB in
/// their own mappings: a listing's entry array then grows by mremap, which
/// moves no bytes and never holds the old and the new array at once (on
/// the heap, each doubling copied, and the peak was 1.5x the array: lsr -1
/// of a million entries 371 -> 251 MB, the CPU time unchanged). (glibc
/// still served such blocks from a padded heap top; [`ExitOnOom`] now maps
/// them itself, see [`OWN_MAPPING`].) Under an
/// address-space limit the defaults stay, since glibc asks for the pad
/// again when it falls back from brk to mmap, and the pad alone could
/// exceed the limit.
///
/// All threads share one arena: lsr's helper threads allocate little, and
/// arenas of their own made the peak vary with thread timing (lsr -l of a
/// million entries: 238-246 MB with per-thread arenas, 230-236 MB with one,
/// and no slower; GNU ls 248 MB).
pub fn tune_for_batch() {
    if address_space_limited() {
        return;
    }
    // SAFETY: mallopt only adjusts allocator parameters; called before the
    // program's threads exist.
    unsafe {
        libc::mallopt(libc::M_ARENA_MAX, 1);
        libc::mallopt(libc::M_TOP_PAD, 64 << 20);
        libc::mallopt(libc::M_MMAP_THRESHOLD, 4 << 20);
        libc::mallopt(libc::M_TRIM_THRESHOLD, 512 << 20);
    }
}

/// Adapts malloc to resource limits; call once at start, before threads.
///
/// glibc gives each thread that allocates its own arena, reserving 64 MiB
/// (128 MiB while aligning) of address space each: harmless normally, but
/// under `ulimit -v` two walker threads would spend most of a tight limit
/// on reservations. With a limit, all threads share the main arena.
pub fn adapt_to_limits() {
    if address_space_limited() {
        // SAFETY: mallopt only adjusts allocator parameters; called before
        // the program's threads exist.
        unsafe {
            libc::mallopt(libc::M_ARENA_MAX, 1);
        }
    }
}

static OOM_PREFIX: OnceLock<Vec<u8>> = OnceLock::new();
static OOM_STATUS: AtomicI32 = AtomicI32::new(1);

/// Sets the program name of the out-of-memory message (`name: memory
/// exhausted`); the first call wins. The text itself is translated only
/// when memory runs out, as GNU's xalloc_die does: looking it up at start
/// cost every run a search for the catalog (three failed opens in C.UTF-8).
pub fn set_oom_name(name: &str) {
    let mut v = name.as_bytes().to_vec();
    v.extend_from_slice(b": ");
    let _ = OOM_PREFIX.set(v);
}

/// Sets the exit status after an allocation failure (GNU's exit_failure:
/// 2 for ls, 1 for the others).
pub fn set_oom_status(status: i32) {
    OOM_STATUS.store(status, Ordering::Relaxed);
}

/// Reports an allocation failure like gnulib's xalloc_die and exits at
/// once. Allocates nothing; safe from any thread.
pub fn oom_exit() -> ! {
    let prefix: &[u8] = OOM_PREFIX.get().map_or(b"", |v| v.as_slice());
    // gettext allocates through the C library's malloc, not through this
    // allocator, and falls back to the msgid when it can't load a catalog.
    let text = crate::locale::translate(c"memory exhausted", libc::LC_MESSAGES)
        .unwrap_or(b"memory exhausted");
    let parts = [prefix, text, b"\n"];
    let iov = parts.map(|p| libc::iovec { iov_base: p.as_ptr() as *mut _, iov_len: p.len() });
    // SAFETY: the iovecs describe live byte slices (static or owned by
    // statics); then the process ends without running destructors or atexit
    // handlers (other threads may be in the middle of anything, including
    // malloc).
    unsafe {
        libc::writev(2, iov.as_ptr(), iov.len() as i32);
        libc::_exit(OOM_STATUS.load(Ordering::Relaxed))
    }
}

/// Asks the CPU to bring `*r` into its caches ahead of use, without
/// waiting for it: for a loop that will read records at scattered places
/// it knows in advance (a listing printed in sorted order), whose misses
/// would otherwise come one at a time.
pub fn prefetch<T>(r: &T) {
    #[cfg(target_arch = "x86_64")]
    {
        let p = (r as *const T).cast::<i8>();
        let mut off = 0;
        while off < std::mem::size_of::<T>() {
            // SAFETY: `p + off` lies within `*r` (off < its size); a
            // prefetch reads nothing architecturally and never faults.
            unsafe {
                core::arch::x86_64::_mm_prefetch::<{ core::arch::x86_64::_MM_HINT_T0 }>(p.add(off))
            };
            off += 64;
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = r;
}

/// Blocks of this size or more get a mapping of their own (mmap, grown by
/// mremap, returned by munmap), never a place in malloc's heap.
///
/// glibc serves even a block above its mmap threshold from the heap's top
/// when the top has room (and `tune_for_batch` pads the top by 64 MiB), and
/// grows such a block there by copying whenever another block sits after
/// it. A listing's entry array grew that way through 19 and 38 MiB copies
/// before it moved to a mapping, and the heap kept the freed copies (it is
/// never trimmed below 512 MiB): with the thread pool's workers allocating
/// in between, the holes were too fragmented for the sort's 32 MiB key
/// array to reuse, which got a mapping of its own on top. `lsr -l` of a
/// million entries peaked at 241-254 MB with the pool (GNU ls: 248), 226
/// MB with inline syscalls. Here no large block ever lives in the heap, so
/// freeing one gives its memory back whatever the threads did meanwhile.
pub const OWN_MAPPING: usize = 4 << 20;

/// Whether a block of this layout lives in a mapping of its own. A pure
/// function of the layout, which `dealloc` and `realloc` are given as the
/// block was allocated: both sides agree without any record. Alignments
/// above a page (never asked for by the tools) stay with malloc.
fn own_mapping(size: usize, align: usize) -> bool {
    size >= OWN_MAPPING && align <= PAGE
}

/// The page size mappings are rounded to: 4 KiB on every Linux target the
/// tools run on; a larger real page only rounds the kernel's side up.
const PAGE: usize = 4096;

fn page_round(n: usize) -> usize {
    n.div_ceil(PAGE) * PAGE
}

/// A fresh zero-filled mapping of `size` bytes, or null.
fn map(size: usize) -> *mut u8 {
    // SAFETY: an anonymous private mapping at an address of the kernel's
    // choosing touches no existing memory.
    let p = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            page_round(size),
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
            -1,
            0,
        )
    };
    if p == libc::MAP_FAILED {
        std::ptr::null_mut()
    } else {
        p.cast()
    }
}

/// Maps the whole of `file` read-only for the rest of the process (one
/// `fstat`, one `mmap`; the mapping outlives the descriptor and is never
/// unmapped, so the bytes are `'static`, as the C library's catalogs are).
/// `None` for an empty file or when it can't be mapped.
pub fn map_file(file: &std::fs::File) -> Option<&'static [u8]> {
    use std::os::fd::AsRawFd;
    let len = usize::try_from(file.metadata().ok()?.len()).ok().filter(|&n| n > 0)?;
    // SAFETY: a fresh private read-only mapping of an open file touches no
    // existing memory; the kernel keeps it valid after the descriptor
    // closes. (A file truncated under us faults on access, as glibc's
    // mapped catalogs would.)
    let p = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            len,
            libc::PROT_READ,
            libc::MAP_PRIVATE,
            file.as_raw_fd(),
            0,
        )
    };
    if p == libc::MAP_FAILED {
        return None;
    }
    // SAFETY: `p` is a mapping of `len` readable bytes that is never unmapped.
    Some(unsafe { std::slice::from_raw_parts(p.cast::<u8>(), len) })
}

/// The system allocator, except that running out of memory ends the process
/// with [`oom_exit`] instead of an abort, and blocks of [`OWN_MAPPING`] or
/// more are mappings of their own.
///
/// Everything the tools keep grows through it, so `ulimit -v` below what a
/// listing needs gives `lsr: memory exhausted` and exit status 2 (1 for the
/// others), as GNU's tools do, never SIGABRT.
pub struct ExitOnOom;

fn or_exit(p: *mut u8) -> *mut u8 {
    if p.is_null() {
        oom_exit();
    }
    p
}

// SAFETY: blocks below OWN_MAPPING (or over-aligned) go to the system
// allocator with the caller's arguments unchanged; larger ones are whole
// anonymous mappings, page-aligned (so any alignment up to a page holds),
// of at least the size asked, and only ever resized or unmapped here, with
// the mapping's length recomputed from the same layout size. `own_mapping`
// depends on the layout alone, which GlobalAlloc's contract makes the
// same at dealloc/realloc as at allocation. Where the system allocator or
// the kernel fails, the process exits instead of returning null.
unsafe impl GlobalAlloc for ExitOnOom {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if own_mapping(layout.size(), layout.align()) {
            return or_exit(map(layout.size()));
        }
        // SAFETY: the caller upholds GlobalAlloc::alloc's contract.
        or_exit(unsafe { System.alloc(layout) })
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if own_mapping(layout.size(), layout.align()) {
            // Anonymous mappings are zero-filled.
            return or_exit(map(layout.size()));
        }
        // SAFETY: the caller upholds GlobalAlloc::alloc_zeroed's contract.
        or_exit(unsafe { System.alloc_zeroed(layout) })
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        if own_mapping(layout.size(), layout.align()) {
            // SAFETY: ptr is a mapping of page_round(size) bytes made by
            // `map` or `realloc` for this layout, and the caller gives it up.
            unsafe { libc::munmap(ptr.cast(), page_round(layout.size())) };
            return;
        }
        // SAFETY: the caller upholds GlobalAlloc::dealloc's contract.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let (old_size, align) = (layout.size(), layout.align());
        match (own_mapping(old_size, align), own_mapping(new_size, align)) {
            (false, false) => {
                // SAFETY: the caller upholds GlobalAlloc::realloc's contract.
                or_exit(unsafe { System.realloc(ptr, layout, new_size) })
            }
            (true, true) => {
                // SAFETY: ptr is this layout's mapping (see dealloc); the
                // kernel moves its pages to a larger or smaller mapping
                // without copying, and unmaps the old range.
                let p = unsafe {
                    libc::mremap(
                        ptr.cast(),
                        page_round(old_size),
                        page_round(new_size),
                        libc::MREMAP_MAYMOVE,
                    )
                };
                if p == libc::MAP_FAILED {
                    oom_exit();
                }
                p.cast()
            }
            (false, true) => {
                let p = or_exit(map(new_size));
                // SAFETY: the old block holds old_size (< new_size) bytes,
                // the new mapping is larger and distinct; then the old block
                // goes back to the system allocator it came from.
                unsafe {
                    std::ptr::copy_nonoverlapping(ptr, p, old_size);
                    System.dealloc(ptr, layout);
                }
                p
            }
            (true, false) => {
                // SAFETY: new_size is non-zero (GlobalAlloc::realloc's
                // contract) and the alignment is the caller's valid one.
                let new_layout = unsafe { Layout::from_size_align_unchecked(new_size, align) };
                // SAFETY: as alloc, for a valid non-zero layout.
                let p = or_exit(unsafe { System.alloc(new_layout) });
                // SAFETY: new_size < old_size bytes are copied between two
                // distinct live blocks; then the old mapping is unmapped.
                unsafe {
                    std::ptr::copy_nonoverlapping(ptr, p, new_size);
                    libc::munmap(ptr.cast(), page_round(old_size));
                }
                p
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether `p` lies in a mapping of its own (not malloc's heap): its
    /// line in /proc/self/maps starts exactly at `p`.
    fn own_map_at(p: *mut u8) -> bool {
        let maps = std::fs::read_to_string("/proc/self/maps").unwrap();
        let at = format!("{:x}-", p as usize);
        maps.lines().any(|l| l.starts_with(&at))
    }

    #[test]
    fn large_blocks_live_in_their_own_mappings_through_every_resize() {
        let a = ExitOnOom;
        let small = Layout::from_size_align(OWN_MAPPING / 2, 8).unwrap();
        // SAFETY: non-zero layouts; each block is used within its size and
        // released once, with the layout it currently has.
        unsafe {
            let p = a.alloc(small);
            std::ptr::write_bytes(p, 0x5a, small.size());
            // Heap to mapping: the bytes come along.
            let q = a.realloc(p, small, OWN_MAPPING + 1);
            assert!(own_map_at(q));
            assert!((0..small.size()).step_by(4093).all(|i| *q.add(i) == 0x5a));
            std::ptr::write_bytes(q.add(small.size()), 0xa5, OWN_MAPPING + 1 - small.size());
            // Mapping to a larger mapping (mremap).
            let l1 = Layout::from_size_align(OWN_MAPPING + 1, 8).unwrap();
            let r = a.realloc(q, l1, 3 * OWN_MAPPING);
            assert!(own_map_at(r));
            assert_eq!(*r.add(OWN_MAPPING), 0xa5);
            assert_eq!(*r.add(7), 0x5a);
            // Mapping back to the heap.
            let l3 = Layout::from_size_align(3 * OWN_MAPPING, 8).unwrap();
            let s = a.realloc(r, l3, 100);
            assert!(!own_map_at(s));
            assert_eq!(*s.add(99), 0x5a);
            a.dealloc(s, Layout::from_size_align(100, 8).unwrap());
            // Zeroed large blocks are fresh mappings.
            let z = a.alloc_zeroed(l3);
            assert!(own_map_at(z));
            assert!((0..l3.size()).step_by(4096).all(|i| *z.add(i) == 0));
            a.dealloc(z, l3);
        }
    }
}
