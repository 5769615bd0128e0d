//! What ls asks about each entry besides its name — the stat, and for
//! `-l` the ACL marker, the security context, a link's target and the
//! target's type — as one engine request per entry ([`ringio::Ask`]),
//! answered by one completion ([`ringio::About`]); and what each answer
//! means for the entry. How the questions are put (joined or apart,
//! attribute list or one query each, by name or through a descriptor) is
//! the engine's decision.

use ringio::{Ask, Completion, Errno, Statx};

use crate::args::Deref;
use crate::entry::{Entry, FileType, Meta};
use crate::plan::Plan;

/// What an entry-level token asks for (low bit of the token): a plain
/// stat (an operand; under `-L` a possible link, by its path from the
/// working directory), or the entry request.
pub(crate) const OP_STAT: u64 = 0;
pub(crate) const OP_ABOUT: u64 = 1;
const OP_BITS: u64 = 1;

pub(crate) fn tok(idx: usize, op: u64) -> u64 {
    ((idx as u64) << OP_BITS) | op
}

/// A token's entry index and operation.
pub(crate) fn untok(token: u64) -> (usize, u64) {
    ((token >> OP_BITS) as usize, token & ((1 << OP_BITS) - 1))
}

/// What the plan asks of an entry, stat'ed with `stat_flags` (none: its
/// stat is known or not needed). The questions beyond the stat are the
/// same for every type: the engine applies them to what the entry turns
/// out to be (no ACL of a link's own, its own context, a target only for
/// a link; under `-L` an entry is what it resolves to).
pub(crate) fn ask(plan: &Plan, mask: u32, stat_flags: Option<i32>) -> Ask {
    let long = plan.long() || plan.json;
    Ask {
        stat: stat_flags.map(|f| (f, mask)),
        follow: plan.deref == Deref::Always,
        acl: long,
        // GNU shows a file's SELinux context with -Z, and marks it `.` in -l.
        label: long || plan.context,
        link: long,
        target: plan.link_target_needed(),
    }
}

/// Whether an entry of known type `t` needs a request at all without its
/// stat (its follow-ups only).
pub(crate) fn followups_wanted(plan: &Plan, t: FileType) -> bool {
    let long = plan.long() || plan.json;
    let link = t == FileType::Link && plan.deref != Deref::Always;
    long || plan.context || (link && plan.link_target_needed())
}

/// A listing's entries and its stat errors, borrowed together.
pub(crate) struct EntriesMut<'a> {
    pub entries: &'a mut Vec<Entry>,
    pub errors: &'a mut Vec<(usize, Errno)>,
    /// Symbolic links whose target could not be read: (index, errno).
    pub link_errors: &'a mut Vec<(usize, Errno)>,
}

/// Records one entry-level completion.
pub(crate) fn store(list: EntriesMut<'_>, c: &mut Completion) {
    let (i, op) = untok(c.token);
    let Some(e) = list.entries.get_mut(i) else { return };
    // A request that asked no stat completes with no stat and no error.
    match c.stat() {
        Ok(st) => put_stat(e, list.errors, i, Ok(st)),
        Err(err) if c.result.is_err() || op == OP_STAT => put_stat(e, list.errors, i, Err(err)),
        Err(_) => {}
    }
    let Some(a) = c.about() else { return };
    e.acl |= a.acl;
    if let Some(l) = a.label.take() {
        e.scontext = Some(l.into_boxed_slice());
    }
    match a.link.take() {
        Some(Ok(t)) => e.target = Some(t.into_boxed_slice()),
        Some(Err(err)) => list.link_errors.push((i, err)),
        None => {}
    }
    match a.target {
        Some(Ok(mode)) => e.target_mode = Some(mode),
        Some(Err(_)) => e.target_broken = true,
        None => {}
    }
}

/// Records entry `i`'s stat, or the error GNU reports for it.
fn put_stat(e: &mut Entry, errors: &mut Vec<(usize, Errno)>, i: usize, r: Result<&Statx, Errno>) {
    match r {
        Ok(st) => {
            e.meta = Some(Meta::from_statx(st));
            e.stat_err = None;
        }
        Err(err) => {
            e.stat_err = Some(err);
            errors.push((i, err));
        }
    }
}
