//! One output line: size (or inode count), optional time, name — the
//! print phase, free of I/O so it can be tested alone.

use std::sync::atomic::{AtomicBool, Ordering};

use crate::plan::Plan;
use crate::tally::Dui;

/// Names are shown with what the terminal can't print as `?`, by GNU
/// find's rule in the user's locale (stdout is a terminal, and lines end
/// in newlines). Beyond GNU du, which writes names raw even to a terminal,
/// where a name can carry escape sequences.
static QMARK: AtomicBool = AtomicBool::new(false);

/// Sets whether names are '?'-masked (see [`QMARK`]).
pub fn set_qmark(on: bool) {
    QMARK.store(on, Ordering::Relaxed);
}

/// Whether `dui` passes `--threshold`.
pub fn shown(plan: &Plan, dui: &Dui) -> bool {
    plan.shown(if plan.inodes { dui.inodes } else { dui.bytes })
}

/// Appends `SIZE\t[TIME\t]NAME\n` (or `\0` with `-0`); with `--json`,
/// the line's object.
pub fn push(out: &mut Vec<u8>, plan: &Plan, dui: &Dui, name: &[u8]) {
    if plan.json.is_some() {
        return json(out, plan, dui, Some(name));
    }
    if plan.inodes {
        crate::units::format_count(plan.units, out, dui.inodes);
    } else {
        plan.units.format_into(out, dui.bytes);
    }
    out.push(b'\t');
    if let Some((_, fmt)) = &plan.time {
        fmt.format(out, dui.time);
        out.push(b'\t');
    }
    if QMARK.load(Ordering::Relaxed) && !plan.null {
        cli::quote::qmark_into(out, name);
    } else {
        out.extend_from_slice(name);
    }
    out.push(if plan.null { 0 } else { b'\n' });
}

/// The grand total's line (`-c`): `total` in the locale's words, or in
/// JSON an object marked `"total":true`, without a path.
pub fn push_total(out: &mut Vec<u8>, plan: &Plan, dui: &Dui) {
    if plan.json.is_some() {
        json(out, plan, dui, None);
    } else {
        push(out, plan, dui, cli::locale::tr(c"total"));
    }
}

/// One `--json` object and a newline (the sink frames them; see
/// `crate::sink`): the path, both byte counts whichever du counts, the
/// inodes, and with `--time` the time, named for its kind.
fn json(out: &mut Vec<u8>, plan: &Plan, dui: &Dui, name: Option<&[u8]>) {
    use crate::plan::TimeKind;
    let (disk, apparent) = if plan.apparent { (dui.alt, dui.bytes) } else { (dui.bytes, dui.alt) };
    let mut o = cli::json::Obj::new(out);
    match name {
        Some(n) => o.bytes("path", n),
        None => o.bool("total", true),
    };
    o.num("size", disk).num("apparent_size", apparent).num("inodes", dui.inodes);
    if let Some((kind, _)) = &plan.time {
        let key = match kind {
            TimeKind::Mtime => "mtime",
            TimeKind::Atime => "atime",
            TimeKind::Ctime => "ctime",
        };
        o.time(key, (dui.time != crate::tally::NO_TIME).then_some(dui.time));
    }
    o.close();
    out.push(b'\n');
}
