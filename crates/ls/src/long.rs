//! The long format (`-l`, `-g`, `-o`, `-n`): mode string, link count,
//! owner, group, size or device numbers, time, name, `-> target`, with
//! column widths computed over the whole listing as GNU does.

use cli::users::Users;

use crate::args::TimeKind;
use crate::entry::{Entry, FileType, Time};
use crate::name::{indicator_for, Painter, Quoted};
use crate::plan::Plan;

/// `drwxr-xr-x`-style permissions with setuid/setgid/sticky letters.
pub fn mode_string(out: &mut Vec<u8>, t: FileType, mode: u32) {
    out.push(t.letter());
    let bit = |m: u32, c: u8| if mode & m != 0 { c } else { b'-' };
    let special = |x: u32, s: u32, on: u8, off: u8| match (mode & x != 0, mode & s != 0) {
        (true, true) => on,
        (false, true) => off,
        (true, false) => b'x',
        (false, false) => b'-',
    };
    out.push(bit(0o400, b'r'));
    out.push(bit(0o200, b'w'));
    out.push(special(0o100, libc::S_ISUID, b's', b'S'));
    out.push(bit(0o040, b'r'));
    out.push(bit(0o020, b'w'));
    out.push(special(0o010, libc::S_ISGID, b's', b'S'));
    out.push(bit(0o004, b'r'));
    out.push(bit(0o002, b'w'));
    out.push(special(0o001, libc::S_ISVTX, b't', b'T'));
}

fn num(n: u64) -> Vec<u8> {
    n.to_string().into_bytes()
}

/// Field texts for one line, before padding.
struct Fields {
    inode: Vec<u8>,
    blocks: Vec<u8>,
    nlink: Vec<u8>,
    owner: Vec<u8>,
    owner_numeric: bool,
    group: Vec<u8>,
    group_numeric: bool,
    size: Vec<u8>,
    dev: Option<(Vec<u8>, Vec<u8>)>,
}

pub fn time_of(e: &Entry, kind: TimeKind) -> Option<Time> {
    let m = e.meta.as_ref()?;
    Some(match kind {
        TimeKind::Mtime => m.mtime,
        TimeKind::Atime => m.atime,
        TimeKind::Ctime => m.ctime,
        TimeKind::Birth => m.btime?,
    })
}

/// The width GNU pads unknown times to: the old format applied to the epoch.
fn expected_time_width(plan: &Plan) -> usize {
    let mut v = Vec::new();
    plan.time_style.format(&mut v, 0, 0, (i64::MAX / 2, 0));
    crate::name::display_width(&v)
}

/// Prints `entries` in the long format.
#[allow(clippy::too_many_arguments)]
pub fn print(
    plan: &Plan,
    out: &mut Vec<u8>,
    painter: &mut Painter,
    users: &mut Users,
    now: &mut Time,
    entries: &[Entry],
    names: &[Quoted],
    align: bool,
    links: &[Option<Vec<u8>>],
    extra: &[Entry],
    dired: &mut Vec<(usize, usize)>,
) {
    let any_acl = entries.iter().chain(extra).any(|e| e.acl);
    let mut fields: Vec<Fields> = Vec::with_capacity(entries.len() + extra.len());
    let (mut w_inode, mut w_blocks, mut w_nlink, mut w_owner, mut w_group, mut w_size) =
        (0, 0, 0, 0, 0, 0);
    let (mut w_major, mut w_minor) = (0, 0);
    for e in entries.iter().chain(extra) {
        let m = e.meta.as_ref();
        let q = || b"?".to_vec();
        let inode = if plan.inode {
            let i = e.inode();
            if i == 0 && m.is_none() {
                q()
            } else {
                num(i)
            }
        } else {
            Vec::new()
        };
        let blocks = if plan.size_blocks {
            m.map_or_else(q, |m| plan.block_size.format(m.blocks * 512).into_bytes())
        } else {
            Vec::new()
        };
        let nlink = m.map_or_else(q, |m| num(m.nlink));
        let mut owner_numeric = false;
        let owner = if plan.show_owner || plan.author {
            match m {
                None => q(),
                Some(m) => {
                    let mut v = Vec::new();
                    if plan.numeric {
                        owner_numeric = true;
                        v = num(m.uid as u64);
                    } else {
                        match users.user(m.uid) {
                            Some(n) => v.extend_from_slice(n),
                            None => {
                                owner_numeric = true;
                                v = num(m.uid as u64)
                            }
                        }
                    }
                    v
                }
            }
        } else {
            Vec::new()
        };
        let mut group_numeric = false;
        let group = if plan.show_group {
            match m {
                None => q(),
                Some(m) => {
                    let mut v = Vec::new();
                    if plan.numeric {
                        group_numeric = true;
                        v = num(m.gid as u64);
                    } else {
                        match users.group(m.gid) {
                            Some(n) => v.extend_from_slice(n),
                            None => {
                                group_numeric = true;
                                v = num(m.gid as u64)
                            }
                        }
                    }
                    v
                }
            }
        } else {
            Vec::new()
        };
        let mut dev = None;
        let mut size = Vec::new();
        match m {
            Some(m) if matches!(m.file_type(), FileType::Char | FileType::Block) => {
                let (a, b) = (num(m.rdev_major as u64), num(m.rdev_minor as u64));
                w_major = w_major.max(a.len());
                w_minor = w_minor.max(b.len());
                dev = Some((a, b));
            }
            Some(m) => size = plan.file_size.format(m.size).into_bytes(),
            None => size = q(),
        }
        w_inode = w_inode.max(inode.len());
        w_blocks = w_blocks.max(blocks.len());
        w_nlink = w_nlink.max(nlink.len());
        w_owner = w_owner.max(owner.len());
        w_group = w_group.max(group.len());
        w_size = w_size.max(size.len());
        fields.push(Fields {
            inode,
            blocks,
            nlink,
            owner,
            owner_numeric,
            group,
            group_numeric,
            size,
            dev,
        });
    }
    if w_major > 0 {
        w_size = w_size.max(w_major + 2 + w_minor);
    }
    let time_width = expected_time_width(plan);
    let pad_left = |out: &mut Vec<u8>, s: &[u8], w: usize| {
        out.resize(out.len() + w.saturating_sub(s.len()), b' ');
        out.extend_from_slice(s);
    };
    for (k, (e, f)) in entries.iter().zip(fields.iter()).enumerate() {
        let line_start = out.len();
        if plan.dired {
            out.extend_from_slice(b"  ");
        }
        painter.normal(plan, out);
        let line_start_vis = out.len();
        if plan.inode {
            pad_left(out, &f.inode, w_inode);
            out.push(b' ');
        }
        if plan.size_blocks {
            pad_left(out, &f.blocks, w_blocks);
            out.push(b' ');
        }
        match &e.meta {
            Some(m) => mode_string(out, m.file_type(), m.mode),
            None => {
                out.push(crate::entry::FileType::from_dtype(e.dtype).letter());
                out.extend_from_slice(b"?????????");
            }
        }
        if any_acl {
            out.push(if e.acl {
                b'+'
            } else if e.meta.is_none() {
                b'?'
            } else {
                b' '
            });
        }
        out.push(b' ');
        pad_left(out, &f.nlink, w_nlink);
        out.push(b' ');
        let left = |out: &mut Vec<u8>, s: &[u8], w: usize, numeric: bool| {
            if numeric {
                out.resize(out.len() + w.saturating_sub(s.len()), b' ');
                out.extend_from_slice(s);
            } else {
                out.extend_from_slice(s);
                out.resize(out.len() + w.saturating_sub(s.len()), b' ');
            }
            out.push(b' ');
        };
        if plan.show_owner {
            left(out, &f.owner, w_owner, f.owner_numeric);
        }
        if plan.show_group {
            left(out, &f.group, w_group, f.group_numeric);
        }
        if plan.author {
            left(out, &f.owner, w_owner, f.owner_numeric);
        }
        if plan.context {
            out.extend_from_slice(b"? ");
        }
        match &f.dev {
            Some((a, b)) => {
                let blanks = w_size.saturating_sub(w_major + 2 + w_minor);
                pad_left(out, a, w_major + blanks);
                out.extend_from_slice(b", ");
                pad_left(out, b, w_minor);
            }
            None => pad_left(out, &f.size, w_size),
        }
        out.push(b' ');
        match time_of(e, plan.time) {
            Some(t) => {
                if t > *now {
                    *now = ringio::sys::time::now();
                }
                let before = out.len();
                plan.time_style.format(out, t.0, t.1, *now);
                if out.len() == before && plan.time_style.old.is_empty() {
                    // An empty format prints nothing, then the separator.
                }
            }
            None => {
                let s: &[u8] = b"?";
                pad_left(out, s, time_width);
            }
        }
        out.push(b' ');
        let col = out.len() - line_start_vis;
        let _ = line_start;
        let name_start = out.len() + usize::from(align && !names[k].quoted);
        let w = painter.name(plan, out, e, &names[k], false, align, col, links[k].as_deref());
        if plan.dired {
            dired.push((name_start, out.len()));
        }
        if e.file_type() == FileType::Link {
            if let Some(t) = &e.target {
                out.extend_from_slice(b" -> ");
                let tq = crate::name::quote(plan, t, &plan.quoter);
                painter.name(plan, out, e, &tq, true, false, col + w + 4, links[k].as_deref());
                if let Some(c) = indicator_for(
                    plan.indicator,
                    e.target_mode.map_or(FileType::Unknown, FileType::from_mode),
                    e.target_mode,
                    true,
                ) {
                    out.push(c);
                }
            }
        } else if let Some(c) = crate::name::indicator(plan, e) {
            out.push(c);
        }
        out.push(plan.eol);
    }
}
