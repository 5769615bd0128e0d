//! Local time through the C library, which knows `TZ` and the zoneinfo
//! database: `tzset` once, then `localtime_r` per timestamp.

/// Broken-down local time (the fields of `struct tm` the tools print).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Tm {
    pub year: i64,
    /// 0..=11
    pub mon: u32,
    /// 1..=31
    pub mday: u32,
    pub hour: u32,
    pub min: u32,
    pub sec: u32,
    /// 0 = Sunday
    pub wday: u32,
    /// 0..=365
    pub yday: u32,
    pub isdst: i32,
    /// Seconds east of UTC.
    pub gmtoff: i64,
    /// Zone abbreviation ("UTC", "CET"), as the C library's bytes.
    pub zone: Zone,
}

/// A zone abbreviation, held in place: `ls -l` converts a time per file
/// whose minute it hasn't seen, and an allocation each (plus its free,
/// contended with the threads that read ahead) cost more than the
/// conversion. Abbreviations longer than the room (a `TZ` string may name
/// any) go to the heap.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Zone {
    Inline(u8, [u8; Zone::INLINE]),
    Heap(Box<[u8]>),
}

impl Zone {
    const INLINE: usize = 15;
}

impl Default for Zone {
    fn default() -> Zone {
        Zone::Inline(0, [0; Zone::INLINE])
    }
}

impl From<&[u8]> for Zone {
    fn from(b: &[u8]) -> Zone {
        if b.len() <= Zone::INLINE {
            let mut a = [0; Zone::INLINE];
            a[..b.len()].copy_from_slice(b);
            Zone::Inline(b.len() as u8, a)
        } else {
            Zone::Heap(b.into())
        }
    }
}

impl std::ops::Deref for Zone {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            Zone::Inline(n, a) => &a[..usize::from(*n)],
            Zone::Heap(b) => b,
        }
    }
}

/// Reads `TZ` / `/etc/localtime` (once; later calls are cheap).
pub fn tzset() {
    extern "C" {
        fn tzset();
    }
    // SAFETY: tzset takes no arguments and only initialises libc's zone state.
    unsafe { tzset() }
}

/// The local time of `secs` since the epoch, or `None` when it is out of the
/// C library's range.
pub fn localtime(secs: i64) -> Option<Tm> {
    let t: libc::time_t = secs;
    // SAFETY: tm is a plain C struct for which all-zero bytes are valid.
    let mut tm: libc::tm = unsafe { std::mem::zeroed() };
    // SAFETY: both pointers are valid for the duration of the call; the
    // reentrant variant writes only into tm.
    let r = unsafe { libc::localtime_r(&t, &mut tm) };
    if r.is_null() {
        return None;
    }
    let zone = if tm.tm_zone.is_null() {
        Zone::default()
    } else {
        // SAFETY: tm_zone points at a NUL-terminated string owned by libc's
        // zone tables, which live as long as the process (no tzset in between).
        Zone::from(unsafe { std::ffi::CStr::from_ptr(tm.tm_zone) }.to_bytes())
    };
    Some(Tm {
        year: tm.tm_year as i64 + 1900,
        mon: tm.tm_mon as u32,
        mday: tm.tm_mday as u32,
        hour: tm.tm_hour as u32,
        min: tm.tm_min as u32,
        sec: tm.tm_sec as u32,
        wday: tm.tm_wday as u32,
        yday: tm.tm_yday as u32,
        isdst: tm.tm_isdst,
        gmtoff: tm.tm_gmtoff,
        zone,
    })
}

/// `mktime`: seconds since the epoch of a local date and time (for find's
/// -daystart and -newermt dates), or `None` when the C library can't
/// represent it.
pub fn mktime(year: i64, mon: u32, mday: u32, hour: u32, min: u32, sec: u32) -> Option<i64> {
    // SAFETY: tm is a plain C struct for which all-zero bytes are valid.
    let mut tm: libc::tm = unsafe { std::mem::zeroed() };
    tm.tm_year = (year - 1900) as i32;
    tm.tm_mon = mon as i32;
    tm.tm_mday = mday as i32;
    tm.tm_hour = hour as i32;
    tm.tm_min = min as i32;
    tm.tm_sec = sec as i32;
    tm.tm_isdst = -1;
    // SAFETY: tm is a valid, exclusive struct tm.
    let t = unsafe { libc::mktime(&mut tm) };
    (t != -1).then_some(t)
}

/// `mktime` with fields out of range allowed (they carry over, `mday` 0
/// is the month's eve) and an explicit `isdst` (-1: let the C library
/// decide): the time, and the normalised local time it stands for.
/// `None` when the C library can't represent it.
pub fn mktime_norm(
    year: i64,
    mon: i64,
    mday: i64,
    hour: i64,
    min: i64,
    sec: i64,
    isdst: i32,
) -> Option<(i64, Tm)> {
    let int = |v: i64| i32::try_from(v).ok();
    // SAFETY: tm is a plain C struct for which all-zero bytes are valid.
    let mut tm: libc::tm = unsafe { std::mem::zeroed() };
    tm.tm_year = int(year.checked_sub(1900)?)?;
    tm.tm_mon = int(mon)?;
    tm.tm_mday = int(mday)?;
    tm.tm_hour = int(hour)?;
    tm.tm_min = int(min)?;
    tm.tm_sec = int(sec)?;
    tm.tm_isdst = isdst;
    tm.tm_wday = -1;
    // SAFETY: tm is a valid, exclusive struct tm.
    let t = unsafe { libc::mktime(&mut tm) };
    // -1 is also a valid time (a second before the epoch): mktime sets
    // tm_wday only on success.
    if t == -1 && tm.tm_wday == -1 {
        return None;
    }
    Some((t, localtime(t)?))
}

/// Runs `f` with the `TZ` environment variable set to `zone` (for dates
/// that name their own zone, `TZ="Europe/Berlin" 2023-01-01`), then puts
/// the old value back. Only for start-up, before any thread exists: the
/// environment and libc's zone state are process-wide.
pub fn with_zone<T>(zone: &[u8], f: impl FnOnce() -> T) -> Option<T> {
    let name = std::ffi::CString::new(zone).ok()?;
    let old = std::env::var_os("TZ");
    // SAFETY: the caller runs this before starting threads (documented
    // above), so nothing reads the environment concurrently; name is a
    // valid NUL-terminated string that setenv copies.
    unsafe { libc::setenv(c"TZ".as_ptr(), name.as_ptr(), 1) };
    tzset();
    let r = f();
    match old {
        Some(v) => {
            use std::os::unix::ffi::OsStrExt;
            if let Ok(v) = std::ffi::CString::new(v.as_bytes()) {
                // SAFETY: as above; v is NUL-terminated and copied.
                unsafe { libc::setenv(c"TZ".as_ptr(), v.as_ptr(), 1) };
            }
        }
        // SAFETY: as above.
        None => unsafe {
            libc::unsetenv(c"TZ".as_ptr());
        },
    }
    tzset();
    Some(r)
}

/// The current time as (seconds, nanoseconds) since the epoch.
pub fn now() -> (i64, u32) {
    // SAFETY: ts is a valid timespec for clock_gettime to fill.
    let mut ts: libc::timespec = unsafe { std::mem::zeroed() };
    // SAFETY: as above.
    unsafe { libc::clock_gettime(libc::CLOCK_REALTIME, &mut ts) };
    (ts.tv_sec, ts.tv_nsec as u32)
}

#[cfg(test)]
mod tests {
    use super::Zone;

    /// Short abbreviations are kept in place, longer ones (a `TZ` string
    /// may name any) on the heap; both read back as given.
    #[test]
    fn zones_of_any_length_read_back() {
        for z in [&b""[..], b"UTC", b"CEST", b"+0530", b"ABCDEFGHIJKLMNO", b"ABCDEFGHIJKLMNOP"] {
            let zone = Zone::from(z);
            assert_eq!(&zone[..], z);
            assert_eq!(matches!(zone, Zone::Inline(..)), z.len() <= 15, "{z:?}");
        }
    }
}
