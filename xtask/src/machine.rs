//! What a benchmark report says about where it ran.

use std::path::Path;
use std::process::Command;
use std::time::{SystemTime, UNIX_EPOCH};

fn read(path: &str) -> String {
    std::fs::read_to_string(path).unwrap_or_default()
}

pub fn cpu_model() -> String {
    read("/proc/cpuinfo")
        .lines()
        .find_map(|l| {
            l.strip_prefix("model name")
                .and_then(|r| r.split_once(':'))
                .map(|(_, v)| v.trim().to_string())
        })
        .unwrap_or_else(|| "unknown CPU".into())
}

pub fn kernel() -> String {
    read("/proc/sys/kernel/osrelease").trim().to_string()
}

pub fn loadavg() -> String {
    read("/proc/loadavg").split_whitespace().take(3).collect::<Vec<_>>().join(" ")
}

fn mem_gib() -> String {
    let kib: u64 = read("/proc/meminfo")
        .lines()
        .find_map(|l| l.strip_prefix("MemTotal:"))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .unwrap_or(0);
    format!("{:.0} GiB RAM", kib as f64 / (1 << 20) as f64)
}

/// The file system type of `path`, from statfs's magic number.
pub fn fs_type(path: &Path) -> String {
    use std::os::unix::ffi::OsStrExt;
    let Ok(c) = std::ffi::CString::new(path.as_os_str().as_bytes()) else {
        return "?".into();
    };
    let Ok(magic) = crate::slowfs::sys::fs_magic(&c) else {
        return "?".into();
    };
    match magic {
        0xEF53 => "ext4".into(),
        0x5846_5342 => "xfs".into(),
        0x9123_683E => "btrfs".into(),
        0x0102_1994 => "tmpfs".into(),
        0x794C_7630 => "overlayfs".into(),
        0x6969 => "nfs".into(),
        0x6573_5546 => "fuse".into(),
        0x2FC1_2FC1 => "zfs".into(),
        other => format!("fs magic {other:#x}"),
    }
}

/// UTC date and time, `YYYY-MM-DD HH:MM UTC`.
pub fn now_utc() -> String {
    let secs = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs()) as i64;
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    let (y, m, d) = cli::timefmt::civil_from_days(days);
    format!("{y:04}-{:02}-{d:02} {:02}:{:02} UTC", m + 1, rem / 3600, rem % 3600 / 60)
}

/// `abc1234` or `abc1234-dirty`.
pub fn git_commit() -> String {
    let root = crate::workspace_root();
    let out = |args: &[&str]| {
        Command::new("git")
            .args(args)
            .current_dir(&root)
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
    };
    let Some(head) = out(&["rev-parse", "--short", "HEAD"]) else {
        return "unknown".into();
    };
    match out(&["status", "--porcelain", "--untracked-files=no"]) {
        Some(s) if !s.is_empty() => format!("{head}-dirty"),
        _ => head,
    }
}

/// The header lines every report starts with.
pub fn header(fixtures: &Path) -> String {
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    format!(
        "- date: {}\n- machine: {cpus} cores, {}, {}, Linux {}\n- commit: {}\n- fixtures: {} ({})\n- ringio: default backend `{}`, {}\n- load average at start: {}\n",
        now_utc(),
        cpu_model(),
        mem_gib(),
        kernel(),
        git_commit(),
        fixtures.display(),
        fs_type(fixtures),
        ringio::default_backend().name(),
        ringio::uring_description(),
        loadavg(),
    )
}

/// CPU seconds all CPUs spent busy since boot (from /proc/stat).
fn busy_seconds() -> f64 {
    let stat = read("/proc/stat");
    let Some(cpu) = stat.lines().next().and_then(|l| l.strip_prefix("cpu ")) else {
        return 0.0;
    };
    let v: Vec<u64> = cpu.split_whitespace().filter_map(|x| x.parse().ok()).collect();
    // user nice system idle iowait irq softirq steal: busy = all but idle and iowait.
    let busy: u64 =
        v.iter().take(8).enumerate().filter(|(i, _)| *i != 3 && *i != 4).map(|(_, x)| x).sum();
    let hz = crate::slowfs::sys::clock_ticks();
    busy as f64 / hz as f64
}

/// CPU seconds used by this process and its reaped children.
fn own_seconds() -> f64 {
    crate::slowfs::sys::cpu_used().as_secs_f64()
}

/// Measures how much CPU *other* processes used while we ran: the machine
/// may be shared, and a busy neighbour inflates medians.
pub struct ForeignLoad {
    busy: f64,
    own: f64,
    t: std::time::Instant,
}

impl ForeignLoad {
    pub fn start() -> ForeignLoad {
        ForeignLoad { busy: busy_seconds(), own: own_seconds(), t: std::time::Instant::now() }
    }

    /// Time since `start`.
    pub fn elapsed(&self) -> std::time::Duration {
        self.t.elapsed()
    }

    /// Average cores used by other processes since `start`.
    pub fn cores(&self) -> f64 {
        let secs = self.t.elapsed().as_secs_f64().max(1e-3);
        let other = (busy_seconds() - self.busy) - (own_seconds() - self.own);
        (other / secs).max(0.0)
    }
}

/// Foreign load (in cores) above which a measurement is flagged.
pub const BUSY_CORES: f64 = 0.3;

#[cfg(test)]
mod tests {
    #[test]
    fn date_looks_like_a_date() {
        let d = super::now_utc();
        assert_eq!(d.len(), "2026-01-01 00:00 UTC".len(), "{d}");
        assert!(d.starts_with("20"), "{d}");
    }
}
