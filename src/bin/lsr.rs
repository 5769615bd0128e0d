cli::sigpipe_hook!();
fn main() {
    cli::init("lsr");
}
