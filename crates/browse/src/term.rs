//! The terminal while the view is up: raw mode and the alternate screen,
//! given back on every way out (libcw::term: quit, the ending signals, a
//! panic, a stop), set up again after a continue; keys and resizes.

use std::io::Write;
use std::time::Duration;

use crossterm::event::{self, Event, KeyCode, KeyEventKind, KeyModifiers};
use ratatui::backend::CrosstermBackend;
use ratatui::Terminal;
use ringio::Errno;

use crate::app::Key;

/// What leaves the full screen: attributes off, the cursor shown, the
/// normal screen back (written from signal handlers too, so fixed bytes).
const LEAVE: &[u8] = b"\x1b[0m\x1b[?25h\x1b[?1049l";
/// The alternate screen, cleared, the cursor hidden.
const ENTER: &[u8] = b"\x1b[?1049h\x1b[H\x1b[2J\x1b[?25l";

pub struct Screen {
    term: Terminal<CrosstermBackend<std::io::Stdout>>,
}

/// What the terminal said.
pub enum Input {
    Key(Key),
    /// Nothing within the wait (or a resize: draw again).
    Nothing,
}

impl Screen {
    /// Takes standard output's terminal over.
    pub fn enter() -> Result<Screen, Errno> {
        libcw::term::hold(1, LEAVE)?;
        let mut out = std::io::stdout();
        let _ = out.write_all(ENTER).and_then(|()| out.flush());
        match Terminal::new(CrosstermBackend::new(std::io::stdout())) {
            Ok(term) => Ok(Screen { term }),
            Err(e) => {
                libcw::term::release();
                Err(Errno(e.raw_os_error().unwrap_or(libc::EIO)))
            }
        }
    }

    /// After a stop and continue: raw mode and the full screen again,
    /// every cell drawn anew.
    fn resume(&mut self) {
        let _ = libcw::term::again();
        let mut out = std::io::stdout();
        let _ = out.write_all(ENTER).and_then(|()| out.flush());
        let _ = self.term.clear();
    }

    pub fn draw(&mut self, f: impl FnOnce(&mut ratatui::Frame)) {
        if libcw::term::resumed() {
            self.resume();
        }
        // A failed write to the terminal leaves nothing to show it on.
        let _ = self.term.draw(f);
    }

    /// Waits up to `wait` for a key.
    pub fn input(&mut self, wait: Duration) -> Input {
        match event::poll(wait) {
            Ok(true) => {}
            _ => return Input::Nothing,
        }
        match event::read() {
            Ok(Event::Key(k)) if k.kind != KeyEventKind::Release => {
                let ctrl = k.modifiers.contains(KeyModifiers::CONTROL);
                let key = match k.code {
                    KeyCode::Char(c) if ctrl => Key::Ctrl(c.to_ascii_lowercase()),
                    KeyCode::Char(c) => Key::Char(c),
                    KeyCode::Up => Key::Up,
                    KeyCode::Down => Key::Down,
                    KeyCode::Left => Key::Left,
                    KeyCode::Right => Key::Right,
                    KeyCode::PageUp => Key::PageUp,
                    KeyCode::PageDown => Key::PageDown,
                    KeyCode::Home => Key::Home,
                    KeyCode::End => Key::End,
                    KeyCode::Enter => Key::Enter,
                    KeyCode::Backspace => Key::Backspace,
                    KeyCode::Esc => Key::Esc,
                    _ => return Input::Nothing,
                };
                Input::Key(key)
            }
            _ => Input::Nothing,
        }
    }
}

impl Drop for Screen {
    fn drop(&mut self) {
        libcw::term::release();
    }
}
