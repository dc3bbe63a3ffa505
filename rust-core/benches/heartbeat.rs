//! The heartbeat hot path at cluster scale: 10,000 nodes, 10,000 applications and 1,000
//! leaf queues (10 parents of 100 leaves). Four cases:
//! - `allocating`: a node heartbeat that places a container (then the container finishes,
//!   so every iteration sees the same state);
//! - `noop`: every user is at its user limit and still asking, so a heartbeat walks the
//!   whole tree and every application and places nothing (the case Apache's
//!   TestCapacitySchedulerPerf measures), with the memory and the dominant-resource
//!   calculator;
//! - `refresh`: the part of `refreshQueues` that holds the scheduler's lock, run back to
//!   back and with the caches cold (written over between refreshes, as a running RM's are);
//! - `fill`: the side-by-side benchmark's workload (section (a) of BENCHMARKS.md) in the
//!   core alone: 5,000 nodes of 20 GB, every application asking for its share of the
//!   cluster, nodes heartbeating in turn until the cluster is full; time per heartbeat.
//!
//! Run: `cargo bench -p capsched --bench heartbeat`.

#[path = "support/cluster.rs"]
mod cluster;

use capsched::resource::Resource;
use capsched::scheduler::PreparedRefresh;
use capsched::{Ask, ContainerRef, SchedulerKey, ANY};
use capsched::{Scheduler, Submission};
use cluster::{cluster, config, every_user_at_its_limit, Calculator, APPS_PER_LEAF, LEAVES_PER_PARENT, NODES, PARENTS};
use criterion::{criterion_group, criterion_main, Criterion};
use std::hint::black_box;

fn allocating(c: &mut Criterion) {
    let mut s = cluster("100");
    let mut node = 0u32;
    c.bench_function("heartbeat/allocating (10k nodes, 10k apps, 1k queues)", |b| {
        b.iter(|| {
            let placed = s.node_heartbeat(node, &[]);
            assert!(!placed.is_empty(), "the benchmark must measure an allocating heartbeat");
            let done: Vec<ContainerRef> = placed.iter().map(|a| (a.app, a.container)).collect();
            s.release(black_box(&done));
            node = (node + 1) % NODES as u32;
        })
    });
}

fn noop(c: &mut Criterion) {
    for (name, calculator) in [
        ("heartbeat/noop, every user at its limit (10k nodes, 10k apps, 1k queues)", Calculator::Memory),
        ("heartbeat/noop, every user at its limit, DRF (10k nodes, 10k apps, 1k queues)", Calculator::Drf),
    ] {
        let mut s = every_user_at_its_limit(calculator);
        let mut node = 0u32;
        c.bench_function(name, |b| {
            b.iter(|| {
                let placed = s.node_heartbeat(black_box(node), &[]);
                assert!(placed.is_empty(), "the benchmark must measure a heartbeat that places nothing");
                node = (node + 1) % NODES as u32;
            })
        });
    }
}

/// `refreshQueues` as the scheduler's lock sees it: a configuration already read,
/// validated and built into a tree (outside the lock) checked against the live state and
/// swapped in, with every application placed and asking. Successive refreshes alternate
/// two files that differ in every queue's user-limit-factor.
fn refresh(c: &mut Criterion) {
    let mut s = cluster("100");
    for n in 0..NODES as u32 {
        s.node_heartbeat(n, &[]);
    }
    let files = [config("100"), config("99")];
    let mut i = 0;
    // Twice this machine's last-level cache, written over before each cold refresh.
    let mut elsewhere = vec![0u8; 64 << 20];
    for (name, cold) in [
        ("refresh/commit (10k nodes, 10k apps, 1k queues)", false),
        ("refresh/commit, caches cold (10k nodes, 10k apps, 1k queues)", true),
    ] {
        c.bench_function(name, |b| {
            b.iter_batched(
                || {
                    i += 1;
                    let prepared = PreparedRefresh::new(files[i % 2].clone());
                    if cold {
                        // As in a running RM, where heartbeats, allocate() calls and the
                        // JVM have been through the caches since the last refresh.
                        for x in elsewhere.iter_mut().step_by(64) {
                            *x = x.wrapping_add(1);
                        }
                        black_box(&elsewhere);
                    }
                    prepared
                },
                // What the swap replaced goes back to criterion, which frees it untimed:
                // the shim frees it after releasing the lock.
                |prepared| {
                    s.refresh_prepared(prepared).expect("refresh");
                    s.take_retired()
                },
                criterion::BatchSize::PerIteration,
            )
        });
    }
}

/// The side-by-side workload: 5,000 nodes of 20 GB / 20 vcores, 1,000 leaves, 10,000
/// applications each asking for its share (ten 1 GB containers), one container a node
/// heartbeat (Apache's default off-switch limit); the nodes heartbeat in rounds until a
/// round places nothing. Criterion times each fill and reports it per heartbeat; between
/// fills (untimed) every container is released and every application asks again, so each
/// fill starts from the same state in the same maps.
fn fill(c: &mut Criterion) {
    const FILL_NODES: u32 = 5_000;
    const NODE_GB: i64 = 20;
    let mut s = Scheduler::new(config("100"), 0);
    for n in 0..FILL_NODES {
        let total = Resource::new(NODE_GB * 1024, NODE_GB);
        s.add_node(&format!("n{n}:8041"), &format!("n{n}"), &format!("/r{}", n % 100), total);
    }
    let share = (i64::from(FILL_NODES) * NODE_GB) as u32 / (PARENTS * LEAVES_PER_PARENT * APPS_PER_LEAF) as u32;
    let ask = Ask {
        key: SchedulerKey { priority: 1, allocation_request_id: 0 },
        resource_name: ANY.into(),
        capability: Resource::new(1024, 1),
        count: share,
        relax_locality: true,
    };
    let mut apps = Vec::new();
    for p in 0..PARENTS {
        for l in 0..LEAVES_PER_PARENT {
            for a in 0..APPS_PER_LEAF {
                let id = apps.len() as i32 + 1;
                let sub = Submission::new(id, &format!("p{p}l{l}"), &format!("user{a}"), Resource::new(1024, 1));
                let (key, _) = s.submit(&sub).expect("admitted");
                s.add_attempt(key, 1, false);
                apps.push(key);
            }
        }
    }
    let mut group = c.benchmark_group("heartbeat/fill (5k nodes of 20 GB, 10k apps, 1k queues)");
    group.sample_size(20);
    group.bench_function("per heartbeat", |b| {
        b.iter_custom(|iters| {
            let mut total = std::time::Duration::ZERO;
            let mut heartbeats = 0u64;
            for _ in 0..iters {
                for &app in &apps {
                    s.update_requests(app, std::slice::from_ref(&ask));
                }
                let mut placed: Vec<ContainerRef> = Vec::with_capacity(apps.len() * share as usize);
                let start = std::time::Instant::now();
                loop {
                    let before = placed.len();
                    for n in 0..FILL_NODES {
                        placed.extend(s.node_heartbeat(n, &[]).iter().map(|a| (a.app, a.container)));
                        heartbeats += 1;
                    }
                    if placed.len() == before {
                        break;
                    }
                }
                total += start.elapsed();
                assert_eq!(placed.len(), apps.len() * share as usize, "the fill must place every container asked for");
                s.release(&placed);
            }
            // Per heartbeat: criterion divides by `iters`, so scale to one heartbeat.
            total.div_f64(heartbeats as f64 / iters as f64)
        })
    });
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20).measurement_time(std::time::Duration::from_secs(10));
    targets = allocating, noop, refresh, fill
}
criterion_main!(benches);
