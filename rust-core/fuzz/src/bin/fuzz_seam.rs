//! AFL++'s entry point for the native seam (`capsched_fuzz::seam`).
fn main() {
    afl::fuzz!(|data: &[u8]| capsched_fuzz::seam(data));
}
