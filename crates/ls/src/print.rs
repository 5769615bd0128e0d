//! The print phase: formats gathered entries into the output buffer.
//! Pure formatting (plus user-name lookups through the cache), so every
//! layout is unit-testable without a file system.

use cli::users::Users;

use crate::args::{Format, Indicator};
use crate::columns::{fit, indent};
use crate::entry::{Entry, Time};
use crate::name::{indicator, quote, Painter, Quoted};
use crate::plan::Plan;

pub struct Printer<'a> {
    pub plan: &'a Plan,
    pub users: Users,
    pub now: Time,
    pub painter: Painter,
    /// `--dired`: (start, end) of each name printed, relative to the
    /// output buffer; the caller turns them into stream offsets.
    pub dired: Vec<(usize, usize)>,
    /// `--dired`: the same for directory headers.
    pub subdired: Vec<(usize, usize)>,
}

impl<'a> Printer<'a> {
    pub fn new(plan: &'a Plan, users: Users, now: Time) -> Printer<'a> {
        Printer {
            plan,
            users,
            now,
            painter: Painter::default(),
            dired: Vec::new(),
            subdired: Vec::new(),
        }
    }

    /// The `total N` line of a directory listing.
    pub fn total(&mut self, out: &mut Vec<u8>, entries: &[Entry]) {
        let blocks: u64 = entries.iter().filter_map(|e| e.meta.map(|m| m.blocks)).sum();
        if self.plan.dired {
            out.extend_from_slice(b"  ");
        }
        out.extend_from_slice(b"total ");
        out.extend_from_slice(self.plan.block_size.format(blocks * 512).as_bytes());
        out.push(self.plan.eol);
    }

    /// A directory header (`dir:`), preceded by a blank line unless first.
    pub fn header(&mut self, out: &mut Vec<u8>, name: &[u8], first: bool, link: Option<&[u8]>) {
        if !first {
            out.push(self.plan.eol);
        }
        let q = quote(self.plan, name, &self.plan.dir_quoter);
        if self.plan.dired {
            out.extend_from_slice(b"  ");
            self.subdired.push((out.len(), out.len() + q.bytes.len()));
        }
        match link {
            Some(path) => {
                let e = Entry::new(name, 0, 0);
                let mut p = Painter { used_color: true, hostname: self.painter.hostname.clone() };
                // Headers are never coloured; only the hyperlink wraps them.
                let plan_nc = Plan { colors: None, ..self.plan.clone() };
                p.name(&plan_nc, out, &e, &q, false, false, 0, Some(path));
            }
            None => out.extend_from_slice(&q.bytes),
        }
        out.push(b':');
        out.push(self.plan.eol);
    }

    /// Prints a sorted listing in the plan's format. `links[i]` is the
    /// absolute path for --hyperlink.
    /// `extra` are entries not printed here that still count for column
    /// widths (GNU sizes the command-line file list with the directory
    /// operands included).
    pub fn entries(
        &mut self,
        out: &mut Vec<u8>,
        entries: &[Entry],
        links: &[Option<Vec<u8>>],
        extra: &[Entry],
    ) {
        let plan = self.plan;
        let names: Vec<Quoted> =
            entries.iter().map(|e| quote(plan, &e.name, &plan.quoter)).collect();
        let align = matches!(
            plan.quoter.style,
            cli::quote::Style::Shell | cli::quote::Style::ShellEscape | cli::quote::Style::CMaybe
        ) && (plan.format == Format::Long
            || (matches!(plan.format, Format::Columns | Format::Across) && plan.width > 0));
        let some_quoted = align
            && (names.iter().any(|q| q.quoted)
                || extra.iter().any(|e| quote(plan, &e.name, &plan.quoter).quoted));
        let pads: Vec<bool> = names.iter().map(|q| some_quoted && !q.quoted).collect();
        if plan.format == Format::Long {
            crate::long::print(
                plan,
                out,
                &mut self.painter,
                &mut self.users,
                &mut self.now,
                entries,
                &names,
                some_quoted,
                links,
                extra,
                &mut self.dired,
            );
            return;
        }
        // Frills: inode and block columns, widths over the listing.
        let inodes: Vec<Vec<u8>> = if plan.inode {
            entries
                .iter()
                .map(|e| {
                    let i = e.inode();
                    if i == 0 {
                        b"?".to_vec()
                    } else {
                        i.to_string().into_bytes()
                    }
                })
                .collect()
        } else {
            Vec::new()
        };
        let blocks: Vec<Vec<u8>> = if plan.size_blocks {
            entries
                .iter()
                .map(|e| match e.meta {
                    Some(m) => plan.block_size.format(m.blocks * 512).into_bytes(),
                    None => b"?".to_vec(),
                })
                .collect()
        } else {
            Vec::new()
        };
        let commas = plan.format == Format::Commas;
        let w_inode = if commas { 0 } else { inodes.iter().map(Vec::len).max().unwrap_or(0) };
        let w_blocks = if commas { 0 } else { blocks.iter().map(Vec::len).max().unwrap_or(0) };
        let inds: Vec<Option<u8>> = entries.iter().map(|e| indicator(plan, e)).collect();
        let widths: Vec<usize> = (0..entries.len())
            .map(|i| {
                let mut w = names[i].width + usize::from(pads[i]);
                if plan.icons {
                    w += 2;
                }
                if plan.inode {
                    w += 1 + if commas { inodes[i].len() } else { w_inode };
                }
                if plan.size_blocks {
                    w += 1 + if commas { blocks[i].len() } else { w_blocks };
                }
                if plan.context {
                    w += 2;
                }
                if plan.indicator != Indicator::None && inds[i].is_some() {
                    w += 1;
                }
                w
            })
            .collect();
        let frills = |this: &mut Self, out: &mut Vec<u8>, i: usize, pos: usize| -> usize {
            this.painter.normal(plan, out);
            let pad_left = |out: &mut Vec<u8>, s: &[u8], w: usize| {
                out.resize(out.len() + w.saturating_sub(s.len()), b' ');
                out.extend_from_slice(s);
                out.push(b' ');
            };
            let mut col = pos;
            if plan.inode {
                pad_left(out, &inodes[i], w_inode);
                col += 1 + w_inode.max(inodes[i].len());
            }
            if plan.size_blocks {
                pad_left(out, &blocks[i], w_blocks);
                col += 1 + w_blocks.max(blocks[i].len());
            }
            if plan.context {
                out.extend_from_slice(b"? ");
                col += 2;
            }
            this.painter.name(
                plan,
                out,
                &entries[i],
                &names[i],
                false,
                some_quoted,
                col,
                links[i].as_deref(),
            );
            if let Some(c) = inds[i] {
                out.push(c);
            }
            widths[i]
        };
        let n = entries.len();
        match plan.format {
            Format::OnePerLine => {
                for i in 0..n {
                    frills(self, out, i, 0);
                    out.push(plan.eol);
                }
            }
            Format::Commas | Format::Columns | Format::Across
                if plan.format == Format::Commas || plan.width == 0 =>
            {
                // -m, and -C/-x with no width limit: GNU's separator layout.
                let sep_byte = if plan.format == Format::Commas { b',' } else { b' ' };
                let line = plan.width;
                let mut pos = 0usize;
                for (i, &w) in widths.iter().enumerate() {
                    let len = if line > 0 { w } else { 0 };
                    if i != 0 {
                        let sep;
                        if line == 0 || pos + 2 + len < line {
                            pos += 2;
                            sep = b' ';
                        } else {
                            pos = 0;
                            sep = plan.eol;
                        }
                        out.push(sep_byte);
                        out.push(sep);
                    }
                    pos += frills(self, out, i, pos);
                }
                if n > 0 {
                    out.push(plan.eol);
                }
            }
            Format::Columns => {
                if n == 0 {
                    return;
                }
                let cols = fit(&widths, plan.width, true);
                let ncols = cols.len();
                let rows = n.div_ceil(ncols);
                for row in 0..rows {
                    let mut col = 0;
                    let mut k = row;
                    let mut pos = 0;
                    loop {
                        let w = frills(self, out, k, pos);
                        let max = cols[col];
                        col += 1;
                        k += rows;
                        if k >= n {
                            break;
                        }
                        indent(out, pos + w, pos + max, plan.tabsize);
                        pos += max;
                    }
                    out.push(plan.eol);
                }
            }
            Format::Across => {
                if n == 0 {
                    return;
                }
                let cols = fit(&widths, plan.width, false);
                let ncols = cols.len();
                let mut pos = 0;
                let mut w = frills(self, out, 0, 0);
                let mut max = cols[0];
                for k in 1..n {
                    let col = k % ncols;
                    if col == 0 {
                        out.push(plan.eol);
                        pos = 0;
                    } else {
                        indent(out, pos + w, pos + max, plan.tabsize);
                        pos += max;
                    }
                    w = frills(self, out, k, pos);
                    max = cols[col];
                }
                out.push(plan.eol);
            }
            Format::Long | Format::Commas => unreachable!("handled above"),
        }
    }
}
