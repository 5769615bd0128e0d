//! Users and groups from the system's name service (NSS: the files, LDAP,
//! systemd…) through the reentrant C library calls: id → name for
//! listings, name → id for find's -user and -group.

use std::ffi::CStr;

/// The name of user `uid` (`getpwuid_r`), if any.
pub fn user_name(uid: u32) -> Option<Vec<u8>> {
    passwd(|pw, buf, res| {
        // SAFETY: pw, buf (with its true length) and res are valid,
        // exclusive pointers for the duration of the call.
        unsafe { libc::getpwuid_r(uid, pw, buf.as_mut_ptr().cast(), buf.len(), res) }
    })
    .map(|(name, _)| name)
}

/// The uid of user `name` (`getpwnam_r`), if any.
pub fn user_id(name: &CStr) -> Option<u32> {
    passwd(|pw, buf, res| {
        // SAFETY: as in user_name; name is NUL-terminated.
        unsafe { libc::getpwnam_r(name.as_ptr(), pw, buf.as_mut_ptr().cast(), buf.len(), res) }
    })
    .map(|(_, id)| id)
}

/// The name of group `gid` (`getgrgid_r`), if any.
pub fn group_name(gid: u32) -> Option<Vec<u8>> {
    group(|gr, buf, res| {
        // SAFETY: gr, buf (with its true length) and res are valid,
        // exclusive pointers for the duration of the call.
        unsafe { libc::getgrgid_r(gid, gr, buf.as_mut_ptr().cast(), buf.len(), res) }
    })
    .map(|(name, _)| name)
}

/// The gid of group `name` (`getgrnam_r`), if any.
pub fn group_id(name: &CStr) -> Option<u32> {
    group(|gr, buf, res| {
        // SAFETY: as in group_name; name is NUL-terminated.
        unsafe { libc::getgrnam_r(name.as_ptr(), gr, buf.as_mut_ptr().cast(), buf.len(), res) }
    })
    .map(|(_, id)| id)
}

/// The shape of the four C calls: entry, string buffer, result pointer.
trait Call<T>: FnMut(&mut T, &mut [u8], &mut *mut T) -> libc::c_int {}
impl<T, F: FnMut(&mut T, &mut [u8], &mut *mut T) -> libc::c_int> Call<T> for F {}

fn passwd(call: impl Call<libc::passwd>) -> Option<(Vec<u8>, u32)> {
    // SAFETY: passwd is a plain C struct; all-zero is a valid value.
    let mut pw: libc::passwd = unsafe { std::mem::zeroed() };
    lookup(&mut pw, call, |pw| (pw.pw_name, pw.pw_uid))
}

fn group(call: impl Call<libc::group>) -> Option<(Vec<u8>, u32)> {
    // SAFETY: group is a plain C struct; all-zero is a valid value.
    let mut gr: libc::group = unsafe { std::mem::zeroed() };
    lookup(&mut gr, call, |gr| (gr.gr_name, gr.gr_gid))
}

/// Runs one `get{pw,gr}{uid,nam}_r` call into `entry`, with a string
/// buffer that doubles on `ERANGE` up to 1 MiB, and returns the entry's
/// name and id.
fn lookup<T>(
    entry: &mut T,
    mut call: impl Call<T>,
    name_and_id: impl Fn(&T) -> (*const libc::c_char, u32),
) -> Option<(Vec<u8>, u32)> {
    let mut buf = vec![0u8; 1024];
    loop {
        let mut res: *mut T = std::ptr::null_mut();
        let r = call(entry, &mut buf, &mut res);
        if r == libc::ERANGE && buf.len() < (1 << 20) {
            buf.resize(buf.len() * 2, 0);
            continue;
        }
        let (name, id) = name_and_id(entry);
        if r != 0 || res.is_null() || name.is_null() {
            return None;
        }
        // SAFETY: after a successful lookup the name points into buf,
        // NUL-terminated, and buf is still alive.
        return Some((unsafe { CStr::from_ptr(name) }.to_bytes().to_vec(), id));
    }
}
