//! Locale differential tests: numbers.

#[allow(unused_imports)]
use crate::util::*;
