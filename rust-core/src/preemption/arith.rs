//! Apache's resource arithmetic as its preemption policy does it. The policy's figures
//! may go negative, its ratios are single-precision floats, and its two "normalise up"
//! helpers round differently (half up under the Default calculator, a ceiling under DRF,
//! and the scalar form narrows to a float first); each of these decides which containers
//! are taken, so they are written out here rather than borrowed from the scheduler's
//! saturating arithmetic.

use crate::resource::{Resource, ResourceCalculator};
use std::cmp::Ordering;

/// The calculator, with the comparisons and products the policy uses.
#[derive(Debug, Clone, Copy)]
pub(super) struct Calc(pub ResourceCalculator);

impl Calc {
    pub fn cmp(self, c: Resource, a: Resource, b: Resource) -> Ordering {
        self.0.compare(c, a, b)
    }

    pub fn gt(self, c: Resource, a: Resource, b: Resource) -> bool {
        self.cmp(c, a, b).is_gt()
    }

    pub fn lt(self, c: Resource, a: Resource, b: Resource) -> bool {
        self.cmp(c, a, b).is_lt()
    }

    pub fn le(self, c: Resource, a: Resource, b: Resource) -> bool {
        self.cmp(c, a, b).is_le()
    }

    /// `Resources.min`: one of the two operands, whole.
    pub fn min(self, c: Resource, a: Resource, b: Resource) -> Resource {
        self.0.min(c, a, b)
    }

    /// `Resources.max`: one of the two operands, whole.
    pub fn max(self, c: Resource, a: Resource, b: Resource) -> Resource {
        self.0.max(c, a, b)
    }

    /// `Resources.divide` as a float: memory over memory, or the dominant share over the
    /// dominant share (types the cluster lacks ignored; 0/0 is NaN there, 0 here).
    pub fn divide(self, c: Resource, a: Resource, b: Resource) -> f32 {
        self.0.divide_as_java(c, a, b)
    }

    /// `ResourceCalculator.ratio`: memory over memory, or under DRF the largest of the
    /// per-type ratios (0/0 counting as 0), in single precision.
    pub fn ratio(self, a: Resource, b: Resource) -> f32 {
        let safe = |x: i64, y: i64| if x == 0 && y == 0 { 0.0 } else { x as f32 / y as f32 };
        match self.0 {
            ResourceCalculator::Memory => safe(a.memory_mb, b.memory_mb),
            ResourceCalculator::Dominant => {
                let (m, v) = (safe(a.memory_mb, b.memory_mb), safe(a.vcores, b.vcores));
                if m > v {
                    m
                } else {
                    v
                }
            }
        }
    }

    /// `multiplyAndNormalizeUp(r, double[] by, (1,1))`: per type, the Default calculator
    /// rounds memory half up (and has one vcore when it has memory); DRF takes the
    /// ceiling in double precision.
    pub fn normalize_up_each(self, r: Resource, by: [f64; 2]) -> Resource {
        match self.0 {
            ResourceCalculator::Memory => memory_only((r.memory_mb as f64 * by[0] + 0.5) as i64),
            ResourceCalculator::Dominant => {
                Resource::new((r.memory_mb as f64 * by[0]).ceil() as i64, (r.vcores as f64 * by[1]).ceil() as i64)
            }
        }
    }

    /// `multiplyAndNormalizeUp(r, double by, (1,1))`: as [`Calc::normalize_up_each`], but
    /// DRF narrows each product to a float before its ceiling.
    pub fn normalize_up(self, r: Resource, by: f64) -> Resource {
        match self.0 {
            ResourceCalculator::Memory => memory_only((r.memory_mb as f64 * by + 0.5) as i64),
            ResourceCalculator::Dominant => Resource::new(
                ((r.memory_mb as f64 * by) as f32).ceil() as i64,
                ((r.vcores as f64 * by) as f32).ceil() as i64,
            ),
        }
    }

    /// `fitsIn`: memory alone, or every type under DRF.
    pub fn fits_in(self, a: Resource, b: Resource) -> bool {
        match self.0 {
            ResourceCalculator::Memory => a.memory_mb <= b.memory_mb,
            ResourceCalculator::Dominant => a.fits_in(b),
        }
    }

    /// `isAnyMajorResourceAboveZero`.
    pub fn any_above_zero(self, r: Resource) -> bool {
        self.0.any_above_zero(r)
    }

    /// `isAnyMajorResourceZeroOrNegative`.
    pub fn any_zero_or_negative(self, r: Resource) -> bool {
        match self.0 {
            ResourceCalculator::Memory => r.memory_mb <= 0,
            ResourceCalculator::Dominant => r.memory_mb <= 0 || r.vcores <= 0,
        }
    }
}

/// `Resources.createResource(memory)`: one vcore when there is memory.
fn memory_only(memory_mb: i64) -> Resource {
    Resource::new(memory_mb, i64::from(memory_mb > 0))
}

/// `a + b`, exact (may be negative).
pub(super) fn add(a: Resource, b: Resource) -> Resource {
    Resource::new(a.memory_mb + b.memory_mb, a.vcores + b.vcores)
}

/// `a − b`, exact (may be negative).
pub(super) fn sub(a: Resource, b: Resource) -> Resource {
    a.difference(b)
}

/// `Resources.multiply`: each type times `f` in double precision, truncated toward zero.
pub(super) fn mul(r: Resource, f: f64) -> Resource {
    Resource::new((r.memory_mb as f64 * f) as i64, (r.vcores as f64 * f) as i64)
}

/// Each type at least zero (`componentwiseMax(r, none)`).
pub(super) fn floor0(r: Resource) -> Resource {
    r.component_max(Resource::ZERO)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_calculator_rounds_half_up_and_drf_takes_ceilings() {
        let d = Calc(ResourceCalculator::Memory);
        assert_eq!(d.normalize_up(Resource::new(10240, 10), 0.2), Resource::new(2048, 1));
        assert_eq!(d.normalize_up_each(Resource::new(5, 0), [0.5, 0.5]), Resource::new(3, 1));
        assert_eq!(d.normalize_up_each(Resource::new(1, 0), [0.4, 0.4]), Resource::ZERO);
        let f = Calc(ResourceCalculator::Dominant);
        assert_eq!(f.normalize_up_each(Resource::new(5, 3), [0.5, 0.5]), Resource::new(3, 2));
        // 10 x 0.1 in double is 1.0000000000000002, whose float is 1.0.
        assert_eq!(f.normalize_up(Resource::new(10, 10), 0.1), Resource::new(1, 1));
    }

    #[test]
    fn ratios_are_floats() {
        let d = Calc(ResourceCalculator::Memory);
        assert_eq!(d.divide(Resource::ZERO, Resource::new(1, 0), Resource::new(3, 0)), 1.0f32 / 3.0);
        assert_eq!(d.divide(Resource::ZERO, Resource::ZERO, Resource::ZERO), 0.0);
        assert_eq!(mul(Resource::new(1000, 3), f64::from(0.7f32)), Resource::new(699, 2));
    }
}
