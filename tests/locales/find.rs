//! Locale differential tests: find.

#[allow(unused_imports)]
use crate::util::*;
