//! Locale differential tests: names.

#[allow(unused_imports)]
use crate::util::*;
