//! Capacity values as Apache's CapacityScheduler accepts them: a percentage of the parent
//! (`50`, `12.5`), an absolute resource (`[memory=10240,vcores=10]`), or a weight (`3w`).

use crate::resource::Resource;
use serde::Serialize;
use std::fmt;

/// How a queue's guaranteed capacity is configured.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub enum CapacitySpec {
    /// Percent of the parent's capacity, 0..=100.
    Percent(f64),
    /// An absolute amount of resource.
    Absolute(Resource),
    /// A weight, shared among siblings in proportion.
    Weight(f64),
}

impl CapacitySpec {
    /// The mode's name, for messages.
    pub fn mode(&self) -> &'static str {
        match self {
            CapacitySpec::Percent(_) => "percentage",
            CapacitySpec::Absolute(_) => "absolute resource",
            CapacitySpec::Weight(_) => "weight",
        }
    }
}

impl fmt::Display for CapacitySpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CapacitySpec::Percent(p) => write!(f, "{p}%"),
            CapacitySpec::Absolute(r) => write!(f, "[memory={},vcores={}]", r.memory_mb, r.vcores),
            CapacitySpec::Weight(w) => write!(f, "{w}w"),
        }
    }
}

/// How a queue's maximum capacity is configured.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub enum MaxCapacitySpec {
    /// Percent of the parent's maximum, 0..=100 (`-1` in the file means 100).
    Percent(f64),
    /// An absolute ceiling.
    Absolute(Resource),
}

impl fmt::Display for MaxCapacitySpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MaxCapacitySpec::Percent(p) => write!(f, "{p}%"),
            MaxCapacitySpec::Absolute(r) => write!(f, "[memory={},vcores={}]", r.memory_mb, r.vcores),
        }
    }
}

/// Parses a `capacity` value. Errors say what was expected.
pub fn parse_capacity(value: &str) -> Result<CapacitySpec, String> {
    let v = value.trim();
    if v.starts_with('[') {
        return parse_absolute(v).map(CapacitySpec::Absolute);
    }
    if let Some(w) = v.strip_suffix('w') {
        let weight = parse_java_float(w)
            .ok_or_else(|| format!("'{value}' is not a weight: expected a number followed by 'w', such as 2w"))?;
        if weight < 0.0 {
            return Err(format!("weight '{value}' is negative"));
        }
        return Ok(CapacitySpec::Weight(weight));
    }
    let pct = parse_java_float(v).ok_or_else(|| {
        format!("'{value}' is not a capacity: expected a percentage (50), a weight (2w) or an absolute resource ([memory=4096,vcores=4])")
    })?;
    Ok(CapacitySpec::Percent(pct))
}

/// Parses a `maximum-capacity` value; `-1` means 100 percent, as in Apache.
pub fn parse_maximum_capacity(value: &str) -> Result<MaxCapacitySpec, String> {
    let v = value.trim();
    if v.starts_with('[') {
        return parse_absolute(v).map(MaxCapacitySpec::Absolute);
    }
    let pct = parse_java_float(v).ok_or_else(|| {
        format!("'{value}' is not a maximum capacity: expected a percentage (100), -1 for no limit, or an absolute resource ([memory=4096,vcores=4])")
    })?;
    Ok(MaxCapacitySpec::Percent(if pct == -1.0 { 100.0 } else { pct }))
}

/// Parses `[memory=…,vcores=…]`. Memory may carry a unit (`Mi`, `Gi`, `Ti`); a bare number is
/// MiB. Keys Apache does not know are an error, a missing key counts as zero.
fn parse_absolute(v: &str) -> Result<Resource, String> {
    let inner = v
        .strip_prefix('[')
        .and_then(|s| s.strip_suffix(']'))
        .ok_or_else(|| format!("'{v}' is missing its closing ']'"))?;
    let mut r = Resource::ZERO;
    for part in inner.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let (key, amount) = part.split_once('=').ok_or_else(|| format!("'{part}' in '{v}' is not key=value"))?;
        let amount = amount.trim();
        match key.trim() {
            "memory" | "memory-mb" => {
                r.memory_mb = parse_memory(amount).ok_or_else(|| {
                    format!("memory '{amount}' in '{v}' is not a whole number of MiB (units Mi, Gi, Ti allowed)")
                })?
            }
            "vcores" => {
                r.vcores = amount.parse().map_err(|_| format!("vcores '{amount}' in '{v}' is not a whole number"))?
            }
            other => {
                return Err(format!("unknown resource '{other}' in '{v}': this scheduler knows memory and vcores"))
            }
        }
    }
    if r.memory_mb < 0 || r.vcores < 0 {
        return Err(format!("'{v}' has a negative amount"));
    }
    Ok(r)
}

fn parse_memory(amount: &str) -> Option<i64> {
    let (digits, factor) = if let Some(d) = amount.strip_suffix("Ti") {
        (d, 1024 * 1024)
    } else if let Some(d) = amount.strip_suffix("Gi") {
        (d, 1024)
    } else if let Some(d) = amount.strip_suffix("Mi") {
        (d, 1)
    } else {
        (amount, 1)
    };
    digits.trim().parse::<i64>().ok().map(|n| n * factor)
}

/// Parses a number as Java's `Float.parseFloat` does for the forms people write in
/// configuration files: an optional sign, decimals, exponent, and an optional trailing
/// `f`/`F`/`d`/`D`.
pub fn parse_java_float(s: &str) -> Option<f64> {
    let s = s.trim();
    let s = s.strip_suffix(['f', 'F', 'd', 'D']).unwrap_or(s);
    if s.is_empty() || s.eq_ignore_ascii_case("nan") || s.to_ascii_lowercase().contains("inf") {
        return None;
    }
    s.parse::<f64>().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_each_capacity_mode() {
        let cases: &[(&str, CapacitySpec)] = &[
            ("50", CapacitySpec::Percent(50.0)),
            (" 12.5 ", CapacitySpec::Percent(12.5)),
            ("1e1", CapacitySpec::Percent(10.0)),
            ("3w", CapacitySpec::Weight(3.0)),
            ("0.5w", CapacitySpec::Weight(0.5)),
            ("[memory=10240,vcores=10]", CapacitySpec::Absolute(Resource::new(10240, 10))),
            ("[memory=2Gi, vcores=1]", CapacitySpec::Absolute(Resource::new(2048, 1))),
            ("[vcores=4]", CapacitySpec::Absolute(Resource::new(0, 4))),
        ];
        for (text, want) in cases {
            assert_eq!(parse_capacity(text).as_ref(), Ok(want), "{text}");
        }
    }

    #[test]
    fn rejects_bad_capacities_with_the_value() {
        for text in ["abc", "", "-2w", "[memory=1x]", "[gpu=1]", "[memory=1", "NaN"] {
            let err = parse_capacity(text).unwrap_err();
            assert!(!err.is_empty(), "{text}");
        }
        assert!(parse_capacity("[gpu=1]").unwrap_err().contains("gpu"));
    }

    #[test]
    fn maximum_capacity_minus_one_is_one_hundred() {
        assert_eq!(parse_maximum_capacity("-1"), Ok(MaxCapacitySpec::Percent(100.0)));
        assert_eq!(parse_maximum_capacity("40"), Ok(MaxCapacitySpec::Percent(40.0)));
        assert!(parse_maximum_capacity("2w").is_err());
    }
}
