//! Locale differential tests: times.

#[allow(unused_imports)]
use crate::util::*;
