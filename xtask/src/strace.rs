//! Counting syscalls from an `strace -f -o FILE` trace: shared by `cargo
//! xtask bench` (syscall columns) and the syscall-budget tests
//! (tests/syscalls.rs includes this file by path; a test target can't
//! depend on the xtask binary), so it uses nothing but std.
//!
//! A full trace is counted rather than `strace -c`'s summary because the
//! summary leaves out syscalls its strace has no name for: strace 6.1
//! (Debian 12) doesn't know getxattrat and listxattrat (Linux 6.13), so
//! `lsr -l`'s 10,000 attribute queries were missing from its totals.

use std::collections::BTreeMap;

/// strace's arguments for a trace this module counts: `-f` (every thread,
/// lines prefixed with the pid), arguments raw and strings empty (cheaper
/// to print, not needed), no attach/exit chatter; `-o` and the file follow.
pub const TRACE_ARGS: &[&str] = &["-f", "-qq", "-e", "raw=all", "-s", "0"];

/// Syscalls newer than the strace that may be installed, by number
/// (x86_64): strace prints them as `syscall_0x…`.
const NEW_SYSCALLS: &[(u64, &str)] = &[
    (463, "setxattrat"),
    (464, "getxattrat"),
    (465, "listxattrat"),
    (466, "removexattrat"),
    (467, "open_tree_attr"),
];

/// Total and per-syscall counts from a trace: each call once (its
/// `<unfinished ...>` line; the `<... resumed>` line is skipped), signals
/// and exits not counted. None if nothing in `text` looks like a call.
pub fn count_trace(text: &str) -> Option<(u64, BTreeMap<String, u64>)> {
    let mut per = BTreeMap::new();
    let mut total = 0;
    for line in text.lines() {
        // "PID name(args) = ret": the pid prefix comes with -f.
        let rest = line.trim_start_matches(|c: char| c.is_ascii_digit()).trim_start();
        if rest.starts_with("<...") || rest.starts_with("---") || rest.starts_with("+++") {
            continue;
        }
        let Some(open) = rest.find('(') else { continue };
        let name = &rest[..open];
        if name.is_empty() || !name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
            continue;
        }
        let name =
            match name.strip_prefix("syscall_0x").and_then(|h| u64::from_str_radix(h, 16).ok()) {
                Some(n) => NEW_SYSCALLS
                    .iter()
                    .find(|(k, _)| *k == n)
                    .map_or_else(|| name.to_string(), |(_, s)| s.to_string()),
                None => name.to_string(),
            };
        *per.entry(name).or_insert(0) += 1;
        total += 1;
    }
    (total > 0).then_some((total, per))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_calls_once_and_names_new_syscalls() {
        let text = "\
100 execve(0x1, 0x2, 0x3) = 0
100 openat(0xffffff9c, 0x5, 0x80000) = 3
101 statx(0x3, 0x6, 0x100, 0xfff, 0x7 <unfinished ...>
100 syscall_0x1d1(0x3, 0x8, 0, 0x9, 0x100, 0) = 0
101 <... statx resumed>) = 0
100 syscall_0x1d0(0x3, 0x8, 0, 0xa, 0xb, 0x10) = -1 ENODATA (No data available)
100 syscall_0x1ff(0) = -1 ENOSYS (Function not implemented)
100 --- SIGCHLD {si_signo=SIGCHLD} ---
101 +++ exited with 0 +++
100 close(0x3) = 0
";
        let (total, per) = count_trace(text).unwrap();
        assert_eq!(total, 7);
        assert_eq!(per["statx"], 1);
        assert_eq!(per["listxattrat"], 1);
        assert_eq!(per["getxattrat"], 1);
        assert_eq!(per["syscall_0x1ff"], 1);
        assert_eq!(per["close"], 1);
        assert!(count_trace("").is_none());
    }
}
