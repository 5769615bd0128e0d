//! Broken-down local time through the C library (`TZ`, zoneinfo), for
//! `ldu --time`. Interim: the `ls` branch adds an equivalent
//! `sys::time` for `cli::timefmt`; once that is on main, du switches to it
//! and this file goes.

/// The fields of `struct tm` a strftime needs.
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
    /// Zone abbreviation ("UTC", "CET").
    pub zone: String,
}

/// The local time of `secs` since the epoch, or `None` when the C library
/// cannot represent it.
pub fn localtime(secs: i64) -> Option<Tm> {
    let t: libc::time_t = secs;
    // SAFETY: struct tm is plain integers and a pointer, for which all-zero
    // bytes are a valid value.
    let mut tm: libc::tm = unsafe { std::mem::zeroed() };
    // SAFETY: both pointers are valid for the call; localtime_r writes only
    // into tm (and initialises libc's zone state on first use).
    let r = unsafe { libc::localtime_r(&t, &mut tm) };
    if r.is_null() {
        return None;
    }
    let zone = if tm.tm_zone.is_null() {
        String::new()
    } else {
        // SAFETY: tm_zone points at a NUL-terminated abbreviation in libc's
        // zone tables, which stay valid while no tzset runs; it is copied here.
        unsafe { std::ffi::CStr::from_ptr(tm.tm_zone) }.to_string_lossy().into_owned()
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
