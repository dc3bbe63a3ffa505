/**
 * Side by side with Apache's CapacityScheduler: the same configurations, refreshes,
 * repository scenarios and seeded random scenarios run through a real RM with each
 * scheduler, and what the RM's objects say must agree, or part only as
 * {@link org.capsched.yarn.conformance.KnownDivergences} (divergences.txt) explains.
 */
package org.capsched.yarn.conformance;
