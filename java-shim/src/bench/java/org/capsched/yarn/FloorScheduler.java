package org.capsched.yarn;

/**
 * The benchmark's floor: our scheduler, shim and core, but with a core that decides nothing
 * (each node heartbeat places the first pending ask that fits, the leaves taking turns
 * container by container and a leaf's applications first come first served, the sequence
 * a capacity scheduler's placements take on the benchmark's equal leaves;
 * {@code capsched.bench.floor}, honoured by the benchmark build of the core only).
 * Every container is materialised by our shim's own code, so what the floor costs is what
 * the RM's bookkeeping and the crossing cost without the capacity scheduler's decisions.
 */
public class FloorScheduler extends RustCapacityScheduler {
  /** The key the side-by-side benchmark adds to capacity-scheduler.xml for this scheduler. */
  static final String FLOOR_KEY = "capsched.bench.floor";
}
