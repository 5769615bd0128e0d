//! Reading `strace -c` summaries: shared by `cargo xtask bench` (syscall
//! columns) and the syscall-budget tests (tests/syscalls.rs includes this
//! file by path; a test target can't depend on the xtask binary), so it
//! uses nothing but std.

use std::collections::BTreeMap;

/// Total and per-syscall counts from an `strace -c` summary. The columns
/// are located by the header (values are right-aligned under it), since
/// the errors column is blank when there were none.
pub fn parse_strace_summary(text: &str) -> Option<(u64, BTreeMap<String, u64>)> {
    let mut lines = text.lines().skip_while(|l| !l.starts_with("% time"));
    let header = lines.next()?;
    let calls_end = header.find("calls")? + "calls".len();
    let name_start = header.find("errors")? + "errors".len();
    let mut per = BTreeMap::new();
    for l in lines {
        if l.starts_with("---") || l.len() <= name_start {
            continue;
        }
        let calls: u64 = l[..calls_end].split_whitespace().last()?.parse().ok()?;
        let name = l[name_start..].trim();
        if name == "total" {
            return Some((calls, per));
        }
        per.insert(name.to_string(), calls);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strace_summary_with_and_without_errors_column() {
        let text = "\
% time     seconds  usecs/call     calls    errors syscall
------ ----------- ----------- --------- --------- ----------------
 60.00    0.000006           0        23           close
 40.00    0.000004           0        34        13 openat
  0.00    0.000000           0         1           io_uring_enter
------ ----------- ----------- --------- --------- ----------------
100.00    0.000010           0        58        13 total
";
        let (total, per) = parse_strace_summary(text).unwrap();
        assert_eq!(total, 58);
        assert_eq!((per["close"], per["openat"], per["io_uring_enter"]), (23, 34, 1));
        // Older strace leaves usecs/call blank on the total line.
        let old = text.replace(
            "100.00    0.000010           0        58",
            "100.00    0.000010                    58",
        );
        assert_eq!(parse_strace_summary(&old).unwrap().0, 58);
    }
}
