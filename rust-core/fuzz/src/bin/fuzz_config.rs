//! AFL++'s entry point for the configuration door (`capsched_fuzz::config`).
fn main() {
    afl::fuzz!(|data: &[u8]| capsched_fuzz::config(data));
}
