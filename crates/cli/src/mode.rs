//! File modes as `ls -l` and `find -ls`/`-printf %M` print them (gnulib's
//! filemodestring, without the trailing ACL/attribute column).

/// The type letter of a mode string: `-` regular, `d`, `l`, `c`, `b`,
/// `p`, `s`, and `?` for a type it doesn't know.
pub fn type_letter(mode: u32) -> u8 {
    match mode & libc::S_IFMT {
        libc::S_IFREG => b'-',
        libc::S_IFDIR => b'd',
        libc::S_IFLNK => b'l',
        libc::S_IFCHR => b'c',
        libc::S_IFBLK => b'b',
        libc::S_IFIFO => b'p',
        libc::S_IFSOCK => b's',
        _ => b'?',
    }
}

/// The type letter of a directory entry's d_type (no stat): d_type is the
/// file type bits shifted down (glibc's DTTOIF), so `UNKNOWN` gives `?`.
pub fn dtype_letter(d_type: u8) -> u8 {
    type_letter((d_type as u32) << 12)
}

/// `drwxr-xr-x`: the type letter and the permissions, with setuid,
/// setgid and sticky shown as `s`/`S` and `t`/`T`.
pub fn mode_string(out: &mut Vec<u8>, mode: u32) {
    let bit = |m: u32, c: u8| if mode & m != 0 { c } else { b'-' };
    let special = |x: u32, s: u32, on: u8, off: u8| match (mode & x != 0, mode & s != 0) {
        (true, true) => on,
        (false, true) => off,
        (true, false) => b'x',
        (false, false) => b'-',
    };
    out.extend_from_slice(&[
        type_letter(mode),
        bit(0o400, b'r'),
        bit(0o200, b'w'),
        special(0o100, libc::S_ISUID, b's', b'S'),
        bit(0o040, b'r'),
        bit(0o020, b'w'),
        special(0o010, libc::S_ISGID, b's', b'S'),
        bit(0o004, b'r'),
        bit(0o002, b'w'),
        special(0o001, libc::S_ISVTX, b't', b'T'),
    ]);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(mode: u32) -> String {
        let mut v = Vec::new();
        mode_string(&mut v, mode);
        String::from_utf8(v).unwrap()
    }

    #[test]
    fn modes() {
        assert_eq!(s(libc::S_IFDIR | 0o1777), "drwxrwxrwt");
        assert_eq!(s(libc::S_IFREG | 0o4644), "-rwSr--r--");
        assert_eq!(s(libc::S_IFREG | 0o2755), "-rwxr-sr-x");
        assert_eq!(s(libc::S_IFLNK | 0o777), "lrwxrwxrwx");
        assert_eq!(s(0o1000), "?--------T");
        assert_eq!(dtype_letter(ringio::dtype::SOCK), b's');
        assert_eq!(dtype_letter(ringio::dtype::UNKNOWN), b'?');
        assert_eq!(dtype_letter(14), b'?');
    }
}
