//! A fixed number of no-op heartbeats on the no-op case's cluster (`benches/heartbeat.rs`),
//! for tools that count rather than time: under Valgrind's cache simulator, the
//! instructions and cache misses of one heartbeat that walks every leaf and application
//! and places nothing.
//!
//! Run: `cargo build --release -p capsched --example noop_walk`, then
//! `valgrind --tool=callgrind --cache-sim=yes --toggle-collect='*noop_heartbeat*'
//! target/release/examples/noop_walk [drf] [heartbeats]` (default 200): the totals
//! Valgrind prints are those of the heartbeats alone; divide by their number.

#[path = "../benches/support/cluster.rs"]
mod cluster;

use capsched::Scheduler;
use cluster::{every_user_at_its_limit, Calculator, NODES};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let calculator = if args.iter().any(|a| a == "drf") { Calculator::Drf } else { Calculator::Memory };
    let heartbeats: u32 = args.iter().find_map(|a| a.parse().ok()).unwrap_or(200);
    let mut s = every_user_at_its_limit(calculator);
    // Nodes spread over the cluster, each with room: the first nodes are full, and a full
    // node's heartbeat stops before the walk.
    let start = std::time::Instant::now();
    for i in 0..heartbeats {
        let node = (NODES as u32 - 1) - (i * 7) % (NODES as u32 / 2);
        assert_eq!(noop_heartbeat(&mut s, node), 0, "a no-op heartbeat places nothing");
    }
    eprintln!("{heartbeats} no-op heartbeats, {:?} each", start.elapsed() / heartbeats.max(1));
}

/// One heartbeat, kept out of line so that a profiler can count it alone.
#[inline(never)]
fn noop_heartbeat(s: &mut Scheduler, node: u32) -> usize {
    s.node_heartbeat(node, &[]).len()
}
