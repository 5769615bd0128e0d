//! Tuning of the C allocator for short-lived tools that build one large
//! listing: fewer `brk`/`mmap`/`mremap` calls while it grows.

/// Asks malloc to grow the heap in large steps and to keep big blocks on
/// the heap (where realloc can grow them in place) instead of in separate
/// mappings. Untouched heap pages cost nothing, so a generous pad is cheap.
pub fn tune_for_batch() {
    // SAFETY: mallopt only adjusts allocator parameters; called before the
    // program's threads exist.
    unsafe {
        libc::mallopt(libc::M_TOP_PAD, 64 << 20);
        libc::mallopt(libc::M_MMAP_THRESHOLD, 256 << 20);
        libc::mallopt(libc::M_TRIM_THRESHOLD, 512 << 20);
    }
}
