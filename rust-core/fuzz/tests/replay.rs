//! Every seed and every input that ever made a target fail, run through the targets
//! without the fuzzer: the seeds show the targets accept real input, the regressions that
//! each failure found stays fixed.

use std::fs;
use std::path::{Path, PathBuf};

fn inputs(dirs: &[PathBuf]) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = dirs
        .iter()
        .filter_map(|d| fs::read_dir(d).ok())
        .flatten()
        .map(|e| e.expect("a readable directory entry").path())
        .filter(|p| p.is_file() && p.file_name().is_some_and(|n| !n.to_string_lossy().starts_with('.')))
        .collect();
    files.sort();
    files
}

fn replay(target: fn(&[u8]), dirs: &[PathBuf]) -> usize {
    let files = inputs(dirs);
    for file in &files {
        let data = fs::read(file).expect("a readable input");
        if std::panic::catch_unwind(|| target(&data)).is_err() {
            panic!("{} fails again", file.display());
        }
    }
    files.len()
}

fn here(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)
}

#[test]
fn every_configuration_seed_and_regression_passes_the_config_target() {
    let dirs = [
        here("seeds/config"),
        here("regressions/config"),
        here("../../conf"),
        here("../../integration-tests/configs/real-configs"),
    ];
    let n = replay(capsched_fuzz::config, &dirs);
    assert!(n > 40, "only {n} configuration inputs were found");
}

#[test]
fn every_seam_seed_and_regression_passes_the_seam_target() {
    let n = replay(capsched_fuzz::seam, &[here("seeds/seam"), here("regressions/seam")]);
    assert!(n > 0, "no seam inputs were found");
}
