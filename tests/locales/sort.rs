//! Locale differential tests: sort.

#[allow(unused_imports)]
use crate::util::*;
