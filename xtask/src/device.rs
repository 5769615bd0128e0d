//! The block device under a directory, its `/proc/diskstats` counters, and
//! a small O_DIRECT probe of what the device itself can do (for the cold
//! bench's `device` row: the time the requests and bytes a run read would
//! need if the device were the only limit).

use std::fs;
use std::io;
use std::os::unix::fs::{FileExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// A block device as the kernel names it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Device {
    /// Its name in `/proc/diskstats` and `/dev` (`vda1`, `dm-0`, `nvme0n1p2`).
    pub name: String,
    /// The whole disk whose queue serves it (`vda` for `vda1`); for a
    /// device-mapper or md device, itself.
    pub disk: String,
    /// For device-mapper / md: the devices underneath (`slaves/`).
    pub slaves: Vec<String>,
}

/// Splits a Linux `dev_t` into (major, minor), as glibc's `gnu_dev_major/minor`.
pub fn split_dev(dev: u64) -> (u64, u64) {
    let major = ((dev >> 8) & 0xfff) | ((dev >> 32) & !0xfff);
    let minor = (dev & 0xff) | ((dev >> 12) & !0xff);
    (major, minor)
}

/// The device holding `path`, looked up under the real `/sys`.
pub fn of_path(path: &Path) -> Result<Device, String> {
    let dev = fs::metadata(path).map_err(|e| format!("{}: {e}", path.display()))?.dev();
    let (major, minor) = split_dev(dev);
    lookup(Path::new("/sys"), major, minor).map_err(|e| format!("{}: {e}", path.display()))
}

/// Resolves `MAJ:MIN` through `SYSFS/dev/block/MAJ:MIN`, a symlink to the
/// device's directory: `…/block/vda` for a disk, `…/block/vda/vda1` for a
/// partition (it has a `partition` file; the disk is the parent
/// directory), `…/block/dm-0` for device-mapper (its `slaves/` lists what
/// it sits on). `sysfs` is a parameter so tests can use a fake tree.
pub fn lookup(sysfs: &Path, major: u64, minor: u64) -> Result<Device, String> {
    if major == 0 {
        // Anonymous devices: tmpfs, overlayfs, btrfs subvolumes, FUSE, NFS.
        return Err(format!("not on a block device (device {major}:{minor})"));
    }
    let link = sysfs.join("dev/block").join(format!("{major}:{minor}"));
    let dir = fs::canonicalize(&link).map_err(|e| format!("{}: {e}", link.display()))?;
    let name = file_name(&dir)?;
    let disk = if dir.join("partition").exists() {
        file_name(dir.parent().ok_or("partition without a parent")?)?
    } else {
        name.clone()
    };
    let mut slaves: Vec<String> = match fs::read_dir(dir.join("slaves")) {
        Ok(rd) => {
            rd.filter_map(|e| e.ok()).map(|e| e.file_name().to_string_lossy().into()).collect()
        }
        Err(_) => Vec::new(),
    };
    slaves.sort();
    Ok(Device { name, disk, slaves })
}

fn file_name(p: &Path) -> Result<String, String> {
    p.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .ok_or_else(|| format!("{}: no device name", p.display()))
}

/// What a device's line of `/proc/diskstats` says about reads, plus the
/// time it was busy. Counters since boot; [`DiskStats::since`] gives deltas.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DiskStats {
    /// Read requests completed (after merging).
    pub reads: u64,
    /// 512-byte sectors read.
    pub sectors: u64,
    /// Milliseconds the device had at least one request in flight
    /// (`io_ticks`: reads and writes alike).
    pub busy_ms: u64,
}

impl DiskStats {
    pub fn bytes(&self) -> u64 {
        self.sectors * 512
    }

    pub fn since(&self, before: &DiskStats) -> DiskStats {
        DiskStats {
            reads: self.reads.saturating_sub(before.reads),
            sectors: self.sectors.saturating_sub(before.sectors),
            busy_ms: self.busy_ms.saturating_sub(before.busy_ms),
        }
    }
}

/// The counters of device `name` in the text of `/proc/diskstats`
/// (`major minor name reads merged sectors ms writes … in_flight io_ticks …`).
pub fn parse_diskstats(text: &str, name: &str) -> Option<DiskStats> {
    text.lines().find_map(|l| {
        let f: Vec<&str> = l.split_whitespace().collect();
        if f.get(2) != Some(&name) || f.len() < 13 {
            return None;
        }
        let n = |i: usize| f[i].parse::<u64>().ok();
        Some(DiskStats { reads: n(3)?, sectors: n(5)?, busy_ms: n(12)? })
    })
}

/// The current counters of `dev`.
pub fn read_stats(dev: &Device) -> Option<DiskStats> {
    parse_diskstats(&fs::read_to_string("/proc/diskstats").ok()?, &dev.name)
}

/// What the device itself sustains, from [`probe`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Limits {
    /// 4 KiB O_DIRECT random reads per second, one at a time.
    pub iops_1: f64,
    /// The same, 32 in flight.
    pub iops_32: f64,
    /// Sequential O_DIRECT reads of 1 MiB, 4 in flight, bytes per second.
    pub seq_bw: f64,
}

impl Limits {
    /// The least time the device needs for `reads` requests and `bytes`
    /// bytes: whichever of its request rate (at depth 32) and its bandwidth
    /// binds. Optimistic on purpose (a floor): the walk's requests are
    /// assumed as cheap as 4 KiB random reads at full depth.
    pub fn time_for(&self, reads: u64, bytes: u64) -> Duration {
        let by_iops = reads as f64 / self.iops_32.max(1.0);
        let by_bw = bytes as f64 / self.seq_bw.max(1.0);
        Duration::from_secs_f64(by_iops.max(by_bw))
    }
}

/// The device's size in bytes (`/sys/class/block/NAME/size` is in 512-byte sectors).
fn size_bytes(name: &str) -> Result<u64, String> {
    let p = format!("/sys/class/block/{name}/size");
    let s = fs::read_to_string(&p).map_err(|e| format!("{p}: {e}"))?;
    s.trim().parse::<u64>().map(|n| n * 512).map_err(|_| format!("{p}: not a number"))
}

/// A `len`-byte window of `v` aligned to 4 KiB, as O_DIRECT requires.
fn aligned(v: &mut Vec<u8>, len: usize) -> &mut [u8] {
    v.resize(len + 4096, 0);
    let off = v.as_ptr().align_offset(4096);
    &mut v[off..off + len]
}

/// xorshift64*: cheap, good enough to scatter offsets.
fn next_rand(s: &mut u64) -> u64 {
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    s.wrapping_mul(0x2545_F491_4F6C_DD1D)
}

/// Reads `/dev/NAME` with O_DIRECT from `depth` threads for `span`: random
/// 4 KiB blocks, or (`seq_len` > 0) consecutive `seq_len`-byte chunks.
/// Returns (requests, bytes, elapsed).
fn read_for(
    path: &Path,
    size: u64,
    depth: usize,
    span: Duration,
    seq_len: usize,
) -> Result<(u64, u64, Duration), String> {
    let file = fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_DIRECT)
        .open(path)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    let next_chunk = AtomicU64::new(0);
    let t = Instant::now();
    let per: Vec<io::Result<(u64, u64)>> = std::thread::scope(|s| {
        let hs: Vec<_> = (0..depth)
            .map(|i| {
                let (file, next_chunk) = (&file, &next_chunk);
                s.spawn(move || -> io::Result<(u64, u64)> {
                    let mut v = Vec::new();
                    let len = if seq_len > 0 { seq_len } else { 4096 };
                    let buf = aligned(&mut v, len);
                    let mut seed = 0x9E37_79B9_7F4A_7C15u64 ^ (i as u64 + 1).wrapping_mul(0xD1B5);
                    let (mut n, mut bytes) = (0u64, 0u64);
                    let blocks = (size / 4096).max(1);
                    while t.elapsed() < span {
                        let off = if seq_len > 0 {
                            let c = next_chunk.fetch_add(1, Ordering::Relaxed);
                            (c * seq_len as u64) % (size - size % seq_len as u64).max(1)
                        } else {
                            next_rand(&mut seed) % blocks * 4096
                        };
                        bytes += file.read_at(buf, off)? as u64;
                        n += 1;
                    }
                    Ok((n, bytes))
                })
            })
            .collect();
        hs.into_iter()
            .map(|h| h.join().unwrap_or_else(|_| Err(io::Error::other("panic"))))
            .collect()
    });
    let elapsed = t.elapsed();
    let (mut n, mut bytes) = (0, 0);
    for r in per {
        let (a, b) = r.map_err(|e| format!("{}: {e}", path.display()))?;
        n += a;
        bytes += b;
    }
    Ok((n, bytes, elapsed))
}

/// Measures the device: random 4 KiB reads at depth 1 and 32 (threads, one
/// pread each in flight), then sequential 1 MiB reads at depth 4; about 4 s.
/// It reads `/dev/NAME` itself where it may (offsets over the whole device;
/// on a thin-provisioned virtual disk this may read holes), else `file`, a
/// large file on the same file system (containers often deny opening the
/// device even to root), with O_DIRECT either way so the cache is bypassed.
/// Returns the limits and what was read.
pub fn probe(dev: &Device, file: &Path) -> Result<(Limits, PathBuf), String> {
    let raw = PathBuf::from("/dev").join(&dev.name);
    let (path, size) = match fs::File::open(&raw) {
        Ok(_) => (raw, size_bytes(&dev.name)?),
        Err(_) => {
            let len = fs::metadata(file).map_err(|e| format!("{}: {e}", file.display()))?.len();
            (file.to_path_buf(), len)
        }
    };
    if size < 64 << 20 {
        return Err(format!("{}: too small to probe", path.display()));
    }
    let rate = |(n, _, t): (u64, u64, Duration)| n as f64 / t.as_secs_f64().max(1e-6);
    let iops_1 = rate(read_for(&path, size, 1, Duration::from_millis(1000), 0)?);
    let iops_32 = rate(read_for(&path, size, 32, Duration::from_millis(1500), 0)?);
    let (_, bytes, t) = read_for(&path, size, 4, Duration::from_millis(1500), 1 << 20)?;
    let seq_bw = bytes as f64 / t.as_secs_f64().max(1e-6);
    Ok((Limits { iops_1, iops_32, seq_bw }, path))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dev_t_splits_like_glibc() {
        assert_eq!(split_dev(0xfe00), (254, 0));
        assert_eq!(split_dev(0x0801), (8, 1));
        // Large minors spill into the high bits (nvme partitions, dm).
        assert_eq!(split_dev((259 << 8) | 0x12 | (0x345 << 20)), (259, 0x3_4512));
    }

    #[test]
    fn diskstats_line_is_parsed() {
        let text = "\
 254       0 vda 26839 1043 1915858 9950 40264 30563 3106352 41062 0 27044 53633 0 0 0 0 1530 2620
 254       1 vda1 26700 1043 1910000 9900 40264 30563 3106352 41062 2 27000 53633
   7       0 loop0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n";
        let s = parse_diskstats(text, "vda").unwrap();
        assert_eq!(s, DiskStats { reads: 26839, sectors: 1_915_858, busy_ms: 27044 });
        assert_eq!(parse_diskstats(text, "vda1").unwrap().busy_ms, 27000);
        assert_eq!(parse_diskstats(text, "vd"), None);
        let later = DiskStats { reads: 26900, sectors: 1_916_858, busy_ms: 27100 };
        let d = later.since(&s);
        assert_eq!((d.reads, d.bytes(), d.busy_ms), (61, 512_000, 56));
    }

    /// A fake sysfs with a disk, a partition and a device-mapper device.
    #[test]
    fn lookup_resolves_disks_partitions_and_dm() {
        let scratch = scratch::Scratch::new("xtask-sysfs");
        let root = scratch.path();
        let devs = root.join("devices");
        let vda = devs.join("pci0000:00/virtio1/block/vda");
        fs::create_dir_all(vda.join("vda1")).unwrap();
        fs::write(vda.join("vda1/partition"), "1\n").unwrap();
        fs::create_dir_all(devs.join("virtual/block/dm-0/slaves")).unwrap();
        for s in ["vda1", "sdb"] {
            fs::write(devs.join("virtual/block/dm-0/slaves").join(s), "").unwrap();
        }
        let links = root.join("dev/block");
        fs::create_dir_all(&links).unwrap();
        let link = |n: &str, to: &str| std::os::unix::fs::symlink(to, links.join(n)).unwrap();
        link("254:0", "../../devices/pci0000:00/virtio1/block/vda");
        link("254:1", "../../devices/pci0000:00/virtio1/block/vda/vda1");
        link("253:0", "../../devices/virtual/block/dm-0");
        let d = |maj, min| lookup(root, maj, min);
        let dev = |n: &str, disk: &str, sl: &[&str]| Device {
            name: n.into(),
            disk: disk.into(),
            slaves: sl.iter().map(|s| s.to_string()).collect(),
        };
        assert_eq!(d(254, 0).unwrap(), dev("vda", "vda", &[]));
        assert_eq!(d(254, 1).unwrap(), dev("vda1", "vda", &[]));
        assert_eq!(d(253, 0).unwrap(), dev("dm-0", "dm-0", &["sdb", "vda1"]));
        assert!(d(0, 42).unwrap_err().contains("not on a block device"));
        assert!(d(8, 16).is_err());
    }

    #[test]
    fn device_time_takes_the_binding_limit() {
        let l = Limits { iops_1: 10_000.0, iops_32: 50_000.0, seq_bw: 500e6 };
        // 12,500 requests bind (0.25 s) before 100 MB (0.2 s).
        assert_eq!(l.time_for(12_500, 100_000_000), Duration::from_millis(250));
        // 250 MB bind (0.5 s) before 1,000 requests.
        assert_eq!(l.time_for(1000, 250_000_000), Duration::from_millis(500));
    }

    #[test]
    fn aligned_window_is_aligned() {
        let mut v = Vec::new();
        let b = aligned(&mut v, 8192);
        assert_eq!(b.len(), 8192);
        assert_eq!(b.as_ptr() as usize % 4096, 0);
    }
}
