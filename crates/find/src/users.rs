//! uid/gid ↔ name through the name service, cached per walker thread.
//!
//! A minimal stand-in for `cli::users` (being written for lsr on another
//! branch); switch to it once it lands on main.

use std::ffi::CString;

use hashbrown::HashMap;
use ringio::sys::find::{group, user};

#[derive(Default)]
pub struct Names {
    users: HashMap<u32, Option<Vec<u8>>>,
    groups: HashMap<u32, Option<Vec<u8>>>,
}

impl Names {
    pub fn user(&mut self, uid: u32) -> Option<&[u8]> {
        self.users.entry(uid).or_insert_with(|| user(Some(uid), None).map(|a| a.name)).as_deref()
    }

    pub fn group(&mut self, gid: u32) -> Option<&[u8]> {
        self.groups.entry(gid).or_insert_with(|| group(Some(gid), None).map(|a| a.name)).as_deref()
    }
}

/// The uid of a user name.
pub fn uid_of(name: &[u8]) -> Option<u32> {
    let c = CString::new(name).ok()?;
    user(None, Some(&c)).map(|a| a.id)
}

/// The gid of a group name.
pub fn gid_of(name: &[u8]) -> Option<u32> {
    let c = CString::new(name).ok()?;
    group(None, Some(&c)).map(|a| a.id)
}
