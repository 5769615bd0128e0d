//! `--import=FILE` (`-f`): a scan saved in ncdu's JSON export format
//! (by `ldu --export`, `ncdu -o`, `gdu -o`), read as it streams into the
//! view's tree builder — no document is ever held whole. Hard links are
//! counted as du counts them: the first link in file order (see
//! `export`), unless the file says ldu counted with `-l` or `-L`.
//!
//! A file that is not such a document, or ends early, is an error naming
//! the byte where reading stopped; nothing is shown then.

use std::io::Read;

use browse::tree::{Builder, Excluded, Item, Kind, LinkRule, Tree, TreeSink};
use ringio::Errno;

/// Why a file could not be imported.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ImportError {
    Open {
        path: Vec<u8>,
        errno: Errno,
    },
    Read {
        path: Vec<u8>,
        errno: Errno,
    },
    /// Not what ncdu's format allows at byte `at`.
    Format {
        path: Vec<u8>,
        at: u64,
        what: &'static str,
    },
    /// The file ends at byte `at`, inside the document.
    Truncated {
        path: Vec<u8>,
        at: u64,
    },
    /// A major version other than 1.
    Version {
        path: Vec<u8>,
        major: u64,
    },
    /// More names than the view's tree can hold.
    TooBig {
        path: Vec<u8>,
    },
}

impl ImportError {
    /// The message, without the program name.
    pub fn message(&self) -> Vec<u8> {
        use cli::quote::file;
        match self {
            ImportError::Open { path, errno } => {
                let mut m = cli::locale::trf(c"cannot open %s for reading", &[&file(path)]);
                m.extend_from_slice(b": ");
                m.extend_from_slice(errno.message().as_bytes());
                m
            }
            ImportError::Read { path, errno } => {
                let mut m = cli::locale::trf(c"%s: read error", &[&file(path)]);
                m.extend_from_slice(b": ");
                m.extend_from_slice(errno.message().as_bytes());
                m
            }
            ImportError::Format { path, at, what } => [
                &file(path)[..],
                format!(": not an ncdu export file: {what} at byte {at}").as_bytes(),
            ]
            .concat(),
            ImportError::Truncated { path, at } => [
                &file(path)[..],
                format!(": the file ends at byte {at}, inside the scan: truncated?").as_bytes(),
            ]
            .concat(),
            ImportError::Version { path, major } => [
                &file(path)[..],
                format!(": export format version {major}, this ldu reads version 1").as_bytes(),
            ]
            .concat(),
            ImportError::TooBig { path } => {
                [&file(path)[..], b": more names than the view can hold"].concat()
            }
        }
    }
}

/// What the import gives the view.
pub struct Imported {
    pub tree: Tree,
}

/// Reads `path` (`-` is standard input).
pub fn import(path: &[u8]) -> Result<Imported, ImportError> {
    let input: Box<dyn Read> = if path == b"-" {
        Box::new(std::io::stdin().lock())
    } else {
        use std::os::unix::ffi::OsStrExt;
        match std::fs::File::open(std::ffi::OsStr::from_bytes(path)) {
            Ok(f) => Box::new(f),
            Err(e) => {
                let errno = Errno(e.raw_os_error().unwrap_or(libc::EIO));
                return Err(ImportError::Open { path: path.to_vec(), errno });
            }
        }
    };
    let mut p = Parser::new(input, path);
    let rule = p.head()?;
    let mut b = Builder::new(rule);
    p.tree(&mut b)?;
    p.tail()?;
    match b.finish() {
        (tree, Ok(Some(_))) => Ok(Imported { tree }),
        (_, Ok(None)) => Err(p.format("no directory")),
        (_, Err(_)) => Err(ImportError::TooBig { path: path.to_vec() }),
    }
}

/// A pull parser of the one JSON document, over a buffered reader.
struct Parser<'p, R> {
    r: R,
    path: &'p [u8],
    buf: Box<[u8]>,
    pos: usize,
    len: usize,
    /// File offset of `buf[0]`.
    base: u64,
    name: Vec<u8>,
    text: Vec<u8>,
    /// Devices of the open directories (a missing `dev` is the parent's).
    devs: Vec<u64>,
}

/// The fields of one info object.
struct Info {
    asize: u64,
    dsize: u64,
    dev: Option<u64>,
    ino: u64,
    nlink: Option<u64>,
    hlnkc: bool,
    mtime: i64,
    error: bool,
    notreg: bool,
    excluded: Excluded,
    named: bool,
}

impl<'p, R: Read> Parser<'p, R> {
    fn new(r: R, path: &'p [u8]) -> Self {
        Parser {
            r,
            path,
            buf: vec![0; 1 << 20].into_boxed_slice(),
            pos: 0,
            len: 0,
            base: 0,
            name: Vec::new(),
            text: Vec::new(),
            devs: Vec::new(),
        }
    }

    fn at(&self) -> u64 {
        self.base + self.pos as u64
    }

    fn format(&self, what: &'static str) -> ImportError {
        ImportError::Format { path: self.path.to_vec(), at: self.at(), what }
    }

    fn fill(&mut self) -> Result<bool, ImportError> {
        self.base += self.len as u64;
        self.pos = 0;
        self.len = 0;
        loop {
            match self.r.read(&mut self.buf) {
                Ok(n) => {
                    self.len = n;
                    return Ok(n > 0);
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    let errno = Errno(e.raw_os_error().unwrap_or(libc::EIO));
                    return Err(ImportError::Read { path: self.path.to_vec(), errno });
                }
            }
        }
    }

    /// The next byte, not taken; `None` at the end of the file.
    fn peek(&mut self) -> Result<Option<u8>, ImportError> {
        if self.pos == self.len && !self.fill()? {
            return Ok(None);
        }
        Ok(Some(self.buf[self.pos]))
    }

    /// The next byte, taken; the end of the file is a truncation.
    fn byte(&mut self) -> Result<u8, ImportError> {
        match self.peek()? {
            Some(b) => {
                self.pos += 1;
                Ok(b)
            }
            None => Err(ImportError::Truncated { path: self.path.to_vec(), at: self.at() }),
        }
    }

    /// The next byte after white space, not taken.
    fn next(&mut self) -> Result<u8, ImportError> {
        loop {
            match self.peek()? {
                Some(b' ' | b'\t' | b'\n' | b'\r') => self.pos += 1,
                Some(b) => return Ok(b),
                None => {
                    return Err(ImportError::Truncated { path: self.path.to_vec(), at: self.at() })
                }
            }
        }
    }

    fn expect(&mut self, c: u8, what: &'static str) -> Result<(), ImportError> {
        if self.next()? != c {
            return Err(self.format(what));
        }
        self.pos += 1;
        Ok(())
    }

    /// `[major, minor, {metadata},` — and the counting rule it names.
    fn head(&mut self) -> Result<LinkRule, ImportError> {
        self.expect(b'[', "expected '['")?;
        let major = self.number()?;
        if major != 1 {
            return Err(ImportError::Version { path: self.path.to_vec(), major: major as u64 });
        }
        self.expect(b',', "expected ','")?;
        self.number()?;
        self.expect(b',', "expected ','")?;
        let mut rule = LinkRule::default();
        self.expect(b'{', "expected the metadata object")?;
        if self.next()? == b'}' {
            self.pos += 1;
        } else {
            self.members(|p, key| {
                match key {
                    b"ldu_count_links" => rule.count_all = p.boolean()?,
                    b"ldu_dereference" => rule.every_file = p.boolean()?,
                    _ => p.skip()?,
                }
                Ok(())
            })?;
        }
        self.expect(b',', "expected ','")?;
        Ok(rule)
    }

    /// The root directory and everything in it, as events.
    fn tree(&mut self, sink: &mut dyn TreeSink) -> Result<(), ImportError> {
        self.expect(b'[', "expected the root directory's '['")?;
        self.open(sink)?;
        let mut depth = 1usize;
        while depth > 0 {
            match self.next()? {
                b',' => {
                    self.pos += 1;
                    match self.next()? {
                        b'[' => {
                            self.pos += 1;
                            self.open(sink)?;
                            depth += 1;
                        }
                        b'{' => {
                            let info = self.info()?;
                            let kind = if info.notreg { Kind::Other } else { Kind::File };
                            let it = self.item(&info, kind);
                            sink.entry(&it);
                        }
                        _ => return Err(self.format("expected '[' or '{'")),
                    }
                }
                b']' => {
                    self.pos += 1;
                    self.devs.pop();
                    sink.close_dir();
                    depth -= 1;
                }
                _ => return Err(self.format("expected ',' or ']'")),
            }
        }
        Ok(())
    }

    /// After the root: the document's end (ncdu allows nothing else).
    fn tail(&mut self) -> Result<(), ImportError> {
        self.expect(b']', "expected the document's ']'")?;
        loop {
            match self.peek()? {
                Some(b' ' | b'\t' | b'\n' | b'\r') => self.pos += 1,
                Some(_) => return Err(self.format("something after the document")),
                None => return Ok(()),
            }
        }
    }

    /// A directory's array, after its '[': its own info.
    fn open(&mut self, sink: &mut dyn TreeSink) -> Result<(), ImportError> {
        if self.next()? != b'{' {
            return Err(self.format("expected a directory's info object"));
        }
        let info = self.info()?;
        let it = self.item(&info, Kind::Dir);
        sink.open_dir(&it);
        self.devs.push(it.dev);
        Ok(())
    }

    fn item<'a>(&'a self, i: &Info, kind: Kind) -> Item<'a> {
        let nlink = match i.nlink {
            Some(n) => n.min(u32::MAX as u64) as u32,
            // Before 1.2 only `hlnkc` said there were several.
            None if i.hlnkc => 2,
            None => 1,
        };
        Item {
            name: &self.name,
            kind,
            asize: i.asize,
            dsize: i.dsize,
            dev: i.dev.or(self.devs.last().copied()).unwrap_or(0),
            ino: i.ino,
            nlink: if i.hlnkc || i.nlink.is_some() { nlink } else { 1 },
            mtime: i.mtime,
            error: i.error,
            excluded: i.excluded,
        }
    }

    /// An info object (at its '{'); the name goes to `self.name`.
    fn info(&mut self) -> Result<Info, ImportError> {
        self.expect(b'{', "expected '{'")?;
        let mut i = Info {
            asize: 0,
            dsize: 0,
            dev: None,
            ino: 0,
            nlink: None,
            hlnkc: false,
            mtime: 0,
            error: false,
            notreg: false,
            excluded: Excluded::No,
            named: false,
        };
        if self.next()? == b'}' {
            return Err(self.format("an entry without a name"));
        }
        let num = |p: &mut Self| p.number().map(|n| n.max(0) as u64);
        self.members(|p, key| {
            match key {
                b"name" => {
                    p.string(true)?;
                    i.named = true;
                }
                b"asize" => i.asize = num(p)?,
                b"dsize" => i.dsize = num(p)?,
                b"dev" => i.dev = Some(num(p)?),
                b"ino" => i.ino = num(p)?,
                b"nlink" => i.nlink = Some(num(p)?),
                b"mtime" => i.mtime = p.number()?.clamp(i64::MIN as i128, i64::MAX as i128) as i64,
                b"hlnkc" => i.hlnkc = p.boolean()?,
                b"read_error" => i.error = p.boolean()?,
                b"notreg" => i.notreg = p.boolean()?,
                b"excluded" => {
                    p.string(false)?;
                    i.excluded = match &p.text[..] {
                        b"otherfs" | b"kernfs" => Excluded::OtherFs,
                        _ => Excluded::Pattern,
                    };
                }
                _ => p.skip()?,
            }
            Ok(())
        })?;
        if !i.named {
            return Err(self.format("an entry without a name"));
        }
        Ok(i)
    }

    /// An object's members, after its '{' and up to its '}' (which must
    /// hold one at least): `each` reads the value of every key.
    fn members(
        &mut self,
        mut each: impl FnMut(&mut Self, &[u8]) -> Result<(), ImportError>,
    ) -> Result<(), ImportError> {
        loop {
            self.string(false)?;
            self.expect(b':', "expected ':'")?;
            let key = std::mem::take(&mut self.text);
            each(self, &key)?;
            // The buffer goes back for the next string.
            self.text = key;
            match self.next()? {
                b',' => self.pos += 1,
                b'}' => {
                    self.pos += 1;
                    return Ok(());
                }
                _ => return Err(self.format("expected ',' or '}'")),
            }
        }
    }

    fn boolean(&mut self) -> Result<bool, ImportError> {
        let (word, v): (&[u8], bool) = match self.next()? {
            b't' => (b"true", true),
            b'f' => (b"false", false),
            b'n' => (b"null", false),
            _ => return Err(self.format("expected true or false")),
        };
        for &c in word {
            if self.byte()? != c {
                return Err(self.format("expected true or false"));
            }
        }
        Ok(v)
    }

    /// A number; fractions and exponents are read and dropped.
    fn number(&mut self) -> Result<i128, ImportError> {
        let neg = self.next()? == b'-';
        if neg {
            self.pos += 1;
        }
        let mut v: i128 = 0;
        let mut digits = 0;
        while let Some(c @ b'0'..=b'9') = self.peek()? {
            self.pos += 1;
            v = (v * 10 + (c - b'0') as i128).min(u64::MAX as i128);
            digits += 1;
        }
        if digits == 0 {
            return Err(self.format("expected a number"));
        }
        while let Some(b'.' | b'e' | b'E' | b'+' | b'-' | b'0'..=b'9') = self.peek()? {
            self.pos += 1;
        }
        Ok(if neg { -v } else { v })
    }

    /// A string (at its '"'), decoded into `self.name` (`to_name`) or
    /// `self.text`. Bytes that aren't valid UTF-8 are kept as they are,
    /// as ncdu writes them.
    fn string(&mut self, to_name: bool) -> Result<(), ImportError> {
        if self.next()? != b'"' {
            return Err(self.format("expected a string"));
        }
        self.pos += 1;
        let mut out = std::mem::take(if to_name { &mut self.name } else { &mut self.text });
        out.clear();
        loop {
            // The plain run up to the next quote or backslash, at once.
            if self.pos == self.len && !self.fill()? {
                return Err(ImportError::Truncated { path: self.path.to_vec(), at: self.at() });
            }
            let rest = &self.buf[self.pos..self.len];
            let run = rest.iter().position(|&c| c == b'"' || c == b'\\').unwrap_or(rest.len());
            out.extend_from_slice(&rest[..run]);
            self.pos += run;
            if self.pos == self.len {
                continue;
            }
            if self.byte()? == b'"' {
                break;
            }
            let c = match self.byte()? {
                b'n' => b'\n',
                b't' => b'\t',
                b'r' => b'\r',
                b'b' => 0x08,
                b'f' => 0x0c,
                b'u' => {
                    let mut cp = self.hex4()?;
                    if (0xd800..0xdc00).contains(&cp) {
                        // A surrogate pair.
                        if self.byte()? != b'\\' || self.byte()? != b'u' {
                            return Err(self.format("a lone surrogate"));
                        }
                        let lo = self.hex4()?;
                        cp = 0x10000 + ((cp - 0xd800) << 10) + (lo.wrapping_sub(0xdc00) & 0x3ff);
                    }
                    let ch = char::from_u32(cp).unwrap_or('\u{fffd}');
                    let mut b = [0; 4];
                    out.extend_from_slice(ch.encode_utf8(&mut b).as_bytes());
                    continue;
                }
                c => c,
            };
            out.push(c);
        }
        *(if to_name { &mut self.name } else { &mut self.text }) = out;
        Ok(())
    }

    fn hex4(&mut self) -> Result<u32, ImportError> {
        let mut v = 0;
        for _ in 0..4 {
            let d = match self.byte()? {
                c @ b'0'..=b'9' => c - b'0',
                c @ b'a'..=b'f' => c - b'a' + 10,
                c @ b'A'..=b'F' => c - b'A' + 10,
                _ => return Err(self.format("a bad \\u escape")),
            };
            v = v * 16 + d as u32;
        }
        Ok(v)
    }

    /// Skips a value of a key this reader has no use for.
    fn skip(&mut self) -> Result<(), ImportError> {
        let mut depth = 0usize;
        loop {
            match self.next()? {
                b'"' => self.string(false)?,
                b'{' | b'[' => {
                    self.pos += 1;
                    depth += 1;
                }
                b'}' | b']' if depth > 0 => {
                    self.pos += 1;
                    depth -= 1;
                }
                b',' | b':' if depth > 0 => self.pos += 1,
                b't' | b'f' | b'n' => {
                    self.boolean()?;
                }
                b'-' | b'0'..=b'9' => {
                    self.number()?;
                }
                _ => return Err(self.format("an unexpected character")),
            }
            if depth == 0 {
                return Ok(());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use browse::tree::flag;

    fn parse(doc: &[u8]) -> Result<Imported, ImportError> {
        let mut p = Parser::new(doc, b"f");
        let rule = p.head()?;
        let mut b = Builder::new(rule);
        p.tree(&mut b)?;
        p.tail()?;
        let (tree, root) = b.finish();
        assert!(root.unwrap().is_some());
        Ok(Imported { tree })
    }

    const NCDU: &[u8] = br#"[1,2,{"progname":"ncdu","progver":"1.18","timestamp":1},
[{"name":"/t","asize":4096,"dsize":4096,"dev":2049,"ino":1},
{"name":"a\"b\u00e9","asize":5,"dsize":4096,"ino":2,"hlnkc":true,"nlink":2},
[{"name":"d","asize":4096,"dsize":4096,"ino":3,"read_error":true},
{"name":"l","asize":5,"dsize":4096,"ino":2,"hlnkc":true,"nlink":2,"extra":[1,{"x":null}]}],
{"name":"x","excluded":"pattern"},
{"name":"s","asize":3,"ino":4,"notreg":true}]]
"#;

    #[test]
    fn an_ncdu_file() {
        let im = parse(NCDU).unwrap();
        let t = &im.tree;
        let r = t.node(t.root());
        assert_eq!(t.name(t.root()), b"/t");
        // The second link counts nowhere, as in du.
        assert_eq!(r.dsize, 4096 * 3);
        assert_eq!(r.asize, 4096 + 5 + 4096 + 3);
        assert!(r.has(flag::ERROR_BELOW));
        let kids: Vec<_> = t.kids(t.root()).collect();
        assert_eq!(t.name(kids[0]), "a\"bé".as_bytes());
        assert_eq!(t.nlink(kids[0]), 2);
        let d = t.node(kids[1]);
        assert!(d.has(flag::READ_ERROR) && d.is_dir());
        assert!(t.node(d.first).has(flag::LINK_DUP));
        assert_eq!(t.dev(d.first), 2049);
        assert!(t.node(kids[2]).has(flag::EXCLUDED));
        assert!(t.node(kids[3]).has(flag::NOT_REG));
    }

    #[test]
    fn broken_files_say_where() {
        let cut = &NCDU[..NCDU.len() - 10];
        assert!(matches!(parse(cut), Err(ImportError::Truncated { .. })));
        assert!(matches!(parse(b"hello"), Err(ImportError::Format { at: 0, .. })));
        assert!(matches!(
            parse(b"[2,0,{},[{\"name\":\"x\"}]]"),
            Err(ImportError::Version { major: 2, .. })
        ));
        assert!(matches!(parse(b"[1,0,{},[{\"asize\":1}]]"), Err(ImportError::Format { .. })));
        assert!(matches!(parse(b"[1,0,{},[{\"name\":\"x\"}]] x"), Err(ImportError::Format { .. })));
        assert!(matches!(parse(b""), Err(ImportError::Truncated { at: 0, .. })));
        let m = parse(b"[1,0,{},[{\"name\":\"x\"},]]").err().unwrap().message();
        assert!(String::from_utf8_lossy(&m).contains("expected '[' or '{' at byte"), "{m:?}");
    }

    #[test]
    fn ldu_rules_come_from_the_metadata() {
        let doc = br#"[1,2,{"progname":"ldu","ldu_count_links":true},[{"name":"/t","dsize":1},
{"name":"a","dsize":10,"ino":2,"hlnkc":true,"nlink":2},{"name":"b","dsize":10,"ino":2,"hlnkc":true,"nlink":2}]]"#;
        let im = parse(doc).unwrap();
        // Both links count (10 + 10 + 1), as the metadata's rule says.
        assert_eq!(im.tree.node(im.tree.root()).dsize, 21);
    }
}
