//! The view's state and its keys, apart from the terminal: which
//! directory is shown, in which order, what is selected, which window is
//! open. Keys are ncdu's where ncdu has one.

use crate::tree::{flag, Idx, Node, Tree};

/// What the size column counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SizeMode {
    /// Disk usage (du's default).
    Disk,
    /// Apparent size (`--apparent-size`, `-b`).
    Apparent,
    /// Entries (`--inodes`).
    Items,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SortKey {
    Size,
    Name,
    Items,
    Mtime,
}

/// What the view was started with.
#[derive(Clone, Debug)]
pub struct Config {
    /// No deletion (`--read-only`, and always for an imported scan).
    pub read_only: bool,
    /// `--si`: powers of 1000.
    pub si: bool,
    pub mode: SizeMode,
    /// The operand as walked, for deletion and rescans; `None` for an
    /// imported scan (which is never touched on disk).
    pub root_path: Option<Vec<u8>>,
}

/// A window over the list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Popup {
    None,
    Help,
    Info(Idx),
    /// Delete this entry? (y confirms, anything else declines)
    Confirm(Idx),
    /// Lines to read, any key closes.
    Message(String, Vec<String>),
}

/// What a key asks of the caller (who owns the engine and the scanner).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Action {
    None,
    Quit,
    /// Ctrl-C: end as SIGINT would.
    Interrupt,
    /// Ctrl-Z.
    Suspend,
    /// Confirmed: delete this entry of the shown directory.
    Delete(Idx),
    /// Scan this directory again.
    Rescan(Idx),
}

/// A key, as the view reads it (the terminal layer translates).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Key {
    Char(char),
    Ctrl(char),
    Up,
    Down,
    Left,
    Right,
    PageUp,
    PageDown,
    Home,
    End,
    Enter,
    Backspace,
    Esc,
}

pub struct App {
    pub tree: Tree,
    pub cfg: Config,
    /// The directories from the root to the one shown.
    pub path: Vec<Idx>,
    /// The shown directory's entries, in the current order.
    pub rows: Vec<Idx>,
    pub cursor: usize,
    /// The first row on screen.
    pub top: usize,
    pub sort: SortKey,
    pub desc: bool,
    pub mode: SizeMode,
    pub popup: Popup,
    /// A line for the status bar (what the last action did).
    pub status: String,
    /// Rows the list has room for (set by the drawing).
    pub page: usize,
}

impl App {
    pub fn new(tree: Tree, cfg: Config) -> App {
        let root = tree.root();
        let mode = cfg.mode;
        let mut a = App {
            tree,
            cfg,
            path: vec![root],
            rows: Vec::new(),
            cursor: 0,
            top: 0,
            sort: SortKey::Size,
            desc: true,
            mode,
            popup: Popup::None,
            status: String::new(),
            page: 20,
        };
        a.refresh();
        a
    }

    /// The shown directory.
    pub fn dir(&self) -> Idx {
        *self.path.last().expect("the root is always on the path")
    }

    pub fn selected(&self) -> Option<Idx> {
        self.rows.get(self.cursor).copied()
    }

    /// What the size column shows for `n`.
    pub fn size_of(&self, n: &Node) -> u64 {
        match self.mode {
            SizeMode::Disk => n.dsize,
            SizeMode::Apparent => n.asize,
            SizeMode::Items => n.items,
        }
    }

    /// Re-reads and re-sorts the shown directory, keeping the selection.
    pub fn refresh(&mut self) {
        let keep = self.selected();
        let dir = self.dir();
        let mut rows: Vec<Idx> = self.tree.kids(dir).collect();
        let t = &self.tree;
        let key = |i: &Idx| -> u64 {
            let n = t.node(*i);
            match self.sort {
                SortKey::Size => self.size_of(n),
                SortKey::Items => n.items,
                SortKey::Mtime => n.mtime as u64,
                SortKey::Name => 0,
            }
        };
        if self.sort == SortKey::Name {
            rows.sort_by(|a, b| t.name(*a).cmp(t.name(*b)));
            if self.desc {
                rows.reverse();
            }
        } else {
            // Ties by name, always ascending, so the order is stable.
            rows.sort_by(|a, b| {
                let o = key(a).cmp(&key(b));
                let o = if self.desc { o.reverse() } else { o };
                o.then_with(|| t.name(*a).cmp(t.name(*b)))
            });
        }
        self.rows = rows;
        self.cursor = keep
            .and_then(|k| self.rows.iter().position(|&r| r == k))
            .unwrap_or(self.cursor.min(self.rows.len().saturating_sub(1)));
        self.scroll();
    }

    fn scroll(&mut self) {
        let page = self.page.max(1);
        if self.cursor < self.top {
            self.top = self.cursor;
        } else if self.cursor >= self.top + page {
            self.top = self.cursor + 1 - page;
        }
        self.top = self.top.min(self.rows.len().saturating_sub(1));
    }

    fn move_by(&mut self, d: isize) {
        if self.rows.is_empty() {
            return;
        }
        let last = self.rows.len() as isize - 1;
        self.cursor = (self.cursor as isize + d).clamp(0, last) as usize;
        self.scroll();
    }

    fn enter(&mut self) {
        let Some(s) = self.selected() else { return };
        if !self.tree.node(s).is_dir() {
            return;
        }
        self.path.push(s);
        self.cursor = 0;
        self.top = 0;
        self.refresh();
    }

    fn up(&mut self) {
        if self.path.len() < 2 {
            return;
        }
        let left = self.path.pop().expect("checked");
        self.cursor = 0;
        self.top = 0;
        self.refresh();
        if let Some(p) = self.rows.iter().position(|&r| r == left) {
            self.cursor = p;
            self.scroll();
        }
    }

    fn sort_by(&mut self, k: SortKey) {
        if self.sort == k {
            self.desc = !self.desc;
        } else {
            self.sort = k;
            // Biggest, most, newest first; names from A.
            self.desc = k != SortKey::Name;
        }
        self.refresh();
    }

    /// Handles a key; returns what the caller must do.
    pub fn key(&mut self, k: Key) -> Action {
        match k {
            Key::Ctrl('c') => return Action::Interrupt,
            Key::Ctrl('z') => return Action::Suspend,
            _ => {}
        }
        match std::mem::replace(&mut self.popup, Popup::None) {
            Popup::None => {}
            Popup::Confirm(i) => {
                if k == Key::Char('y') || k == Key::Char('Y') {
                    return Action::Delete(i);
                }
                self.status = "Nothing deleted.".into();
                return Action::None;
            }
            // Any key closes the others; q closes and quits.
            _ => {
                return if k == Key::Char('q') { Action::Quit } else { Action::None };
            }
        }
        match k {
            Key::Char('q') => return Action::Quit,
            Key::Up | Key::Char('k') => self.move_by(-1),
            Key::Down | Key::Char('j') => self.move_by(1),
            Key::PageUp => self.move_by(-(self.page.max(1) as isize)),
            Key::PageDown => self.move_by(self.page.max(1) as isize),
            Key::Home | Key::Char('g') => self.move_by(isize::MIN / 2),
            Key::End | Key::Char('G') => self.move_by(isize::MAX / 2),
            Key::Enter | Key::Right | Key::Char('l') => self.enter(),
            Key::Left | Key::Backspace | Key::Char('h') | Key::Char('<') => self.up(),
            Key::Char('s') => self.sort_by(SortKey::Size),
            Key::Char('n') => self.sort_by(SortKey::Name),
            Key::Char('C') => self.sort_by(SortKey::Items),
            Key::Char('M') => self.sort_by(SortKey::Mtime),
            Key::Char('a') => {
                self.mode = match self.mode {
                    SizeMode::Disk => SizeMode::Apparent,
                    SizeMode::Apparent | SizeMode::Items => SizeMode::Disk,
                };
                self.refresh();
            }
            Key::Char('c') => {
                self.mode =
                    if self.mode == SizeMode::Items { SizeMode::Disk } else { SizeMode::Items };
                self.refresh();
            }
            Key::Char('?') => self.popup = Popup::Help,
            Key::Char('i') => {
                if let Some(s) = self.selected() {
                    self.popup = Popup::Info(s);
                }
            }
            Key::Char('d') => {
                if let Some(s) = self.selected() {
                    if self.cfg.read_only || self.cfg.root_path.is_none() {
                        self.status = if self.cfg.root_path.is_none() {
                            "Read-only: this scan was imported from a file.".into()
                        } else {
                            "Read-only (--read-only): nothing can be deleted.".into()
                        };
                    } else {
                        self.popup = Popup::Confirm(s);
                    }
                }
            }
            Key::Char('r') => {
                if self.cfg.root_path.is_none() {
                    self.status = "An imported scan can't be rescanned.".into();
                } else if let Some(s) = self.selected().filter(|&s| self.tree.node(s).is_dir()) {
                    return Action::Rescan(s);
                } else {
                    self.status = "r rescans a directory: select one.".into();
                }
            }
            _ => {}
        }
        Action::None
    }

    /// The path of `i` (an entry of the shown directory, or the directory
    /// itself), relative to the operand: empty for the root.
    pub fn rel_path(&self, i: Idx) -> Vec<u8> {
        let mut p = Vec::new();
        let mut parts: Vec<Idx> = self.path[1..].to_vec();
        if i != self.dir() {
            parts.push(i);
        }
        for (k, &d) in parts.iter().enumerate() {
            if k > 0 {
                p.push(b'/');
            }
            p.extend_from_slice(self.tree.name(d));
        }
        p
    }

    /// The path of `i` as the user knows it: the root's name, then the rest.
    pub fn full_path(&self, i: Idx) -> Vec<u8> {
        let mut p = self.tree.name(self.tree.root()).to_vec();
        let rel = self.rel_path(i);
        if !rel.is_empty() {
            if p.last() != Some(&b'/') {
                p.push(b'/');
            }
            p.extend_from_slice(&rel);
        }
        p
    }

    /// Entries under `i` (itself included) that could not be read.
    pub fn errors_under(&self, i: Idx) -> u64 {
        let mut n = 0;
        let mut stack = vec![i];
        while let Some(x) = stack.pop() {
            let node = self.tree.node(x);
            if node.has(flag::READ_ERROR) {
                n += 1;
            }
            if node.has(flag::ERROR_BELOW) || x == i {
                stack.extend(self.tree.kids(x).filter(|&k| {
                    let c = self.tree.node(k);
                    c.has(flag::READ_ERROR) || c.has(flag::ERROR_BELOW)
                }));
            }
        }
        n
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tree::{Builder, Item, Kind, LinkRule, TreeSink};

    fn app() -> App {
        let mut b = Builder::new(LinkRule::default());
        let f = |n: &'static [u8], d: u64, a: u64, m: i64| Item {
            dsize: d,
            asize: a,
            mtime: m,
            ino: d + a,
            ..Item::named(n, Kind::File)
        };
        b.open_dir(&Item::named(b"/r", Kind::Dir));
        b.entry(&f(b"small", 10, 1000, 5));
        b.open_dir(&Item::named(b"big", Kind::Dir));
        b.entry(&f(b"x", 500, 5, 1));
        b.entry(&f(b"y", 100, 5, 9));
        b.close_dir();
        b.entry(&f(b"mid", 200, 1, 3));
        b.close_dir();
        let tree = b.finish().0;
        let cfg = Config {
            read_only: false,
            si: false,
            mode: SizeMode::Disk,
            root_path: Some(b"r".to_vec()),
        };
        App::new(tree, cfg)
    }

    fn names(a: &App) -> Vec<String> {
        a.rows.iter().map(|&r| String::from_utf8_lossy(a.tree.name(r)).into_owned()).collect()
    }

    #[test]
    fn sorting_and_moving() {
        let mut a = app();
        assert_eq!(names(&a), ["big", "mid", "small"]);
        a.key(Key::Char('a'));
        assert_eq!(names(&a), ["small", "big", "mid"]);
        a.key(Key::Char('n'));
        assert_eq!(names(&a), ["big", "mid", "small"]);
        a.key(Key::Char('n'));
        assert_eq!(names(&a), ["small", "mid", "big"]);
        a.key(Key::Char('M'));
        assert_eq!(names(&a), ["big", "small", "mid"]);
        a.key(Key::Char('s'));
        a.key(Key::Char('a'));
        assert_eq!(names(&a), ["big", "mid", "small"]);
        a.key(Key::Enter);
        assert_eq!(names(&a), ["x", "y"]);
        assert_eq!(a.rel_path(a.rows[1]), b"big/y");
        assert_eq!(a.full_path(a.rows[1]), b"/r/big/y");
        a.key(Key::Down);
        a.key(Key::Backspace);
        assert_eq!(a.tree.name(a.selected().unwrap()), b"big");
    }

    #[test]
    fn deleting_needs_a_yes() {
        let mut a = app();
        assert_eq!(a.key(Key::Char('d')), Action::None);
        assert_eq!(a.popup, Popup::Confirm(a.rows[0]));
        assert_eq!(a.key(Key::Char('n')), Action::None);
        assert_eq!(a.popup, Popup::None);
        a.key(Key::Char('d'));
        assert_eq!(a.key(Key::Char('y')), Action::Delete(a.rows[0]));
        a.cfg.read_only = true;
        a.key(Key::Char('d'));
        assert_eq!(a.popup, Popup::None);
        assert!(a.status.contains("Read-only"));
    }
}
