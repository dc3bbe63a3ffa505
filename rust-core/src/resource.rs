//! Resource vectors (memory and vcores) and the two resource calculators.
//!
//! Arithmetic saturates instead of overflowing or going negative: a bookkeeping bug must
//! never wrap a node's free memory around to 9 exabytes and hand it out.

use serde::{Deserialize, Serialize};
use std::fmt;

/// An amount of memory (MiB) and virtual cores, as YARN's `Resource` carries them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Resource {
    /// Memory in MiB.
    pub memory_mb: i64,
    /// Virtual cores.
    pub vcores: i64,
}

impl Resource {
    /// No memory, no cores.
    pub const ZERO: Resource = Resource { memory_mb: 0, vcores: 0 };

    /// A resource of `memory_mb` MiB and `vcores` cores.
    pub const fn new(memory_mb: i64, vcores: i64) -> Self {
        Resource { memory_mb, vcores }
    }

    /// Component-wise sum, saturating at `i64::MAX`.
    pub fn plus(self, other: Resource) -> Resource {
        Resource::new(self.memory_mb.saturating_add(other.memory_mb), self.vcores.saturating_add(other.vcores))
    }

    /// Component-wise difference, floored at zero.
    pub fn minus(self, other: Resource) -> Resource {
        Resource::new(
            self.memory_mb.saturating_sub(other.memory_mb).max(0),
            self.vcores.saturating_sub(other.vcores).max(0),
        )
    }

    /// Component-wise difference that may go below zero (Apache's `Resources.subtract`):
    /// how far a queue is over its limit matters to the decisions made from it.
    pub fn difference(self, other: Resource) -> Resource {
        Resource::new(self.memory_mb.saturating_sub(other.memory_mb), self.vcores.saturating_sub(other.vcores))
    }

    /// `self * n`, saturating.
    pub fn times(self, n: i64) -> Resource {
        Resource::new(self.memory_mb.saturating_mul(n), self.vcores.saturating_mul(n))
    }

    /// `self * factor`, each component rounded down.
    pub fn scaled(self, factor: f64) -> Resource {
        Resource::new((self.memory_mb as f64 * factor).floor() as i64, (self.vcores as f64 * factor).floor() as i64)
    }

    /// Component-wise minimum.
    pub fn component_min(self, other: Resource) -> Resource {
        Resource::new(self.memory_mb.min(other.memory_mb), self.vcores.min(other.vcores))
    }

    /// Component-wise maximum.
    pub fn component_max(self, other: Resource) -> Resource {
        Resource::new(self.memory_mb.max(other.memory_mb), self.vcores.max(other.vcores))
    }

    /// True when every component of `self` is at most the same component of `other`.
    pub fn fits_in(self, other: Resource) -> bool {
        self.memory_mb <= other.memory_mb && self.vcores <= other.vcores
    }

    /// True when both components are zero or less.
    pub fn is_none(self) -> bool {
        self.memory_mb <= 0 && self.vcores <= 0
    }
}

impl fmt::Display for Resource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "<memory:{}, vCores:{}>", self.memory_mb, self.vcores)
    }
}

/// How resources are compared: YARN's `DefaultResourceCalculator` looks at memory only,
/// `DominantResourceCalculator` at the dominant share of memory and vcores (DRF).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum ResourceCalculator {
    /// Memory only.
    #[default]
    Memory,
    /// Dominant resource fairness over memory and vcores.
    Dominant,
}

impl ResourceCalculator {
    /// Maps the class name an operator writes in `yarn.scheduler.capacity.resource-calculator`.
    /// Only the two real class names are accepted: Apache loads the class by name, so an old
    /// or misspelt package fails there too.
    pub fn from_class_name(name: &str) -> Option<ResourceCalculator> {
        [ResourceCalculator::Memory, ResourceCalculator::Dominant].into_iter().find(|c| c.class_name() == name)
    }

    /// The Java class this calculator stands for, as Apache names it.
    pub fn class_name(self) -> &'static str {
        match self {
            ResourceCalculator::Memory => "org.apache.hadoop.yarn.util.resource.DefaultResourceCalculator",
            ResourceCalculator::Dominant => "org.apache.hadoop.yarn.util.resource.DominantResourceCalculator",
        }
    }

    /// The share of `total` that `used` represents (0 when `total` is empty).
    pub fn ratio(self, used: Resource, total: Resource) -> f64 {
        let share = |u: i64, t: i64| if t <= 0 { 0.0 } else { u as f64 / t as f64 };
        match self {
            ResourceCalculator::Memory => share(used.memory_mb, total.memory_mb),
            ResourceCalculator::Dominant => {
                share(used.memory_mb, total.memory_mb).max(share(used.vcores, total.vcores))
            }
        }
    }

    /// `used / total` in Java floats, as Apache's `ResourceCalculator.ratio` works it out
    /// (the dominant calculator takes the larger of the two shares).
    pub fn ratio_f32(self, used: Resource, total: Resource) -> f32 {
        let share = |u: i64, t: i64| if t == 0 { 0.0 } else { u as f32 / t as f32 };
        match self {
            ResourceCalculator::Memory => share(used.memory_mb, total.memory_mb),
            ResourceCalculator::Dominant => {
                share(used.memory_mb, total.memory_mb).max(share(used.vcores, total.vcores))
            }
        }
    }

    /// True when `request` fits in `available` as this calculator sees it. The node fit
    /// check always looks at both dimensions (a node cannot run a container whose vcores it
    /// lacks), but the Default calculator ignores vcores here, exactly as Apache does.
    pub fn fits(self, request: Resource, available: Resource) -> bool {
        match self {
            ResourceCalculator::Memory => request.memory_mb <= available.memory_mb,
            ResourceCalculator::Dominant => request.fits_in(available),
        }
    }

    /// True when some resource the calculator schedules is above zero (Apache's
    /// `isAnyMajorResourceAboveZero`): memory alone for the Default calculator, memory or
    /// vcores for the Dominant one.
    pub fn any_above_zero(self, r: Resource) -> bool {
        match self {
            ResourceCalculator::Memory => r.memory_mb > 0,
            ResourceCalculator::Dominant => r.memory_mb > 0 || r.vcores > 0,
        }
    }

    /// Orders `a` and `b` as Apache's calculators do: by memory, or by dominant share of
    /// `cluster` (then by the other share).
    pub fn compare(self, cluster: Resource, a: Resource, b: Resource) -> std::cmp::Ordering {
        match self {
            ResourceCalculator::Memory => a.memory_mb.cmp(&b.memory_mb),
            ResourceCalculator::Dominant => {
                if a == b {
                    return std::cmp::Ordering::Equal;
                }
                if cluster.memory_mb <= 0 && cluster.vcores <= 0 {
                    // No cluster to take shares of (Apache's isAllInvalidDivisor): one is
                    // greater when it is greater in some resource and less in none.
                    let (m, v) = (a.memory_mb.cmp(&b.memory_mb), a.vcores.cmp(&b.vcores));
                    return match (m.is_gt() || v.is_gt(), m.is_lt() || v.is_lt()) {
                        (true, false) => std::cmp::Ordering::Greater,
                        (false, true) => std::cmp::Ordering::Less,
                        _ => std::cmp::Ordering::Equal,
                    };
                }
                if cluster.memory_mb <= 0 || cluster.vcores <= 0 {
                    return a.memory_mb.cmp(&b.memory_mb).then(a.vcores.cmp(&b.vcores));
                }
                let shares = |r: Resource| {
                    let m = r.memory_mb as f64 / cluster.memory_mb as f64;
                    let v = r.vcores as f64 / cluster.vcores as f64;
                    (m.max(v), m.min(v))
                };
                let (a1, a2) = shares(a);
                let (b1, b2) = shares(b);
                a1.total_cmp(&b1).then(a2.total_cmp(&b2))
            }
        }
    }

    /// True when `a` is strictly greater than `b` (`Resources.greaterThan`).
    pub fn greater_than(self, cluster: Resource, a: Resource, b: Resource) -> bool {
        self.compare(cluster, a, b).is_gt()
    }

    /// The larger of `a` and `b` (`Resources.max`).
    pub fn max(self, cluster: Resource, a: Resource, b: Resource) -> Resource {
        if self.compare(cluster, a, b).is_ge() {
            a
        } else {
            b
        }
    }

    /// The smaller of `a` and `b` (`Resources.min`).
    pub fn min(self, cluster: Resource, a: Resource, b: Resource) -> Resource {
        if self.compare(cluster, a, b).is_le() {
            a
        } else {
            b
        }
    }

    /// `a / b` as Apache's `Resources.divide`: memory over memory, or dominant share over
    /// dominant share (both relative to `cluster`). 0 when `b` is empty.
    pub fn divide(self, cluster: Resource, a: Resource, b: Resource) -> f64 {
        match self {
            ResourceCalculator::Memory => {
                if b.memory_mb == 0 {
                    0.0
                } else {
                    a.memory_mb as f64 / b.memory_mb as f64
                }
            }
            ResourceCalculator::Dominant => {
                let share = |r: Resource| {
                    let m = if cluster.memory_mb > 0 { r.memory_mb as f64 / cluster.memory_mb as f64 } else { 0.0 };
                    let v = if cluster.vcores > 0 { r.vcores as f64 / cluster.vcores as f64 } else { 0.0 };
                    m.max(v)
                };
                let d = share(b);
                if d == 0.0 {
                    0.0
                } else {
                    share(a) / d
                }
            }
        }
    }

    /// `a / b` exactly as Apache's calculators work it out, in floats, where
    /// [`ResourceCalculator::divide`] guards its divisor: 0 over 0 is 0 under the Default
    /// calculator and NaN under the Dominant one (whose shares skip any resource the
    /// `cluster` has none of), anything else over nothing is infinite.
    pub fn divide_as_java(self, cluster: Resource, a: Resource, b: Resource) -> f32 {
        match self {
            ResourceCalculator::Memory => {
                if a.memory_mb == 0 && b.memory_mb == 0 {
                    0.0
                } else {
                    a.memory_mb as f32 / b.memory_mb as f32
                }
            }
            ResourceCalculator::Dominant => {
                let (mut max_a, mut max_b) = (0.0f64, 0.0f64);
                for (total, x, y) in
                    [(cluster.memory_mb, a.memory_mb, b.memory_mb), (cluster.vcores, a.vcores, b.vcores)]
                {
                    if total == 0 {
                        continue;
                    }
                    max_a = max_a.max(x as f64 / total as f64);
                    max_b = max_b.max(y as f64 / total as f64);
                }
                (max_a / max_b) as f32
            }
        }
    }

    /// `r * by`, rounded up to a multiple of `step` (`multiplyAndNormalizeUp`).
    pub fn multiply_and_normalize_up(self, r: Resource, by: f64, step: Resource) -> Resource {
        match self {
            ResourceCalculator::Memory => memory_only(round_up((r.memory_mb as f64 * by + 0.5) as i64, step.memory_mb)),
            // Apache narrows the product to a float before taking the ceiling, so a
            // float percentage's widening error (10 x 0.1f = 1.0000000149) does not
            // round up.
            ResourceCalculator::Dominant => Resource::new(
                round_up(((r.memory_mb as f64 * by) as f32).ceil() as i64, step.memory_mb),
                round_up(((r.vcores as f64 * by) as f32).ceil() as i64, step.vcores),
            ),
        }
    }

    /// `r * by`, rounded down to a multiple of `step` (`multiplyAndNormalizeDown`).
    pub fn multiply_and_normalize_down(self, r: Resource, by: f64, step: Resource) -> Resource {
        match self {
            ResourceCalculator::Memory => memory_only(round_down((r.memory_mb as f64 * by) as i64, step.memory_mb)),
            ResourceCalculator::Dominant => Resource::new(
                round_down((r.memory_mb as f64 * by) as i64, step.memory_mb),
                round_down((r.vcores as f64 * by) as i64, step.vcores),
            ),
        }
    }

    /// `r / by`, each dimension rounded up (`divideAndCeil`); 0 when `by` is 0.
    pub fn divide_and_ceil(self, r: Resource, by: f64) -> Resource {
        let div = |v: i64| if by == 0.0 { 0 } else { (v as f64 / by).ceil() as i64 };
        match self {
            ResourceCalculator::Memory => memory_only(div(r.memory_mb)),
            ResourceCalculator::Dominant => Resource::new(div(r.memory_mb), div(r.vcores)),
        }
    }

    /// `r` rounded down to a multiple of `step` (`roundDown`).
    pub fn round_down_to(self, r: Resource, step: Resource) -> Resource {
        match self {
            ResourceCalculator::Memory => memory_only(round_down(r.memory_mb, step.memory_mb)),
            ResourceCalculator::Dominant => {
                Resource::new(round_down(r.memory_mb, step.memory_mb), round_down(r.vcores, step.vcores))
            }
        }
    }

    /// `r` rounded up to a multiple of `step` (`roundUp`).
    pub fn round_up(self, r: Resource, step: Resource) -> Resource {
        match self {
            ResourceCalculator::Memory => memory_only(round_up(r.memory_mb, step.memory_mb)),
            ResourceCalculator::Dominant => {
                Resource::new(round_up(r.memory_mb, step.memory_mb), round_up(r.vcores, step.vcores))
            }
        }
    }
}

/// What the memory-only calculator makes of a memory figure (Apache's
/// `Resources.createResource(memory)`): one vcore if there is any memory, else none. Its
/// rounding, scaling and dividing all answer this way, whatever vcores went in; decisions
/// never read them, but the headroom an AM is told carries them.
fn memory_only(memory_mb: i64) -> Resource {
    Resource::new(memory_mb, i64::from(memory_mb > 0))
}

/// `value` rounded up to a multiple of `step` (unchanged when `step` is 0).
pub fn round_up(value: i64, step: i64) -> i64 {
    if step <= 0 {
        return value;
    }
    ((value + step - 1) / step) * step
}

/// `value` rounded down to a multiple of `step` (unchanged when `step` is 0).
pub fn round_down(value: i64, step: i64) -> i64 {
    if step <= 0 {
        return value;
    }
    (value / step) * step
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_counts_as_above_zero_depends_on_the_calculator() {
        let vcores_only = Resource::new(0, 1);
        assert!(!ResourceCalculator::Memory.any_above_zero(vcores_only));
        assert!(ResourceCalculator::Dominant.any_above_zero(vcores_only));
        assert!(ResourceCalculator::Memory.any_above_zero(Resource::new(1, 0)));
    }

    #[test]
    fn arithmetic_saturates_and_never_goes_negative() {
        let a = Resource::new(1024, 1);
        assert_eq!(a.minus(Resource::new(4096, 4)), Resource::ZERO);
        assert_eq!(Resource::new(i64::MAX, 1).plus(a).memory_mb, i64::MAX);
        assert_eq!(a.times(3), Resource::new(3072, 3));
        assert_eq!(Resource::new(1000, 3).scaled(0.5), Resource::new(500, 1));
    }

    #[test]
    fn calculators_compare_like_apache() {
        let total = Resource::new(10_240, 10);
        let used = Resource::new(1024, 5);
        assert!((ResourceCalculator::Memory.ratio(used, total) - 0.1).abs() < 1e-9);
        assert!((ResourceCalculator::Dominant.ratio(used, total) - 0.5).abs() < 1e-9);
        assert_eq!(ResourceCalculator::Memory.ratio(used, Resource::ZERO), 0.0);
        // Memory calculator ignores vcores when fitting.
        assert!(ResourceCalculator::Memory.fits(Resource::new(1024, 8), Resource::new(2048, 1)));
        assert!(!ResourceCalculator::Dominant.fits(Resource::new(1024, 8), Resource::new(2048, 1)));
    }

    #[test]
    fn normalisation_matches_apache() {
        let m = ResourceCalculator::Memory;
        let step = Resource::new(1024, 1);
        // DefaultResourceCalculator adds 0.5 before rounding up.
        assert_eq!(m.multiply_and_normalize_up(Resource::new(10_000, 1), 0.1, step).memory_mb, 1024);
        assert_eq!(m.multiply_and_normalize_down(Resource::new(10_000, 1), 0.25, step).memory_mb, 2048);
        assert_eq!(m.divide_and_ceil(Resource::new(10_000, 1), 3.0).memory_mb, 3334);
        assert_eq!(m.round_up(Resource::new(1025, 1), step).memory_mb, 2048);
        let d = ResourceCalculator::Dominant;
        assert_eq!(d.multiply_and_normalize_up(Resource::new(10_000, 10), 0.15, step), Resource::new(2048, 2));
        let cluster = Resource::new(10_240, 10);
        assert!((d.divide(cluster, Resource::new(1024, 5), Resource::new(5120, 1)) - 1.0).abs() < 1e-9);
        assert_eq!(d.max(cluster, Resource::new(1024, 5), Resource::new(4096, 1)), Resource::new(1024, 5));
    }

    #[test]
    fn calculator_names() {
        assert_eq!(
            ResourceCalculator::from_class_name("org.apache.hadoop.yarn.util.resource.DominantResourceCalculator"),
            Some(ResourceCalculator::Dominant)
        );
        assert_eq!(
            ResourceCalculator::from_class_name("org.apache.hadoop.yarn.util.resource.DefaultResourceCalculator"),
            Some(ResourceCalculator::Memory)
        );
        // The pre-2.2 package no longer exists; Apache fails to load it.
        assert_eq!(
            ResourceCalculator::from_class_name(
                "org.apache.hadoop.yarn.server.resourcemanager.resource.DefaultResourceCalculator"
            ),
            None
        );
        assert_eq!(ResourceCalculator::from_class_name("com.acme.Mine"), None);
    }
}
