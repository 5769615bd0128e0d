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
    pub zone: Vec<u8>,
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
        Vec::new()
    } else {
        // SAFETY: tm_zone points at a NUL-terminated string owned by libc's
        // zone tables, which live as long as the process (no tzset in between).
        unsafe { std::ffi::CStr::from_ptr(tm.tm_zone) }.to_bytes().to_vec()
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

/// The current time as (seconds, nanoseconds) since the epoch.
pub fn now() -> (i64, u32) {
    // SAFETY: ts is a valid timespec for clock_gettime to fill.
    let mut ts: libc::timespec = unsafe { std::mem::zeroed() };
    // SAFETY: as above.
    unsafe { libc::clock_gettime(libc::CLOCK_REALTIME, &mut ts) };
    (ts.tv_sec, ts.tv_nsec as u32)
}
