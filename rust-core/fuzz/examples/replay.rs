//! Runs files through a target without the fuzzer, saying which fail:
//! `cargo run --release --example replay -- config|seam FILE...`.
fn main() {
    let mut args = std::env::args().skip(1);
    let target: fn(&[u8]) = match args.next().as_deref() {
        Some("config") => capsched_fuzz::config,
        Some("seam") => capsched_fuzz::seam,
        _ => {
            eprintln!("usage: replay config|seam FILE...");
            std::process::exit(2);
        }
    };
    let mut failed = 0;
    for path in args {
        let data = std::fs::read(&path).unwrap_or_else(|e| panic!("cannot read {path}: {e}"));
        let passed = std::panic::catch_unwind(|| target(&data)).is_ok();
        println!("{path}: {}", if passed { "passes" } else { "FAILS" });
        failed += usize::from(!passed);
    }
    std::process::exit(i32::from(failed > 0));
}
