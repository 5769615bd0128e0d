//! Parsing the `linux_dirent64` records that getdents64 fills a buffer with.

/// `d_type` values (from `<dirent.h>`).
pub mod dtype {
    pub const UNKNOWN: u8 = 0;
    pub const FIFO: u8 = 1;
    pub const CHR: u8 = 2;
    pub const DIR: u8 = 4;
    pub const BLK: u8 = 6;
    pub const REG: u8 = 8;
    pub const LNK: u8 = 10;
    pub const SOCK: u8 = 12;

    /// The d_type of a stat's file type (`st_mode`), `UNKNOWN` for a type
    /// with no d_type.
    pub fn from_mode(mode: u32) -> u8 {
        match mode & libc::S_IFMT {
            libc::S_IFDIR => DIR,
            libc::S_IFREG => REG,
            libc::S_IFLNK => LNK,
            libc::S_IFIFO => FIFO,
            libc::S_IFSOCK => SOCK,
            libc::S_IFCHR => CHR,
            libc::S_IFBLK => BLK,
            _ => UNKNOWN,
        }
    }
}

/// One directory entry, borrowing its name from the getdents buffer.
#[derive(Clone, Copy, Debug)]
pub struct Dirent<'a> {
    pub ino: u64,
    /// One of [`dtype`]; `UNKNOWN` on file systems that don't fill it in,
    /// in which case the caller must stat to learn the type.
    pub d_type: u8,
    pub name: &'a [u8],
}

impl Dirent<'_> {
    /// `.` or `..`.
    pub fn is_dot_or_dotdot(&self) -> bool {
        matches!(self.name, b"." | b"..")
    }
}

/// Iterates the records in a buffer filled by getdents64. Stops quietly at a
/// malformed record rather than reading out of bounds.
pub struct DirentIter<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> DirentIter<'a> {
    pub fn new(buf: &'a [u8]) -> Self {
        DirentIter { buf, pos: 0 }
    }
}

// linux_dirent64: u64 d_ino, i64 d_off, u16 d_reclen, u8 d_type, char d_name[].
const NAME_OFFSET: usize = 19;

impl<'a> Iterator for DirentIter<'a> {
    type Item = Dirent<'a>;

    fn next(&mut self) -> Option<Dirent<'a>> {
        let rest = self.buf.get(self.pos..)?;
        if rest.len() < NAME_OFFSET {
            return None;
        }
        let ino = u64::from_ne_bytes(rest[0..8].try_into().ok()?);
        let reclen = u16::from_ne_bytes(rest[16..18].try_into().ok()?) as usize;
        if reclen < NAME_OFFSET || reclen > rest.len() {
            return None;
        }
        let d_type = rest[18];
        let rec = &rest[..reclen];
        let len = name_len(rec);
        self.pos += reclen;
        Some(Dirent { ino, d_type, name: &rec[NAME_OFFSET..NAME_OFFSET + len] })
    }
}

/// The length of the NUL-terminated name of record `rec` (its `d_reclen`
/// bytes, at least [`NAME_OFFSET`]).
///
/// The kernel pads a record to 8 bytes after the name's NUL, so the NUL
/// lies in the record's last 8 bytes, and every byte before it is part of
/// the name: the search starts there (a byte-at-a-time scan of every name
/// was 3% of a warm `lfind`'s CPU). Should the byte before that window be
/// a NUL (a record padded more than the kernel pads), the whole field is
/// searched.
fn name_len(rec: &[u8]) -> usize {
    let field = rec.len() - NAME_OFFSET;
    let scan = || rec[NAME_OFFSET..].iter().position(|&c| c == 0).unwrap_or(field);
    if field > 8 && rec[rec.len() - 9] == 0 {
        return scan();
    }
    // The window as one little-endian word, read from the record itself
    // (a copy of a variable length into a padded word cost a memcpy call
    // per entry). Byte i of the word is byte `field - 8 + i` of the field.
    let Ok(last) = <[u8; 8]>::try_from(&rec[rec.len() - 8..]) else { return scan() };
    let mut word = u64::from_le_bytes(last);
    if field < 8 {
        // A short name's window starts in the record's header (d_reclen,
        // d_type), whose bytes may be 0: they count as 0xff, never a NUL.
        word |= u64::MAX >> (8 * field);
    }
    // The lowest byte of `word` that is zero has its flag set here (bytes
    // above it may be flagged wrongly by the borrow, never those below).
    let zeros = word.wrapping_sub(0x0101_0101_0101_0101) & !word & 0x8080_8080_8080_8080;
    if zeros == 0 {
        return scan();
    }
    field + (zeros.trailing_zeros() / 8) as usize - 8
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(ino: u64, t: u8, name: &[u8]) -> Vec<u8> {
        let reclen = (NAME_OFFSET + name.len() + 1).div_ceil(8) * 8;
        let mut v = vec![0u8; reclen];
        v[0..8].copy_from_slice(&ino.to_ne_bytes());
        v[16..18].copy_from_slice(&(reclen as u16).to_ne_bytes());
        v[18] = t;
        v[NAME_OFFSET..NAME_OFFSET + name.len()].copy_from_slice(name);
        v
    }

    #[test]
    fn parses_records_and_stops_at_garbage() {
        let mut buf = record(5, dtype::DIR, b".");
        buf.extend(record(7, dtype::REG, b"a\nb\xff"));
        buf.extend([1, 2, 3]);
        let v: Vec<_> = DirentIter::new(&buf).collect();
        assert_eq!(v.len(), 2);
        assert!(v[0].is_dot_or_dotdot());
        assert_eq!(v[1].name, b"a\nb\xff");
        assert_eq!(v[1].ino, 7);
        assert_eq!(v[1].d_type, dtype::REG);
    }

    /// Names of every length, their padding stale (the kernel writes the
    /// NUL and leaves the rest), and a record padded past 8 bytes.
    #[test]
    fn names_end_at_their_nul_whatever_the_padding() {
        for len in 1..=255usize {
            // Every non-NUL byte value appears (0x01 and 0x80 are the
            // word search's edge cases).
            let name: Vec<u8> = (0..len).map(|i| ((i * 37 + len) % 255) as u8 + 1).collect();
            let mut r = record(1, dtype::REG, &name);
            for b in &mut r[NAME_OFFSET + len + 1..] {
                *b = 0xff;
            }
            let v: Vec<_> = DirentIter::new(&r).collect();
            assert_eq!(v[0].name, &name[..], "length {len}");
            // 16 more bytes of zeros: still the name.
            let mut r = record(1, dtype::REG, &name);
            r.extend([0; 16]);
            let reclen = r.len() as u16;
            r[16..18].copy_from_slice(&reclen.to_ne_bytes());
            let v: Vec<_> = DirentIter::new(&r).collect();
            assert_eq!(v[0].name, &name[..], "length {len}, padded");
        }
    }
}
