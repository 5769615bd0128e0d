//! ldu's full-screen view of a scanned tree (`ldu --browse`): the tree in
//! compact form ([`tree`]), the view's state and keys ([`app`]), drawing
//! ([`view`]), the terminal's setup and its restore on every way out
//! ([`term`]), and deletion that never leaves what was scanned
//! ([`delete`]).

#![forbid(unsafe_code)]

pub mod delete;
pub mod tree;
pub mod view;
