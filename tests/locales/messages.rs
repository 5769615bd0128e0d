//! Locale differential tests: messages.

#[allow(unused_imports)]
use crate::util::*;
