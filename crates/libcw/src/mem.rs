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
/// of a million entries 371 -> 251 MB, the CPU time unchanged). Under an
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

/// The system allocator, except that running out of memory ends the process
/// with [`oom_exit`] instead of an abort.
///
/// Everything the tools keep grows through it, so `ulimit -v` below what a
/// listing needs gives `lsr: memory exhausted` and exit status 2 (1 for the
/// others), as GNU's tools do, never SIGABRT.
pub struct ExitOnOom;

// SAFETY: every method forwards to the system allocator with the caller's
// arguments unchanged and returns its result; the only addition is exiting
// the process where the system allocator would have returned null.
unsafe impl GlobalAlloc for ExitOnOom {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller upholds GlobalAlloc::alloc's contract.
        let p = unsafe { System.alloc(layout) };
        if p.is_null() {
            oom_exit();
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller upholds GlobalAlloc::alloc_zeroed's contract.
        let p = unsafe { System.alloc_zeroed(layout) };
        if p.is_null() {
            oom_exit();
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller upholds GlobalAlloc::dealloc's contract.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: the caller upholds GlobalAlloc::realloc's contract.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if p.is_null() {
            oom_exit();
        }
        p
    }
}
