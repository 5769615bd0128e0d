//! Drawing the view: a header, the shown directory's path, one row per
//! entry (size in du's `-h` units, share of the directory, a bar, a flag,
//! the name), a status line; and the windows over it (help, info, the
//! deletion question, messages). Narrower terminals drop the bar, then
//! the share; names are cut by display width, so wide and combining
//! characters keep the columns.

use ratatui::layout::{Constraint, Flex, Layout, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph};
use ratatui::Frame;
use unicode_width::UnicodeWidthChar;

use crate::app::{App, Popup, SizeMode, SortKey};
use crate::tree::{flag, Node};

/// A name as the view shows it: as it is when every character is
/// printable here, else in ls's `$'…'` form (as ls writes names to a
/// terminal), so no name can move the cursor or change colours.
pub fn safe_name(name: &[u8]) -> String {
    let q = cli::quote::Quoter::new(cli::quote::Style::ShellEscape).quote(name);
    if q.windows(2).any(|w| w == b"$'") {
        String::from_utf8_lossy(&q).into_owned()
    } else {
        String::from_utf8_lossy(name).into_owned()
    }
}

/// `n` bytes in du's `-h` (or `--si`) units, in the locale's numbers.
pub fn human(n: u64, si: bool) -> String {
    cli::size::SizeFormat::human(si).format(n)
}

/// Digits grouped by thousands (counts are easier read so).
pub fn count(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// `s` cut to `width` columns, `~` marking a cut.
pub fn fit(s: &str, width: usize) -> String {
    let total: usize = s.chars().map(|c| c.width().unwrap_or(0)).sum();
    if total <= width {
        return s.to_string();
    }
    let mut out = String::new();
    let mut w = 0;
    for c in s.chars() {
        let cw = c.width().unwrap_or(0);
        if w + cw + 1 > width {
            break;
        }
        w += cw;
        out.push(c);
    }
    if width > 0 {
        out.push('~');
    }
    out
}

fn flag_char(n: &Node) -> char {
    if n.has(flag::READ_ERROR) {
        '!'
    } else if n.has(flag::ERROR_BELOW) {
        '.'
    } else if n.has(flag::EXCLUDED) {
        '<'
    } else if n.has(flag::OTHER_FS) {
        '>'
    } else if n.has(flag::LINK_DUP) {
        'H'
    } else if n.has(flag::NOT_REG) {
        '@'
    } else {
        ' '
    }
}

impl App {
    fn shown(&self, n: u64) -> String {
        match self.mode {
            SizeMode::Items => count(n),
            _ => human(n, self.cfg.si),
        }
    }

    /// One row's text (without the selection's highlight).
    pub fn row_text(&self, i: crate::tree::Idx, width: usize) -> String {
        let n = self.tree.node(i);
        let size = self.size_of(n);
        let total = self.size_of(self.tree.node(self.dir()));
        let share = if total == 0 { 0.0 } else { size as f64 * 100.0 / total as f64 };
        let mut s = format!(" {:>6}", self.shown(size));
        if width >= 25 {
            s.push_str(&format!(" {:>5.1}%", share.min(100.0)));
        }
        if width >= 40 {
            let filled = ((share / 10.0).round() as usize).min(10);
            s.push_str(" [");
            s.push_str(&"#".repeat(filled));
            s.push_str(&" ".repeat(10 - filled));
            s.push(']');
        }
        s.push(' ');
        s.push(flag_char(n));
        let mut name = safe_name(self.tree.name(i));
        if n.is_dir() {
            name.push('/');
        }
        let used = s.chars().count();
        s.push_str(&fit(&name, width.saturating_sub(used)));
        s
    }

    fn sort_words(&self) -> String {
        let k = match self.sort {
            SortKey::Size => match self.mode {
                SizeMode::Disk => "disk usage",
                SizeMode::Apparent => "apparent size",
                SizeMode::Items => "entries",
            },
            SortKey::Name => "name",
            SortKey::Items => "entries",
            SortKey::Mtime => "mtime",
        };
        format!("{k} {}", if self.desc { "desc" } else { "asc" })
    }

    /// The status line: the shown directory's totals, or what just happened.
    pub fn status_text(&self) -> String {
        if !self.status.is_empty() {
            return self.status.clone();
        }
        let d = self.tree.node(self.dir());
        let mut s = format!(
            "Disk usage: {}  Apparent size: {}  Items: {}  Sort: {}",
            human(d.dsize, self.cfg.si),
            human(d.asize, self.cfg.si),
            count(d.items),
            self.sort_words()
        );
        if self.cfg.read_only || self.cfg.root_path.is_none() {
            s.push_str("  [read-only]");
        }
        s
    }

    /// Draws everything.
    pub fn draw(&mut self, f: &mut Frame) {
        let area = f.area();
        let width = area.width as usize;
        let [head, path, list, foot] = Layout::vertical([
            Constraint::Length(1),
            Constraint::Length(1),
            Constraint::Min(1),
            Constraint::Length(1),
        ])
        .areas(area);
        let rev = Style::default().add_modifier(Modifier::REVERSED);
        let title = format!(" ldu {} --browse   ? help, q quit", env!("CARGO_PKG_VERSION"));
        f.render_widget(Paragraph::new(fit(&title, width)).style(rev), head);
        let p = format!("--- {} ", safe_name(&self.full_path(self.dir())));
        let dashes = width.saturating_sub(unicode_width::UnicodeWidthStr::width(p.as_str()));
        f.render_widget(Paragraph::new(fit(&(p + &"-".repeat(dashes)), width)), path);
        self.page = list.height as usize;
        // Keep the selection on screen after a resize.
        if self.cursor >= self.top + self.page.max(1) {
            self.top = self.cursor + 1 - self.page.max(1);
        }
        let lines: Vec<Line> = if self.rows.is_empty() {
            vec![Line::from(" (empty directory)")]
        } else {
            self.rows
                .iter()
                .enumerate()
                .skip(self.top)
                .take(self.page)
                .map(|(k, &i)| {
                    let t = self.row_text(i, width);
                    if k == self.cursor {
                        let pad =
                            width.saturating_sub(unicode_width::UnicodeWidthStr::width(t.as_str()));
                        Line::from(Span::styled(t + &" ".repeat(pad), rev))
                    } else {
                        Line::from(t)
                    }
                })
                .collect()
        };
        f.render_widget(Paragraph::new(lines), list);
        f.render_widget(Paragraph::new(fit(&self.status_text(), width)).style(rev), foot);
        self.draw_popup(f, area);
    }

    fn draw_popup(&self, f: &mut Frame, area: Rect) {
        let (title, lines): (String, Vec<String>) = match &self.popup {
            Popup::None => return,
            Popup::Help => ("Keys".into(), HELP.iter().map(|s| s.to_string()).collect()),
            Popup::Info(i) => ("Info".into(), self.info_lines(*i)),
            Popup::Confirm(i) => {
                let n = self.tree.node(*i);
                let what = if n.is_dir() {
                    format!(
                        "the directory and its {} entries ({})",
                        count(n.items.saturating_sub(1)),
                        human(n.dsize, self.cfg.si)
                    )
                } else {
                    format!("the file ({})", human(n.dsize, self.cfg.si))
                };
                (
                    "Delete?".into(),
                    vec![
                        format!("Delete {}", safe_name(&self.full_path(*i))),
                        what,
                        String::new(),
                        "y: delete      any other key: keep".into(),
                    ],
                )
            }
            Popup::Message(t, l) => (t.clone(), l.clone()),
        };
        // Over the view, which stays in sight around it.
        centred_box(f, area, Some(title), &lines, false);
    }

    fn info_lines(&self, i: crate::tree::Idx) -> Vec<String> {
        let n = self.tree.node(i);
        let si = self.cfg.si;
        let kind = if n.is_dir() {
            "directory"
        } else if n.has(flag::NOT_REG) {
            "other (symlink, device, FIFO or socket)"
        } else {
            "file"
        };
        let mut v = vec![
            format!("Path:          {}", safe_name(&self.full_path(i))),
            format!("Type:          {kind}"),
            format!("Disk usage:    {} ({} bytes)", human(n.dsize, si), count(n.dsize)),
            format!("Apparent size: {} ({} bytes)", human(n.asize, si), count(n.asize)),
        ];
        if n.is_dir() {
            v.push(format!("Entries:       {}", count(n.items)));
        }
        if !n.is_dir() {
            v.push(format!("Hard links:    {}", self.tree.nlink(i)));
        }
        v.push(format!("Inode, device: {}, {}", n.ino, self.tree.dev(i)));
        v.push(format!("Modified:      {}", time(n.mtime as i64)));
        if n.has(flag::LINK_DUP) {
            v.push("Counted:       no, another link to it was met first".into());
        }
        if n.has(flag::EXCLUDED) {
            v.push("Counted:       no, excluded (--exclude, -X)".into());
        }
        if n.has(flag::OTHER_FS) {
            v.push("Counted:       no, on another file system (-x)".into());
        }
        if n.has(flag::READ_ERROR) {
            v.push(if n.is_dir() {
                "Read error:    its listing could not be read: it may be bigger".into()
            } else {
                "Read error:    it could not be stat'ed: its size is unknown".into()
            });
        }
        let below = self.errors_under(i) - u64::from(n.has(flag::READ_ERROR));
        if below > 0 {
            v.push(format!("Errors under:  {} entries could not be read", count(below)));
        }
        v
    }
}

fn time(secs: i64) -> String {
    match libcw::time::localtime(secs) {
        Some(tm) => {
            let mut out = Vec::new();
            cli::timefmt::strftime(&mut out, b"%Y-%m-%d %H:%M:%S", &tm, 0);
            String::from_utf8_lossy(&out).into_owned()
        }
        None => secs.to_string(),
    }
}

/// The help window.
pub const HELP: &[&str] = &[
    "up, k / down, j   select      PgUp PgDn Home End",
    "right, l, Enter   open the selected directory",
    "left, h, Bksp     back to the parent directory",
    "s / n / C / M     sort by size / name / entries / mtime",
    "                  (again: reverse the order)",
    "a                 disk usage <-> apparent size",
    "c                 show entry counts",
    "i                 information on the selection",
    "d                 delete the selection (asks first)",
    "r                 rescan the selected directory",
    "q                 quit      Ctrl-Z  suspend",
    "",
    "flags: ! unreadable  . unreadable below  < excluded",
    "       > other file system  H link counted elsewhere",
    "       @ not a file or directory",
];

/// The scan's progress window.
pub fn draw_scanning(f: &mut Frame, what: &str, counts: (u64, u64, u64), si: bool) {
    let area = f.area();
    let (entries, bytes, errors) = counts;
    let lines = [
        format!("Scanning {what}"),
        format!("Entries: {}", count(entries)),
        format!("Size:    {}", human(bytes, si)),
        format!("Errors:  {}", count(errors)),
        String::new(),
        "q: stop".to_string(),
    ];
    centred_box(f, area, None, &lines, true);
}

/// A framed box of `lines` (and `title`) in the middle of `area`, as wide
/// as they need and the area allows; `clear_area` blanks the whole area
/// behind it, else only the box's own place.
fn centred_box(
    f: &mut Frame,
    area: Rect,
    title: Option<String>,
    lines: &[String],
    clear_area: bool,
) {
    let title_w = title.as_ref().map_or(0, |t| t.len() + 4);
    let w = (lines.iter().map(|l| l.chars().count()).max().unwrap_or(0) + 4)
        .max(title_w)
        .min(area.width as usize) as u16;
    let h = (lines.len() as u16 + 2).min(area.height);
    let [r] = Layout::horizontal([Constraint::Length(w)]).flex(Flex::Center).areas(area);
    let [r] = Layout::vertical([Constraint::Length(h)]).flex(Flex::Center).areas(r);
    f.render_widget(Clear, if clear_area { area } else { r });
    let inner = w.saturating_sub(2) as usize;
    let body: Vec<Line> = lines.iter().map(|l| Line::from(fit(l, inner))).collect();
    let mut block = Block::default().borders(Borders::ALL);
    if let Some(t) = title {
        block = block.title(t);
    }
    f.render_widget(Paragraph::new(body).block(block), r);
}
