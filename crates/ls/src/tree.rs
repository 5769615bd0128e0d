//! `--tree`: each directory operand with everything below it, drawn with
//! branch lines, every listing option applying as it does to a listing:
//! the long format (`-l` and its kin) with its columns aligned over the
//! whole tree, the sort orders, `-a`/`-A`, colours, icons, hyperlinks,
//! `-F`'s marks, `-> target` after links (in every format, as tree(1) and
//! eza show it), `-d` for directories only. A depth limit comes from
//! `--tree=DEPTH` or `--level=DEPTH`.
//!
//! The text tree is gathered whole before it is printed, since the long
//! format's columns are measured over every row. Messages about what
//! could not be read are held until the tree is printed, so that on a
//! terminal they don't break its lines; a directory met again below
//! itself (a symlink followed under `-L`, a bind mount) is shown, marked,
//! and not entered again. With `--json` the tree streams as it is read:
//! directories hold their entries in `children` (`--json=lines`: one
//! object per line, each with its `depth`).

use cli::json::{Framing, Obj, Seq};
use ringio::DevIno;

use crate::entry::{Entry, FileType};
use crate::error::LsError;
use crate::print::{Flushing, TreeRows, TREE_BLANK, TREE_BRANCH, TREE_DOWN, TREE_LAST};
use crate::{join, json, Ls};

/// What is shown after a directory not entered because it is one of its
/// own ancestors (tree(1)'s words).
const LOOP_NOTE: &str = "[recursive, not followed]";

/// A directory read for the tree.
enum Read {
    /// Its entries, in the order shown, and its identity.
    Entries(Vec<Entry>, Option<DevIno>),
    /// It is one of its own ancestors: not listed.
    Loop,
    /// It could not be opened (reported).
    Failed(ringio::Errno),
}

/// The text tree being gathered: rows and their drawings, hyperlinks.
#[derive(Default)]
struct Rows {
    entries: Vec<Entry>,
    tree: TreeRows,
    links: Vec<Option<Vec<u8>>>,
}

impl Ls<'_> {
    /// Prints `files` (file operands), then each directory of `dirs`
    /// with its tree, `depth` levels deep at most.
    pub(crate) fn tree(&mut self, files: Vec<Entry>, dirs: Vec<Entry>, depth: Option<usize>) {
        if self.plan.json {
            self.json_tree(files, dirs, depth);
        } else {
            self.text_tree(files, dirs, depth);
        }
    }

    fn text_tree(&mut self, files: Vec<Entry>, dirs: Vec<Entry>, depth: Option<usize>) {
        let plan = self.plan;
        self.deferred = Some(Vec::new());
        let mut rows = Rows::default();
        for (e, link) in self.roots(files) {
            rows.add(e, b"", 0, link);
        }
        for (d, link) in self.roots(dirs) {
            let path = d.name.to_vec();
            rows.add(d, b"", 0, link);
            if depth == Some(0) {
                continue;
            }
            if let Read::Entries(children, id) = self.read(&path, true, &[]) {
                let mut ancestors: Vec<DevIno> = id.into_iter().collect();
                let mut prefix = Vec::new();
                self.text_level(&path, children, 1, depth, &mut prefix, &mut ancestors, &mut rows);
            }
        }
        let Rows { entries, tree, links } = rows;
        self.printer.tree = Some(tree);
        let links = if plan.hyperlink { links } else { Vec::new() };
        self.printer.entries(
            &mut Flushing { out: &mut self.out, flush: true },
            &entries,
            &links,
            &[],
        );
        self.printer.tree = None;
        self.out.maybe_flush();
        for e in self.deferred.take().unwrap_or_default() {
            self.out.flush();
            cli::msg::error_bytes(&[&e.message()]);
        }
        // The process ends next: the rows are left to the exit.
        std::mem::forget(entries);
    }

    /// The entries of one directory (at `level` below its root) as rows,
    /// each directory followed by its own, depth first.
    #[allow(clippy::too_many_arguments)]
    fn text_level(
        &mut self,
        path: &[u8],
        entries: Vec<Entry>,
        level: usize,
        depth: Option<usize>,
        prefix: &mut Vec<u8>,
        ancestors: &mut Vec<DevIno>,
        rows: &mut Rows,
    ) {
        let n = entries.len();
        let mut links = self.links(Some(path), &entries).into_iter();
        for (k, e) in entries.into_iter().enumerate() {
            let last = k + 1 == n;
            let descend = e.is_dir() && depth.is_none_or(|d| level < d);
            let sub = descend.then(|| join(path, &e.name));
            let mut drawing = prefix.clone();
            drawing.extend_from_slice(if last { TREE_LAST } else { TREE_BRANCH }.as_bytes());
            let row = rows.add(e, &drawing, level, links.next().flatten());
            let Some(sub) = sub else { continue };
            match self.read(&sub, false, ancestors) {
                Read::Loop => rows.tree.set_note(row, LOOP_NOTE),
                Read::Failed(_) => {}
                Read::Entries(children, id) => {
                    let len = prefix.len();
                    prefix.extend_from_slice(if last { TREE_BLANK } else { TREE_DOWN }.as_bytes());
                    ancestors.extend(id);
                    self.text_level(&sub, children, level + 1, depth, prefix, ancestors, rows);
                    if id.is_some() {
                        ancestors.pop();
                    }
                    prefix.truncate(len);
                }
            }
        }
    }

    /// Operands with their hyperlinks, and (a short tree shows where
    /// links lead) their targets.
    fn roots(&mut self, mut v: Vec<Entry>) -> Vec<(Entry, Option<Vec<u8>>)> {
        self.fill_targets(None, &mut v);
        let links = self.links(None, &v);
        let mut links = links.into_iter();
        v.into_iter().map(|e| (e, links.next().flatten())).collect()
    }

    /// Reads directory `path` for the tree: its entries sorted as the
    /// plan says, `.` and `..` left out, only directories under `-d`;
    /// `Loop` when it is one of `ancestors`.
    fn read(&mut self, path: &[u8], operand: bool, ancestors: &[DevIno]) -> Read {
        let plan = self.plan;
        let listing = match self.reader.read_dir(plan, path, true) {
            Ok(l) => l,
            Err(errno) => {
                self.report(LsError::OpenDir { path: path.to_vec(), errno, operand });
                return Read::Failed(errno);
            }
        };
        if listing.id.is_some_and(|id| ancestors.contains(&id)) {
            return Read::Loop;
        }
        self.report_entry_errors(path, &listing);
        if let Some(errno) = listing.read_error {
            self.report(LsError::ReadDir { path: path.to_vec(), errno, operand });
        }
        let id = listing.id;
        let mut entries = listing.entries;
        // Sorted with the dots (the lister's order counts them), then
        // without: the others keep their order.
        self.sort(&mut entries, listing.order);
        entries.retain(|e| {
            e.name[..] != *b"." && e.name[..] != *b".." && (!plan.tree_dirs_only || e.is_dir())
        });
        self.fill_targets(Some(path), &mut entries);
        Read::Entries(entries, id)
    }

    /// The targets of symbolic links, which the long format and JSON
    /// gather with the listing and a short tree reads here: the link
    /// (`-> target`), and what it leads to where colours or `-F` show it.
    fn fill_targets(&mut self, dir: Option<&[u8]>, entries: &mut [Entry]) {
        let plan = self.plan;
        if plan.long() || plan.json {
            return;
        }
        let wants_mode = plan.colors.is_some() || plan.indicator != crate::args::Indicator::None;
        for e in entries.iter_mut() {
            if e.file_type() != FileType::Link || e.target.is_some() {
                continue;
            }
            let path = match dir {
                Some(d) => join(d, &e.name),
                None => e.name.to_vec(),
            };
            let Ok(c) = std::ffi::CString::new(path.clone()) else { continue };
            let mut buf = Vec::new();
            match ringio::sys::readlinkat(libc::AT_FDCWD, &c, &mut buf) {
                Ok(_) => e.target = Some(buf.into_boxed_slice()),
                Err(errno) => {
                    let operand = dir.is_none();
                    let path = match dir {
                        Some(d) => crate::attach(d, &e.name),
                        None => path,
                    };
                    self.report(LsError::ReadLink { path, errno, operand });
                    continue;
                }
            }
            if wants_mode && e.target_mode.is_none() && !e.target_broken {
                let mut st = ringio::sys::statx_zeroed();
                let mask = libc::STATX_TYPE | libc::STATX_MODE;
                match ringio::sys::statx(libc::AT_FDCWD, &c, libc::AT_NO_AUTOMOUNT, mask, &mut st) {
                    Ok(()) => e.target_mode = Some(u32::from(st.stx_mode)),
                    Err(_) => e.target_broken = true,
                }
            }
        }
    }

    fn json_tree(&mut self, files: Vec<Entry>, dirs: Vec<Entry>, depth: Option<usize>) {
        let mut top = std::mem::replace(&mut self.json, Seq::new(Framing::Lines));
        for e in &files {
            self.json_entry(e, &e.name, 0, depth, None, &mut Vec::new(), &mut top);
        }
        for d in &dirs {
            let read = (depth != Some(0)).then(|| self.read(&d.name, true, &[]));
            let mut ancestors = Vec::new();
            self.json_entry(d, &d.name, 0, depth, read, &mut ancestors, &mut top);
        }
        self.json = top;
        self.out.maybe_flush();
    }

    /// Writes `e` (reached as `path`, `level` below its root) as the next
    /// object of `seq`, with `read`, its listing when it is a directory
    /// the tree enters, and then everything below it.
    #[allow(clippy::too_many_arguments)]
    fn json_entry(
        &mut self,
        e: &Entry,
        path: &[u8],
        level: usize,
        depth: Option<usize>,
        read: Option<Read>,
        ancestors: &mut Vec<DevIno>,
        seq: &mut Seq,
    ) {
        let plan = self.plan;
        let buf = self.out.buf();
        seq.item(buf);
        let mut o = Obj::new(buf);
        json::fields(&mut o, e, path, &mut self.printer.users);
        o.num("depth", level);
        let (children, id) = match read {
            None => (None, None),
            Some(Read::Loop) => {
                o.bool("loop", true);
                (None, None)
            }
            Some(Read::Failed(errno)) => {
                o.text("error", &errno.message());
                (None, None)
            }
            Some(Read::Entries(c, id)) => (Some(c), id),
        };
        let Some(children) = children else {
            o.close();
            seq.item_done(buf);
            return;
        };
        // Nested in an array; in JSON Lines each object is a line of its
        // own, its entries the lines after it.
        let mut inner = match plan.json_framing {
            Framing::Array => {
                o.open_children("children");
                Some(Seq::children())
            }
            Framing::Lines => {
                o.close();
                seq.item_done(buf);
                None
            }
        };
        ancestors.extend(id);
        for c in &children {
            let sub = join(path, &c.name);
            let read = (c.is_dir() && depth.is_none_or(|d| level + 1 < d))
                .then(|| self.read(&sub, false, ancestors));
            let s = inner.as_mut().unwrap_or(&mut *seq);
            self.json_entry(c, &sub, level + 1, depth, read, ancestors, s);
        }
        if id.is_some() {
            ancestors.pop();
        }
        if let Some(inner) = inner {
            inner.close_children(self.out.buf());
        }
        self.out.maybe_flush();
    }
}

impl Rows {
    /// Adds a row drawn with `drawing` (`levels` pieces); returns its index.
    fn add(&mut self, e: Entry, drawing: &[u8], levels: usize, link: Option<Vec<u8>>) -> usize {
        self.entries.push(e);
        self.tree.push(drawing, levels);
        self.links.push(link);
        self.entries.len() - 1
    }
}
