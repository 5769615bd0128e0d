cli::sigpipe_hook!();

fn main() {
    cli::init("lcat", cli::locale::Domain::Coreutils);
    std::process::exit(cat::run(std::env::args_os().skip(1).collect()));
}
