//! The long format (`-l`, `-g`, `-o`, `-n`): mode string, link count,
//! owner, group, size or device numbers, time, name, `-> target`, with
//! column widths computed over the whole listing as GNU does.

use cli::users::Users;

use crate::args::TimeKind;
use cli::timefmt::Timestamp;

use crate::entry::{Entry, FileType};
use crate::name::{indicator_for, Painter, Quoted};
use crate::plan::Plan;
use crate::print::Sink;

/// A short field text kept inline (numbers, "?"), or a longer one on the
/// heap: the long format must not allocate per file.
#[derive(Clone)]
enum Text {
    Inline(u8, [u8; 23]),
    Heap(Box<[u8]>),
}

impl Default for Text {
    fn default() -> Text {
        Text::Inline(0, [0; 23])
    }
}

impl Text {
    fn from_bytes(b: &[u8]) -> Text {
        if b.len() <= 23 {
            let mut a = [0u8; 23];
            a[..b.len()].copy_from_slice(b);
            Text::Inline(b.len() as u8, a)
        } else {
            Text::Heap(b.into())
        }
    }

    fn num(mut n: u64) -> Text {
        let mut a = [0u8; 23];
        let mut i = 23;
        loop {
            i -= 1;
            a[i] = b'0' + (n % 10) as u8;
            n /= 10;
            if n == 0 {
                break;
            }
        }
        let len = 23 - i;
        a.copy_within(i.., 0);
        Text::Inline(len as u8, a)
    }

    fn unknown() -> Text {
        Text::from_bytes(b"?")
    }

    fn bytes(&self) -> &[u8] {
        match self {
            Text::Inline(n, a) => &a[..*n as usize],
            Text::Heap(b) => b,
        }
    }

    fn len(&self) -> usize {
        self.bytes().len()
    }

    /// Display columns: a size grouped with a multibyte separator (fr_FR's
    /// U+202F) is narrower than its bytes, and GNU pads sizes by columns.
    fn columns(&self) -> usize {
        cli::size::columns(self.bytes())
    }
}

/// Field texts for one line, before padding.
struct Fields {
    inode: Text,
    blocks: Text,
    nlink: Text,
    owner: Text,
    owner_numeric: bool,
    group: Text,
    group_numeric: bool,
    size: Text,
    dev: Option<(Text, Text)>,
}

fn size_text(f: cli::size::SizeFormat, bytes: u64) -> Text {
    if f == cli::size::SizeFormat::BYTES {
        Text::num(bytes)
    } else {
        let mut v = Vec::with_capacity(24);
        f.format_into(&mut v, bytes);
        Text::from_bytes(&v)
    }
}

fn id_text(users: &mut Users, id: u32, numeric: bool, group: bool) -> (Text, bool) {
    if numeric {
        return (Text::num(id as u64), true);
    }
    let name = if group { users.group(id) } else { users.user(id) };
    match name {
        Some(n) => (Text::from_bytes(n), false),
        None => (Text::num(id as u64), true),
    }
}

pub fn time_of(e: &Entry, kind: TimeKind) -> Option<Timestamp> {
    let m = e.meta.as_ref()?;
    Some(match kind {
        TimeKind::Mtime => m.mtime(),
        TimeKind::Atime => m.atime(),
        TimeKind::Ctime => m.ctime(),
        TimeKind::Birth => m.btime()?,
    })
}

/// The width GNU pads unknown times to: the old format applied to the epoch.
fn expected_time_width(plan: &Plan) -> usize {
    let mut v = Vec::new();
    plan.time_style.format(&mut v, Timestamp::default(), Timestamp::new(i64::MAX / 2, 0));
    crate::name::display_width(&v)
}

/// Prints `entries` in the long format.
/// The field texts of one entry's line.
fn fields_of(plan: &Plan, users: &mut Users, e: &Entry) -> Fields {
    let m = e.meta.as_ref();
    let inode = if plan.inode {
        m.map_or_else(Text::unknown, |m| Text::num(m.ino))
    } else {
        Text::default()
    };
    let blocks = if plan.size_blocks {
        m.map_or_else(Text::unknown, |m| size_text(plan.block_size, m.blocks * 512))
    } else {
        Text::default()
    };
    let nlink = m.map_or_else(Text::unknown, |m| Text::num(m.nlink));
    let (owner, owner_numeric) = match m {
        Some(m) if plan.show_owner || plan.author => id_text(users, m.uid, plan.numeric, false),
        None => (Text::unknown(), false),
        _ => (Text::default(), false),
    };
    let (group, group_numeric) = match m {
        Some(m) if plan.show_group => id_text(users, m.gid, plan.numeric, true),
        None => (Text::unknown(), false),
        _ => (Text::default(), false),
    };
    let mut dev = None;
    let mut size = Text::default();
    match m {
        Some(m) if matches!(m.file_type(), FileType::Char | FileType::Block) => {
            dev = Some((Text::num(m.rdev_major as u64), Text::num(m.rdev_minor as u64)));
        }
        Some(m) => size = size_text(plan.file_size, m.size),
        None => size = Text::unknown(),
    }
    Fields { inode, blocks, nlink, owner, owner_numeric, group, group_numeric, size, dev }
}

/// Prints `entries` in the long format: one pass for the column widths,
/// one that formats each line again and prints it (GNU's two passes; no
/// per-entry texts are kept, so a huge listing costs only its entries).
/// `align`: some name of the listing is quoted, so unquoted ones get a
/// leading space.
#[allow(clippy::too_many_arguments)]
pub fn print<S: Sink>(
    plan: &Plan,
    sink: &mut S,
    painter: &mut Painter,
    users: &mut Users,
    now: &mut Timestamp,
    entries: &[Entry],
    align: bool,
    links: &[Option<Vec<u8>>],
    extra: &[Entry],
    dired: &mut Vec<(i64, i64)>,
) {
    // GNU widens every mode by a marker column when any file has an ACL
    // (`+`) or a security context (`.`).
    let any_acl = entries.iter().chain(extra).any(|e| e.acl || e.labeled());
    let w_context = entries.iter().chain(extra).map(|e| context_of(e).len()).max().unwrap_or(1);
    let (mut w_inode, mut w_blocks, mut w_nlink, mut w_owner, mut w_group, mut w_size) =
        (0, 0, 0, 0, 0, 0);
    let (mut w_major, mut w_minor) = (0, 0);
    for e in entries.iter().chain(extra) {
        let f = fields_of(plan, users, e);
        if let Some((a, b)) = &f.dev {
            w_major = w_major.max(a.len());
            w_minor = w_minor.max(b.len());
        }
        w_inode = w_inode.max(f.inode.len());
        w_blocks = w_blocks.max(f.blocks.columns());
        w_nlink = w_nlink.max(f.nlink.len());
        w_owner = w_owner.max(f.owner.len());
        w_group = w_group.max(f.group.len());
        w_size = w_size.max(f.size.columns());
    }
    if w_major > 0 {
        w_size = w_size.max(w_major + 2 + w_minor);
    }
    let time_width = expected_time_width(plan);
    let ns_matters = plan.time_style.shows_nanoseconds();
    let mut cached: (Option<(i64, u32, bool)>, Vec<u8>) = (None, Vec::with_capacity(64));
    let pad_left = |out: &mut Vec<u8>, s: &[u8], w: usize| {
        out.resize(out.len() + w.saturating_sub(s.len()), b' ');
        out.extend_from_slice(s);
    };
    let pad_cols = |out: &mut Vec<u8>, t: &Text, w: usize| {
        out.resize(out.len() + w.saturating_sub(t.columns()), b' ');
        out.extend_from_slice(t.bytes());
    };
    let mut name = Quoted::default();
    for (k, e) in entries.iter().enumerate() {
        let f = &fields_of(plan, users, e);
        let link = links.get(k).and_then(|l| l.as_deref());
        let out = sink.buf();
        // GNU sets the normal colour before the dired indent.
        painter.normal(plan, out);
        if plan.dired {
            out.extend_from_slice(b"  ");
        }
        // Where GNU's clear-to-end-of-line rule counts the name's column
        // from: the start of the line, or, when owner, group, author or
        // context columns are printed, their end (GNU writes its line
        // buffer out before them and counts only what it holds after).
        let mut line_start_vis = out.len();
        if plan.inode {
            pad_left(out, f.inode.bytes(), w_inode);
            out.push(b' ');
        }
        if plan.size_blocks {
            pad_cols(out, &f.blocks, w_blocks);
            out.push(b' ');
        }
        match &e.meta {
            Some(m) => cli::mode::mode_string(out, m.mode),
            None => {
                out.push(cli::mode::dtype_letter(e.dtype));
                out.extend_from_slice(b"?????????");
            }
        }
        if any_acl {
            out.push(if e.acl {
                b'+'
            } else if e.labeled() {
                b'.'
            } else if e.meta.is_none() {
                b'?'
            } else {
                b' '
            });
        }
        out.push(b' ');
        pad_left(out, f.nlink.bytes(), w_nlink);
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
            left(out, f.owner.bytes(), w_owner, f.owner_numeric);
        }
        if plan.show_group {
            left(out, f.group.bytes(), w_group, f.group_numeric);
        }
        if plan.author {
            left(out, f.owner.bytes(), w_owner, f.owner_numeric);
        }
        if plan.context {
            let c = context_of(e);
            out.extend_from_slice(c);
            out.resize(out.len() + w_context.saturating_sub(c.len()), b' ');
            out.push(b' ');
        }
        if plan.show_owner || plan.show_group || plan.author || plan.context {
            line_start_vis = out.len();
        }
        match &f.dev {
            Some((a, b)) => {
                let blanks = w_size.saturating_sub(w_major + 2 + w_minor);
                pad_left(out, a.bytes(), w_major + blanks);
                out.extend_from_slice(b", ");
                pad_left(out, b.bytes(), w_minor);
            }
            None => pad_cols(out, &f.size, w_size),
        }
        out.push(b' ');
        match time_of(e, plan.time) {
            Some(t) => {
                if t > *now {
                    *now = Timestamp::now();
                }
                // Files made together share their second: format once.
                let recent = cli::timefmt::is_recent(t, *now);
                let key = (t.secs, if ns_matters { t.nsec } else { 0 }, recent);
                if cached.0 != Some(key) {
                    cached.1.clear();
                    plan.time_style.format(&mut cached.1, t, *now);
                    cached.0 = Some(key);
                }
                out.extend_from_slice(&cached.1);
            }
            None => {
                let s: &[u8] = b"?";
                pad_left(out, s, time_width);
            }
        }
        out.push(b' ');
        let col = out.len() - line_start_vis;
        crate::name::quote_into(plan, &e.name, &plan.quoter, &mut name);
        // The name's span as GNU's dired counts: without the colour and
        // hyperlink bytes, after the alignment space (and our icon).
        let icon = if plan.icons { crate::icons::icon(e).len() + 1 } else { 0 };
        let name_start =
            (out.len() + usize::from(align && !name.quoted) + icon) as i64 - painter.escapes as i64;
        let w = painter.name(plan, out, e, &name, false, align, col, link);
        if plan.dired {
            dired.push((name_start, name_start + name.bytes.len() as i64));
        }
        if e.file_type() == FileType::Link {
            if let Some(t) = &e.target {
                out.extend_from_slice(b" -> ");
                let tq = crate::name::quote(plan, t, &plan.quoter);
                painter.name(plan, out, e, &tq, true, false, col + w + 4, link);
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
        sink.line_done();
    }
}

/// The security context as `-Z` shows it: `?` when there is none.
pub fn context_of(e: &Entry) -> &[u8] {
    match e.scontext.as_deref() {
        Some(c) if e.labeled() => c,
        _ => b"?",
    }
}
