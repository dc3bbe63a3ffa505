package org.capsched.yarn;

/**
 * The benchmark's floor: our scheduler, shim and core, but with a core that decides nothing
 * (each node heartbeat places the first pending ask that fits, the applications taking
 * turns container by container, so that consecutive containers go to different
 * applications and leaves as a capacity scheduler's do; {@code capsched.bench.floor},
 * honoured by the benchmark build of the core only).
 * Every container is materialised by our shim's own code, so what the floor costs is what
 * the RM's bookkeeping and the crossing cost without the capacity scheduler's decisions.
 */
public class FloorScheduler extends RustCapacityScheduler {
  /** The key the side-by-side benchmark adds to capacity-scheduler.xml for this scheduler. */
  static final String FLOOR_KEY = "capsched.bench.floor";
}
