//! Where lines and messages go: one locked standard output shared by the
//! walker threads, stderr messages, and the progress line, kept from
//! mixing (the progress line is cleared before anything else is written).
//! With `--json`, lines are objects, each ended by a newline, and the sink
//! frames them: as they are, JSON Lines; else as one array, each object's
//! separator written in front of it as it comes, whichever thread made it.

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
    /// `--json` as one array: objects written so far.
    array: Option<u64>,
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
        Sink {
            inner: Mutex::new(Inner { out, progress_shown: false, array: None }),
            eager,
            file: None,
        }
    }

    /// Frames the lines as `--json` asks (they are objects).
    pub fn json(self, framing: Option<cli::json::Framing>) -> Sink {
        if framing == Some(cli::json::Framing::Array) {
            self.lock().array = Some(0);
        }
        self
    }

    /// A sink writing to `file` (opened by the caller), named `name` in a
    /// write error.
    pub fn to_file(name: Vec<u8>, file: std::fs::File) -> Sink {
        use std::os::fd::AsRawFd;
        let out = Out::new(file.as_raw_fd(), cli::out::DEFAULT_LIMIT);
        Sink {
            inner: Mutex::new(Inner { out, progress_shown: false, array: None }),
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
        if let Some(n) = g.array.as_mut() {
            let framed = in_array(buf, n);
            g.out.write(&framed);
        } else {
            g.out.write(buf);
        }
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
    pub fn progress(&self, text: &[u8]) {
        let mut g = self.lock();
        let mut line = Vec::with_capacity(text.len() + 4);
        line.push(b'\r');
        line.extend_from_slice(text);
        line.extend_from_slice(b"\x1b[K");
        let _ = std::io::stderr().lock().write_all(&line);
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
        if let Some(n) = g.array {
            g.out.write(if n == 0 { b"[]\n" } else { b"\n]\n" });
        }
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

/// `buf`'s objects (each ended by a newline, which JSON strings never hold
/// raw) as the next items of an array of which `n` were written: the
/// array's opening or a comma before each, no newline after the last (the
/// next separator, or the array's end, brings it).
fn in_array(buf: &[u8], n: &mut u64) -> Vec<u8> {
    let mut v = Vec::with_capacity(buf.len() + 16);
    let body = buf.strip_suffix(b"\n").unwrap_or(buf);
    for obj in body.split(|&b| b == b'\n') {
        v.extend_from_slice(if *n == 0 { b"[\n" } else { b",\n" });
        v.extend_from_slice(obj);
        *n += 1;
    }
    v
}

#[cfg(test)]
mod tests {
    #[test]
    fn objects_framed_as_an_array() {
        let mut n = 0;
        let mut all = super::in_array(b"{\"a\":1}\n{\"b\":2}\n", &mut n);
        all.extend(super::in_array(b"{\"c\":3}\n", &mut n));
        all.extend_from_slice(b"\n]\n");
        assert_eq!(String::from_utf8(all).unwrap(), "[\n{\"a\":1},\n{\"b\":2},\n{\"c\":3}\n]\n");
        assert_eq!(n, 3);
    }
}
