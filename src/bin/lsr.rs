cli::sigpipe_hook!();
fn main() {
    cli::init("lsr");
    std::process::exit(ls::run());
}
