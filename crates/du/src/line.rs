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

/// Appends `SIZE\t[TIME\t]NAME\n` (or `\0` with `-0`).
pub fn push(out: &mut Vec<u8>, plan: &Plan, dui: &Dui, name: &[u8]) {
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
