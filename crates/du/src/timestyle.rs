//! du's `--time-style` formats, printed with `cli::timefmt`'s strftime and
//! the C library's local time (`TZ`).

use cli::timefmt::Timestamp;
use libcw::time::localtime;

/// A resolved `--time-style`: the strftime format du prints times in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TimeFormat(pub Vec<u8>);

impl TimeFormat {
    pub fn long_iso() -> TimeFormat {
        TimeFormat(b"%Y-%m-%d %H:%M".to_vec())
    }

    pub fn full_iso() -> TimeFormat {
        TimeFormat(b"%Y-%m-%d %H:%M:%S.%N %z".to_vec())
    }

    pub fn iso() -> TimeFormat {
        TimeFormat(b"%Y-%m-%d".to_vec())
    }

    /// Appends the time `t` in this format; a time the C library can't
    /// convert is printed as seconds, as GNU does.
    pub fn format(&self, out: &mut Vec<u8>, t: Timestamp) {
        let Timestamp { secs, nsec } = t;
        match localtime(secs) {
            // Localized and unpadded: du prints `+FORMAT` as date(1) does.
            Some(tm) if cli::locale::info().time_hard => {
                cli::timefmt::strftime_localized(out, &self.0, &tm, nsec)
            }
            Some(tm) => cli::timefmt::strftime(out, &self.0, &tm, nsec),
            None => out.extend_from_slice(secs.to_string().as_bytes()),
        }
    }
}
