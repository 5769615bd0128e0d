//! The tools against GNU's in the user's locale, not only in C: C,
//! C.UTF-8, en_US.UTF-8, de_DE.UTF-8 and ja_JP.UTF-8 (`cargo xtask test`
//! generates the last three; under CI=true a missing one fails the run).
//! One module per concern; `checklist` holds the 25-item checklist of the
//! locale checklist whole (GNU behaviours of docs/locale.md), as the acceptance test of all of them.
//! Besides these, the main tables of tests/ls.rs, find.rs, du.rs and
//! cat.rs run again in every locale (`util::in_locales!`).

mod checklist;
mod find;
mod leftovers;
mod messages;
mod names;
mod numbers;
mod sort;
mod times;
