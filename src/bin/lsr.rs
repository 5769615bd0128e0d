#![no_main]
cli::sigpipe_hook!();
cli::c_main!(lsr);

fn lsr() -> i32 {
    cli::init("lsr", cli::locale::Domain::Coreutils);
    ls::run()
}
