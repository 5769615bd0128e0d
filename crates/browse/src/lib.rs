//! ldu's full-screen view of a scanned tree (`ldu --browse`): the tree in
//! compact form ([`tree`]), the view's state and keys ([`app`]), drawing
//! ([`view`]), the terminal's setup and its restore on every way out
//! ([`term`]), and deletion that never leaves what was scanned
//! ([`delete`]).

#![forbid(unsafe_code)]

pub mod app;
pub mod delete;
pub mod term;
pub mod tree;
pub mod view;

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use app::{Action, App, Key, Popup};
use term::{Input, Screen};
use tree::{Idx, Tree};

/// Scans for the view: a rescan of one directory.
pub trait Scanner: Sync {
    /// Scans `path` into `tree` (its nodes appended; see
    /// [`tree::Builder::extending`]); gives the tree back with the new
    /// subtree's root, or with why there is none.
    fn scan(&self, tree: Tree, path: &[u8], stop: &AtomicBool) -> (Tree, Result<Idx, String>);
    /// Entries, bytes and errors seen so far by the running scan.
    fn counts(&self) -> (u64, u64, u64);
}

/// Runs `work` on a thread while the screen shows the scan's counts;
/// `q` or Esc asks it to stop (through `stop`), Ctrl-C ends the program.
pub fn with_progress<T: Send>(
    screen: &mut Screen,
    what: &str,
    si: bool,
    counts: &(dyn Fn() -> (u64, u64, u64) + Sync),
    stop: &AtomicBool,
    work: impl FnOnce() -> T + Send,
) -> T {
    std::thread::scope(|s| {
        let h = s.spawn(work);
        while !h.is_finished() {
            screen.draw(|f| view::draw_scanning(f, what, counts(), si));
            match screen.input(Duration::from_millis(100)) {
                Input::Key(Key::Char('q') | Key::Esc) => stop.store(true, Ordering::Relaxed),
                Input::Key(Key::Ctrl('c')) => libcw::term::die_of(libc::SIGINT),
                Input::Key(Key::Ctrl('z')) => libcw::term::suspend(),
                _ => {}
            }
        }
        match h.join() {
            Ok(v) => v,
            Err(p) => std::panic::resume_unwind(p),
        }
    })
}

/// Runs the view until the user quits.
pub fn browse(screen: &mut Screen, app: &mut App, scanner: Option<&dyn Scanner>) {
    let mut eng = ringio::Engine::new();
    loop {
        screen.draw(|f| app.draw(f));
        let Input::Key(k) = screen.input(Duration::from_millis(250)) else { continue };
        // A status says what the last key did, until the next.
        app.status.clear();
        match app.key(k) {
            Action::None => {}
            Action::Quit => return,
            Action::Interrupt => libcw::term::die_of(libc::SIGINT),
            Action::Suspend => libcw::term::suspend(),
            Action::Delete(i) => remove(app, i, &mut eng),
            Action::Rescan(i) => {
                if let Some(s) = scanner {
                    rescan(screen, app, s, i);
                }
            }
        }
    }
}

fn remove(app: &mut App, i: Idx, eng: &mut ringio::Engine) {
    let Some(root_path) = app.cfg.root_path.clone() else { return };
    let name = view::safe_name(&app.full_path(i));
    let chain = app.path.clone();
    let t = delete::Target { root_path: &root_path, chain: &chain, entry: i };
    let out = delete::delete(&mut app.tree, &t, eng);
    app.refresh();
    let freed = view::human((-out.delta.dsize).max(0) as u64, app.cfg.si);
    app.status = format!("Deleted {} entries, {freed} ({name}).", view::count(out.removed));
    if !out.errors.is_empty() {
        let mut lines = vec![
            if out.done {
                format!("{name} was deleted, with these problems:")
            } else {
                format!("{name} was not deleted entirely:")
            },
            String::new(),
        ];
        const SHOWN: usize = 15;
        lines.extend(out.errors.iter().take(SHOWN).map(|e| e.message()));
        if out.errors.len() > SHOWN {
            lines.push(format!("... and {} more", out.errors.len() - SHOWN));
        }
        lines.push(String::new());
        lines.push(format!("Removed {} entries, {freed}.", view::count(out.removed)));
        app.popup = Popup::Message("Not deleted".into(), lines);
    }
}

fn rescan(screen: &mut Screen, app: &mut App, s: &dyn Scanner, i: Idx) {
    let Some(root) = app.cfg.root_path.clone() else { return };
    let mut path = root;
    let rel = app.rel_path(i);
    if !rel.is_empty() {
        if path.last() != Some(&b'/') {
            path.push(b'/');
        }
        path.extend_from_slice(&rel);
    }
    let stop = AtomicBool::new(false);
    let tree = std::mem::take(&mut app.tree);
    let shown = view::safe_name(&path);
    let counts = || s.counts();
    let (tree, got) =
        with_progress(screen, &shown, app.cfg.si, &counts, &stop, || s.scan(tree, &path, &stop));
    app.tree = tree;
    match got {
        Ok(new) => {
            let d = app.tree.graft(i, new);
            let path = app.path.clone();
            app.tree.add_to(&path, d);
            app.status = format!("Rescanned {shown}.");
        }
        Err(why) => app.popup = Popup::Message("Not rescanned".into(), vec![why]),
    }
    app.refresh();
}
