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
        // Headers and the blank lines between directories end in '\n'
        // even with --zero, as GNU's do.
        if !first {
            out.push(b'\n');
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
        out.push(b'\n');
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
                .map(|e| match e.meta {
                    Some(m) => m.ino.to_string().into_bytes(),
                    None => b"?".to_vec(),
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::args::parse;
    use crate::entry::Meta;
    use crate::plan::Env;

    fn plan(args: &[&str]) -> Plan {
        let a = parse(args.iter().map(std::ffi::OsString::from)).unwrap();
        Plan::new(&a, &Env::default()).unwrap().0
    }

    fn file(name: &str, mode: u32, size: u64, mtime: i64) -> Entry {
        let mut e = Entry::new(name.as_bytes(), 0, 0);
        e.meta = Some(Meta {
            mode,
            nlink: 1,
            uid: 0,
            gid: 0,
            size,
            blocks: size.div_ceil(4096) * 8,
            mtime: (mtime, 0),
            ..Meta::default()
        });
        e
    }

    fn render(p: &Plan, entries: &[Entry]) -> String {
        let users = Users::without_nss(b"root:x:0:0::/:/bin/sh\n", b"root:x:0:\n");
        // "Now" is 2024-03-01; times below are in UTC (TZ is unset in tests
        // only if the environment says so, so use full-iso-free formats).
        let mut pr = Printer::new(p, users, (1_709_251_200, 0));
        let mut out = Vec::new();
        let links = vec![None; entries.len()];
        pr.entries(&mut out, entries, &links, &[]);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn long_format_aligns_columns() {
        std::env::set_var("TZ", "UTC");
        ringio::sys::time::tzset();
        let p = plan(&["-l", "--time-style=long-iso"]);
        let entries = [
            file("a", libc::S_IFREG | 0o644, 5, 1_709_000_000),
            file("big", libc::S_IFREG | 0o4755, 123_456, 1_709_000_000),
            file("d", libc::S_IFDIR | 0o1777, 4096, 1_600_000_000),
        ];
        assert_eq!(
            render(&p, &entries),
            "-rw-r--r-- 1 root root      5 2024-02-27 02:13 a\n\
             -rwsr-xr-x 1 root root 123456 2024-02-27 02:13 big\n\
             drwxrwxrwt 1 root root   4096 2020-09-13 12:26 d\n"
        );
        let p = plan(&["-lgh", "--time-style=+%Y"]);
        assert_eq!(
            render(&p, &entries[..2]),
            "-rw-r--r-- 1 root    5 2024 a\n-rwsr-xr-x 1 root 121K 2024 big\n"
        );
    }

    #[test]
    fn columns_and_commas() {
        let names = ["one", "two", "three", "four", "five", "six", "seven"];
        let entries: Vec<Entry> =
            names.iter().map(|n| Entry::new(n.as_bytes(), ringio::dtype::REG, 1)).collect();
        let p = plan(&["-C", "-w", "20", "-U"]);
        assert_eq!(render(&p, &entries), "one    four  seven\ntwo    five\nthree  six\n");
        let p = plan(&["-x", "-w", "20", "-U"]);
        assert_eq!(render(&p, &entries), "one    two   three\nfour   five  six\nseven\n");
        let p = plan(&["-m", "-w", "20", "-U"]);
        assert_eq!(render(&p, &entries), "one, two, three,\nfour, five, six,\nseven\n");
        // Checked against GNU ls: tab stops every 4 columns.
        let p = plan(&["-C", "-w", "30", "-T", "4"]);
        let mut sorted = entries.clone();
        sorted.sort_by(|a, b| a.name.cmp(&b.name));
        assert_eq!(render(&p, &sorted), "five  one\t six\ttwo\nfour  seven  three\n");
    }

    #[test]
    fn quoting_padding_and_indicators() {
        let mut d = Entry::new(b"a dir", ringio::dtype::DIR, 1);
        d.meta = None;
        let f = Entry::new(b"plain", ringio::dtype::REG, 2);
        let p = plan(&["-x", "-w", "80", "--quoting-style=shell", "-p"]);
        assert_eq!(render(&p, &[d.clone(), f.clone()]), "'a dir'/   plain\n");
        // -i numbers come from stat; an entry whose stat failed shows '?'.
        let p = plan(&["-1", "-b", "-i"]);
        let mut f = f;
        f.meta = Some(Meta { mode: libc::S_IFREG | 0o644, ino: 77, ..Meta::default() });
        assert_eq!(render(&p, &[d, f]), " ? a\\ dir\n77 plain\n");
    }
}
