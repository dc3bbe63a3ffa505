/**
 * The shim's contract tests: {@link org.capsched.yarn.RmContractTest} (the ResourceManager's
 * contract with its scheduler, item by item), {@link org.capsched.yarn.ReservationThroughRmTest}
 * (a reservation end to end through a real RM) and {@link org.capsched.yarn.NativeBoundaryTest}
 * (the JNI boundary), with {@link org.capsched.yarn.ConsistencyCheck}, which every test run
 * through our scheduler uses to compare the Rust core with the RM's objects.
 *
 * <p>They live in the scheduler's own package because they need its package-private parts:
 * the consistency check reaches the core through {@code RustCapacityScheduler.inspect},
 * the boundary test drives {@code NativeScheduler} directly, and the contract test reads
 * {@code RustAppAttempt.UPDATES_NOT_SUPPORTED} and the queue directory. The reservation test
 * needs none of them; it stays beside the contract test it extends. The RM harness is in
 * {@code org.capsched.yarn.harness}, the side-by-side comparisons with Apache's
 * CapacityScheduler in {@code org.capsched.yarn.conformance}.
 */
package org.capsched.yarn;
