//! A directory's entries as bytes, while they wait for their turn in
//! document order (see [`super::order`]): compact, and movable to a
//! temporary file as they are.
//!
//! Each record is an entry ([`ENTRY`]: its [`Item`] with the name) or a
//! place where a subdirectory goes ([`CHILD`]: its index in the listing,
//! which is how the subdirectory's own records are found).

use browse::tree::{Excluded, Item, Kind};

const ENTRY: u8 = 1;
const CHILD: u8 = 2;

const ERROR: u8 = 1;
const PATTERN: u8 = 2;
const OTHER_FS: u8 = 4;

/// Appends an entry.
pub fn put_item(out: &mut Vec<u8>, it: &Item) {
    out.push(ENTRY);
    out.push(match it.kind {
        Kind::Dir => 0,
        Kind::File => 1,
        Kind::Other => 2,
    });
    let mut f = 0;
    if it.error {
        f |= ERROR;
    }
    match it.excluded {
        Excluded::No => {}
        Excluded::Pattern => f |= PATTERN,
        Excluded::OtherFs => f |= OTHER_FS,
    }
    out.push(f);
    for v in [it.asize, it.dsize, it.dev, it.ino] {
        out.extend_from_slice(&v.to_le_bytes());
    }
    out.extend_from_slice(&it.nlink.to_le_bytes());
    out.extend_from_slice(&it.mtime.to_le_bytes());
    // Names are at most NAME_MAX (255) bytes; a root's path may be longer.
    out.extend_from_slice(&(it.name.len() as u32).to_le_bytes());
    out.extend_from_slice(it.name);
}

/// Appends the place of subdirectory number `index` of the listing.
pub fn put_child(out: &mut Vec<u8>, index: u32) {
    out.push(CHILD);
    out.extend_from_slice(&index.to_le_bytes());
}

/// One record read back.
pub enum Rec<'a> {
    Item(Item<'a>),
    Child(u32),
}

fn u64_at(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().expect("8 bytes"))
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().expect("4 bytes"))
}

/// The record at `b[at..]` and its length. The bytes are only ever the
/// ones [`put_item`] and [`put_child`] wrote in this process.
pub fn get(b: &[u8], at: usize) -> (Rec<'_>, usize) {
    if b[at] == CHILD {
        return (Rec::Child(u32_at(b, at + 1)), 5);
    }
    let kind = match b[at + 1] {
        0 => Kind::Dir,
        1 => Kind::File,
        _ => Kind::Other,
    };
    let f = b[at + 2];
    let p = at + 3;
    let name_len = u32_at(b, p + 44) as usize;
    let name = &b[p + 48..p + 48 + name_len];
    let excluded = if f & PATTERN != 0 {
        Excluded::Pattern
    } else if f & OTHER_FS != 0 {
        Excluded::OtherFs
    } else {
        Excluded::No
    };
    let it = Item {
        name,
        kind,
        asize: u64_at(b, p),
        dsize: u64_at(b, p + 8),
        dev: u64_at(b, p + 16),
        ino: u64_at(b, p + 24),
        nlink: u32_at(b, p + 32),
        mtime: u64_at(b, p + 36) as i64,
        error: f & ERROR != 0,
        excluded,
    };
    (Rec::Item(it), 3 + 48 + name_len)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip() {
        let it = Item {
            asize: 1,
            dsize: 2,
            dev: 3,
            ino: 4,
            nlink: 5,
            mtime: -6,
            error: true,
            excluded: Excluded::OtherFs,
            ..Item::named(b"n\xffame", Kind::Other)
        };
        let mut b = Vec::new();
        put_item(&mut b, &it);
        put_child(&mut b, 77);
        let (r, n) = get(&b, 0);
        let Rec::Item(g) = r else { panic!("an item") };
        assert_eq!(
            (g.name, g.kind, g.asize, g.dsize, g.dev, g.ino, g.nlink, g.mtime, g.error),
            (&b"n\xffame"[..], Kind::Other, 1, 2, 3, 4, 5, -6, true)
        );
        assert_eq!(g.excluded, Excluded::OtherFs);
        let (r, m) = get(&b, n);
        assert!(matches!(r, Rec::Child(77)));
        assert_eq!(n + m, b.len());
    }
}
