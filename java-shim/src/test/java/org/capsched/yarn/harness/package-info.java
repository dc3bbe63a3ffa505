/**
 * What the tests and the benchmark drive schedulers with: {@link
 * org.capsched.yarn.harness.RmHarness} starts a real ResourceManager (Hadoop's MockRM) on a
 * given scheduler and capacity-scheduler.xml, {@link org.capsched.yarn.harness.ScenarioFile}
 * reads scenario files (docs/scenario-format.md), {@link
 * org.capsched.yarn.harness.ScenarioDriver} steps one through an RM and snapshots what the
 * RM's objects say, and {@link org.capsched.yarn.harness.ScenarioRacks} gives scenario nodes
 * their racks.
 */
package org.capsched.yarn.harness;
