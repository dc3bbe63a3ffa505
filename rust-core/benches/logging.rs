//! What a log record below its logger's level costs the core (`jni::logging`):
//! - `debug_record_below_max_level`: the common case, a DEBUG record while every core
//!   logger is at INFO — `log`'s global maximum level drops it;
//! - `debug_record_at_info`: a DEBUG record of a module at INFO while another core logger
//!   is at DEBUG (the maximum lets it through), dropped by the kept per-module level;
//! - `info_record_decision`: the decision for a record that is written (the write itself,
//!   a call into Java, comes on top).
//!
//! Compare with the allocating heartbeat (`heartbeat` benchmark, about 4 µs), which makes
//! one DEBUG record per container placed.
//!
//! Run: `cargo bench -p capsched --bench logging`.

use capsched::jni::logging::{record_enabled, LevelCache};
use criterion::{criterion_group, criterion_main, Criterion};
use log::{Level, LevelFilter, Metadata};
use std::hint::black_box;

fn below_level(c: &mut Criterion) {
    log::set_max_level(LevelFilter::Info);
    c.bench_function("logging/debug_record_below_max_level", |b| {
        b.iter(|| log::debug!(target: "capsched::scheduler::heartbeat", "allocated {}", black_box(1)))
    });
    let cache = LevelCache::new();
    let debug = Metadata::builder().level(Level::Debug).target("capsched::scheduler::heartbeat").build();
    let info = Metadata::builder().level(Level::Info).target("capsched::scheduler::heartbeat").build();
    c.bench_function("logging/debug_record_at_info", |b| {
        b.iter(|| record_enabled(&cache, black_box(&debug), |_| LevelFilter::Info))
    });
    c.bench_function("logging/info_record_decision", |b| {
        b.iter(|| record_enabled(&cache, black_box(&info), |_| LevelFilter::Info))
    });
}

criterion_group!(benches, below_level);
criterion_main!(benches);
