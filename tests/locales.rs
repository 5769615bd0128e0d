//! The tools against GNU's in the user's locale, not only in C: C,
//! C.UTF-8, en_US.UTF-8, de_DE.UTF-8 and ja_JP.UTF-8 (`cargo xtask test`
//! generates the last three; under CI=true a missing one fails the run).
//! One module per concern; the checklist of ../shared research (25 items)
//! is spread over them.

mod find;
mod leftovers;
mod messages;
mod names;
mod numbers;
mod sort;
mod times;
