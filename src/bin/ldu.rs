cli::sigpipe_hook!();

fn main() {
    cli::init("ldu", cli::locale::Domain::Coreutils);
    std::process::exit(du::run(std::env::args_os().skip(1).collect()));
}
