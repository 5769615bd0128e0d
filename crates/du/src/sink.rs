//! Where lines and messages go: one locked standard output shared by the
//! walker threads, stderr messages, and the progress line, kept from
//! mixing (the progress line is cleared before anything else is written).

use std::io::Write;
use std::sync::Mutex;

use cli::Out;

pub struct Sink {
    inner: Mutex<Inner>,
    /// Flush after every batch (stdout is a terminal).
    eager: bool,
    /// The `--output-file` written instead of stdout (named in a write
    /// error), kept open as long as the sink.
    file: Option<(Vec<u8>, std::fs::File)>,
}

struct Inner {
    out: Out,
    progress_shown: bool,
}

impl Inner {
    fn clear_progress(&mut self) {
        if self.progress_shown {
            self.progress_shown = false;
            let _ = std::io::stderr().lock().write_all(b"\r\x1b[K");
        }
    }
}

impl Sink {
    pub fn new(out: Out, eager: bool) -> Sink {
        Sink { inner: Mutex::new(Inner { out, progress_shown: false }), eager, file: None }
    }

    /// A sink writing to `file` (opened by the caller), named `name` in a
    /// write error.
    pub fn to_file(name: Vec<u8>, file: std::fs::File) -> Sink {
        use std::os::fd::AsRawFd;
        let out = Out::new(file.as_raw_fd(), cli::out::DEFAULT_LIMIT);
        Sink {
            inner: Mutex::new(Inner { out, progress_shown: false }),
            eager: false,
            file: Some((name, file)),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        ringio::sync::lock(&self.inner)
    }

    /// Appends output lines from `buf`, leaving it empty.
    pub fn write(&self, buf: &mut Vec<u8>) {
        if buf.is_empty() {
            return;
        }
        let mut g = self.lock();
        if self.eager {
            g.clear_progress();
        }
        g.out.write(buf);
        if self.eager {
            g.out.flush();
        }
        buf.clear();
    }

    /// Writes `prog: message` to stderr, after the lines produced before it
    /// (so `2>&1` keeps them in order, as GNU's line-buffered output does).
    pub fn error(&self, message: &[u8]) {
        let mut g = self.lock();
        g.clear_progress();
        g.out.flush();
        cli::msg::error_bytes(&[message]);
    }

    /// Shows (or replaces) the progress line on stderr.
    pub fn progress(&self, text: &str) {
        let mut g = self.lock();
        let line = format!("\r{text}\x1b[K");
        let _ = std::io::stderr().lock().write_all(line.as_bytes());
        g.progress_shown = true;
    }

    pub fn clear_progress(&self) {
        self.lock().clear_progress();
    }

    /// Flushes stdout; false (after reporting) if output was lost.
    /// Flushes; reports a write failure as GNU du does. Returns false if
    /// output was lost.
    pub fn finish(&self) -> bool {
        let mut g = self.lock();
        g.clear_progress();
        g.out.flush();
        match g.out.error() {
            None => true,
            Some(e) if self.file.is_some() => {
                let name = self.file.as_ref().map_or(&[][..], |(n, _)| n);
                cli::msg::error_bytes(&[&cli::quote::file(name), b": ", e.message().as_bytes()]);
                false
            }
            Some(e) => {
                // GNU du flushes after every line, so the failure is already
                // recorded when close_stdout runs, which then prints no errno
                // (it has none) — unless closing failed as well, which only a
                // descriptor closed from the start (`>&-`) does.
                cli::msg::write_error(libcw::stdfds::was_closed(1).then_some(e));
                false
            }
        }
    }
}
