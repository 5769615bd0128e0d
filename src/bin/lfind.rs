cli::sigpipe_hook!();
fn main() {
    cli::init("lfind", cli::locale::Domain::Findutils);
    std::process::exit(find::run(std::env::args_os().skip(1).collect()));
}
