cli::sigpipe_hook!();

fn main() {
    cli::init("ldu");
    std::process::exit(du::run(std::env::args_os().skip(1).collect()));
}
