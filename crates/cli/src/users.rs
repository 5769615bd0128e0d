//! uid/gid → name, as `ls -l` and `find -ls` print them, and name → id
//! for find's `-user`/`-group`.
//!
//! For lsr, `/etc/passwd` and `/etc/group` are parsed once (the caller may
//! read them through its engine and hand the bytes in); ids they lack are
//! asked of the name service (`getpwuid_r`/`getgrgid_r`, which also knows
//! LDAP, systemd…) and the answer is cached; an id nobody knows prints as
//! its number. find asks the name service for every id, as GNU find does.

use std::ffi::CString;

use hashbrown::HashMap;

/// A cache of user and group names.
#[derive(Clone, Default)]
pub struct Users {
    users: HashMap<u32, Option<Box<[u8]>>>,
    groups: HashMap<u32, Option<Box<[u8]>>>,
    /// Whether to ask NSS for ids the files lack.
    nss: bool,
}

/// A name service lookup: an id's name, if it has one.
type Lookup = fn(u32) -> Option<Vec<u8>>;

/// The name of `id` in `names`, asking `ask` (the name service) the first
/// time an id is missing there; an unknown id is remembered too.
fn cached(
    names: &mut HashMap<u32, Option<Box<[u8]>>>,
    id: u32,
    ask: Option<Lookup>,
) -> Option<&[u8]> {
    names.entry(id).or_insert_with(|| ask.and_then(|f| f(id)).map(Into::into)).as_deref()
}

/// Parses `name:x:id:...` lines, first entry for an id winning (as the
/// C library's file lookup does).
fn parse(data: &[u8], into: &mut HashMap<u32, Option<Box<[u8]>>>) {
    for line in data.split(|&b| b == b'\n') {
        if line.is_empty() || matches!(line[0], b'#' | b'+' | b'-') {
            continue;
        }
        let mut f = line.split(|&b| b == b':');
        let (Some(name), Some(_), Some(id)) = (f.next(), f.next(), f.next()) else { continue };
        let Some(id) = std::str::from_utf8(id).ok().and_then(|s| s.parse::<u32>().ok()) else {
            continue;
        };
        if name.is_empty() {
            continue;
        }
        into.entry(id).or_insert_with(|| Some(name.into()));
    }
}

impl Users {
    /// A cache primed from the contents of `/etc/passwd` and `/etc/group`
    /// (either may be empty when unreadable).
    pub fn from_files(passwd: &[u8], group: &[u8]) -> Users {
        let mut u = Users { nss: true, ..Users::default() };
        parse(passwd, &mut u.users);
        parse(group, &mut u.groups);
        u
    }

    /// Reads the two files itself.
    pub fn load() -> Users {
        let p = std::fs::read("/etc/passwd").unwrap_or_default();
        let g = std::fs::read("/etc/group").unwrap_or_default();
        Users::from_files(&p, &g)
    }

    /// A cache that asks the name service for every id, reading no file
    /// itself (find: GNU find calls getpwuid/getgrgid).
    pub fn name_service() -> Users {
        Users { nss: true, ..Users::default() }
    }

    /// A cache that never asks the name service (for tests).
    pub fn without_nss(passwd: &[u8], group: &[u8]) -> Users {
        let mut u = Users::from_files(passwd, group);
        u.nss = false;
        u
    }

    /// The user's name, if known.
    pub fn user(&mut self, uid: u32) -> Option<&[u8]> {
        cached(&mut self.users, uid, self.nss.then_some(libcw::users::user_name))
    }

    /// The group's name, if known.
    pub fn group(&mut self, gid: u32) -> Option<&[u8]> {
        cached(&mut self.groups, gid, self.nss.then_some(libcw::users::group_name))
    }

    /// The user's name, or the number.
    pub fn user_or_id(&mut self, uid: u32, out: &mut Vec<u8>) {
        match self.user(uid) {
            Some(n) => out.extend_from_slice(n),
            None => out.extend_from_slice(uid.to_string().as_bytes()),
        }
    }

    /// The group's name, or the number.
    pub fn group_or_id(&mut self, gid: u32, out: &mut Vec<u8>) {
        match self.group(gid) {
            Some(n) => out.extend_from_slice(n),
            None => out.extend_from_slice(gid.to_string().as_bytes()),
        }
    }
}

/// The uid of user `name`, from the name service.
pub fn uid_of(name: &[u8]) -> Option<u32> {
    libcw::users::user_id(&CString::new(name).ok()?)
}

/// The gid of group `name`, from the name service.
pub fn gid_of(name: &[u8]) -> Option<u32> {
    libcw::users::group_id(&CString::new(name).ok()?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_first_entry_wins_and_unknown_is_none() {
        let mut u = Users::without_nss(
            b"root:x:0:0::/root:/bin/sh\n+nis\nalt:x:0:0::/:/bin/sh\nbob:x:1000:1000::/:/bin/sh",
            b"root:x:0:\nstaff:x:50:\n",
        );
        assert_eq!(u.user(0), Some(&b"root"[..]));
        assert_eq!(u.user(1000), Some(&b"bob"[..]));
        assert_eq!(u.user(4242), None);
        assert_eq!(u.group(50), Some(&b"staff"[..]));
        let mut v = Vec::new();
        u.group_or_id(77, &mut v);
        assert_eq!(v, b"77");
    }
}
