//! Orders that Apache's scheduler inherits from Java collections, reproduced so that ties
//! break the same way — and how Java prints a float in the messages Apache makes.
//!
//! After `refreshQueues` a parent queue's children come back in the iteration order of the
//! `HashMap<String, CSQueue>` Apache rebuilds them through (`AbstractParentQueue.reinitialize`),
//! keyed by full queue path. That order decides which of two equally used, equally
//! sized children is offered a node first.

/// Java's `String.hashCode`: `s[0]*31^(n-1) + ... + s[n-1]` over UTF-16 code units, wrapping.
pub fn string_hash(s: &str) -> i32 {
    s.encode_utf16().fold(0i32, |h, c| h.wrapping_mul(31).wrapping_add(i32::from(c)))
}

/// YARN's `NodeId.hashCode` (Hadoop 3.4: `493217 * (493217 * 8501 + host) + port`) for a
/// `host:port` node id.
pub fn node_id_hash(node_id: &str) -> i32 {
    let (host, port) = node_id.rsplit_once(':').unwrap_or((node_id, "0"));
    let port: i32 = port.parse().unwrap_or(0);
    const PRIME: i32 = 493_217;
    let result = PRIME.wrapping_mul(8501).wrapping_add(string_hash(host));
    PRIME.wrapping_mul(result).wrapping_add(port)
}

/// The bucket of a key with Java hash `h` in a `java.util.HashMap` table of `capacity`
/// (a power of two): the hash with its high half folded into the low half, masked.
pub(crate) fn bucket_of(h: i32, capacity: usize) -> usize {
    let h = h as u32;
    ((h ^ (h >> 16)) as usize) & (capacity - 1)
}

fn bucket(key: &str, capacity: usize) -> usize {
    bucket_of(string_hash(key), capacity)
}

/// The order a default `HashMap<NodeId, _>` that has held at most `most_entries` at once
/// iterates the node ids in `ids` (given in insertion order). Returns indices into `ids`.
pub fn node_map_order(ids: &[&str], most_entries: usize) -> Vec<usize> {
    let capacity = table_size(most_entries.max(ids.len()));
    in_bucket_order(ids.iter().map(|id| bucket_of(node_id_hash(id), capacity)).collect())
}

/// Indices of entries whose buckets are `buckets` (in insertion order), bucket by bucket
/// and, within one, in insertion order (the sort is stable).
fn in_bucket_order(buckets: Vec<usize>) -> Vec<usize> {
    let mut order: Vec<usize> = (0..buckets.len()).collect();
    order.sort_by_key(|&i| buckets[i]);
    order
}

/// The table size of a default `HashMap` (16 buckets, load factor 0.75) that has held
/// `most` entries at once: it doubles whenever the count passes three quarters of it.
pub(crate) fn table_size(most: usize) -> usize {
    let mut capacity = 16;
    while most > capacity * 3 / 4 {
        capacity *= 2;
    }
    capacity
}

/// The order a default `HashMap<String, _>` iterates `keys`, given the order they were
/// inserted in and the most entries it ever held: bucket by bucket, and within a bucket
/// in insertion order (resizing keeps that order). Returns indices into `keys`.
pub fn hash_map_order(keys: &[&str], most_entries: usize) -> Vec<usize> {
    let capacity = table_size(most_entries.max(keys.len()));
    in_bucket_order(keys.iter().map(|key| bucket(key, capacity)).collect())
}

/// YARN's `ContainerId.hashCode` for container `number` (the whole `long` id, epoch bits
/// included) of attempt `attempt` of application `app_id` (cluster timestamp, sequence).
pub fn container_id_hash(app_id: (i64, i32), attempt: i32, number: i64) -> i32 {
    let (timestamp, id) = app_id;
    let application = 371_237i32
        .wrapping_mul(371_237i32.wrapping_mul(6521).wrapping_add((timestamp ^ (timestamp >> 32)) as i32))
        .wrapping_add(id);
    let attempt_hash =
        347_671i32.wrapping_mul(347_671i32.wrapping_mul(5501).wrapping_add(application)).wrapping_add(attempt);
    let unsigned = number as u64;
    ((unsigned ^ (unsigned >> 32)) as i32).wrapping_mul(31).wrapping_add(attempt_hash)
}

/// The order a default `HashMap` iterates keys with Java hashes `hashes` (given in
/// insertion order), having held at most `most_entries` at once. Returns indices.
pub fn hash_order(hashes: &[i32], most_entries: usize) -> Vec<usize> {
    let capacity = table_size(most_entries.max(hashes.len()));
    in_bucket_order(hashes.iter().map(|&h| bucket_of(h, capacity)).collect())
}

/// Sorts `v` as `java.util.Collections.sort` (TimSort) does. For fewer than 32 elements
/// TimSort is a binary insertion sort after the leading run, and this is that, step for
/// step, so that a comparator that is not transitive (Apache's queue-priority preemption
/// has one) leaves the same order as in Java. Longer slices get the same insertion sort:
/// stable, so it agrees with TimSort for every consistent comparator, and, unlike Rust's
/// own sorts, it never panics on one that is not (Java's merges may then order such a
/// slice otherwise, or throw).
pub fn sort_like_java<T: Copy>(v: &mut [T], cmp: impl Fn(&T, &T) -> std::cmp::Ordering) {
    use std::cmp::Ordering::Less;
    let n = v.len();
    if n < 2 {
        return;
    }
    // countRunAndMakeAscending: the leading run, reversed if strictly descending.
    let mut run = 2;
    if cmp(&v[1], &v[0]) == Less {
        while run < n && cmp(&v[run], &v[run - 1]) == Less {
            run += 1;
        }
        v[..run].reverse();
    } else {
        while run < n && cmp(&v[run], &v[run - 1]) != Less {
            run += 1;
        }
    }
    // binarySort from the end of the run: each element goes after every equal one.
    for start in run..n {
        let pivot = v[start];
        let (mut left, mut right) = (0, start);
        while left < right {
            let mid = (left + right) / 2;
            if cmp(&pivot, &v[mid]) == Less {
                right = mid;
            } else {
                left = mid + 1;
            }
        }
        v.copy_within(left..start, left + 1);
        v[left] = pivot;
    }
}

/// `Float.toString` for the values Apache's messages print (between 1e-3 and 1e7): the
/// shortest digits that read back as the same float, and `.0` after a whole number.
pub fn float_to_string(v: f32) -> String {
    if v.is_finite() && v.fract() == 0.0 && v.abs() < 1e7 {
        format!("{v:.1}")
    } else {
        format!("{v}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn string_hash_matches_java() {
        // Values from java.lang.String#hashCode.
        assert_eq!(string_hash(""), 0);
        assert_eq!(string_hash("root"), 3_506_402);
        assert_eq!(string_hash("root.default"), 497_640_757);
    }

    #[test]
    fn iteration_is_by_bucket_then_insertion() {
        // As java.util.HashMap prints them: "BB" and "Aa" collide in bucket 0 and keep
        // their insertion order; "a" is in bucket 1.
        let keys = ["a", "BB", "Aa"];
        let order = hash_map_order(&keys, keys.len());
        let names: Vec<&str> = order.iter().map(|&i| keys[i]).collect();
        assert_eq!(names, ["BB", "Aa", "a"]);
    }

    #[test]
    fn node_id_hash_matches_yarn() {
        // NodeId.newInstance("127.1.0.2", 1234).hashCode() in Hadoop 3.4.2
        assert_eq!(node_id_hash("127.1.0.2:1234"), -1_050_296_666);
    }

    #[test]
    fn the_table_grows_past_three_quarters() {
        assert_eq!(table_size(12), 16);
        assert_eq!(table_size(13), 32);
        assert_eq!(table_size(25), 64);
    }

    #[test]
    fn container_id_hash_matches_yarn() {
        // ContainerId.newContainerId(ApplicationAttemptId.newInstance(
        //     ApplicationId.newInstance(1_700_000_000_000L, 7), 2), 5).hashCode()
        assert_eq!(container_id_hash((1_700_000_000_000, 7), 2, 5), -1_300_828_381);
        // The same container number in epoch 3.
        assert_eq!(container_id_hash((1_700_000_000_000, 7), 2, (3 << 40) | 5), -1_300_804_573);
    }

    #[test]
    fn sorting_follows_javas_steps_for_a_comparator_that_is_not_transitive() {
        // Rock, paper, scissors: every pair is ordered, yet there is a cycle. What
        // java.util.Collections.sort leaves for each input (run on OpenJDK 17).
        let beats = |a: &char, b: &char| matches!((a, b), ('R', 'S') | ('S', 'P') | ('P', 'R'));
        let cmp = |a: &char, b: &char| {
            if beats(a, b) {
                std::cmp::Ordering::Less
            } else if beats(b, a) {
                std::cmp::Ordering::Greater
            } else {
                std::cmp::Ordering::Equal
            }
        };
        for (input, java) in [
            ("RSP", "RSP"),
            ("SRP", "PRS"),
            ("PSR", "RSP"),
            ("RPSR", "RSPR"),
            ("SPRRPS", "SSPPRR"),
            ("PPRSSR", "PPRRSS"),
        ] {
            let mut v: Vec<char> = input.chars().collect();
            sort_like_java(&mut v, cmp);
            assert_eq!(v.iter().collect::<String>(), java, "sorting {input}");
        }
        // Longer slices are sorted by insertion too: with a cycle Rust's own sorts may panic.
        let mut long: Vec<char> = "RSP".chars().cycle().take(40).collect();
        sort_like_java(&mut long, cmp);
        assert_eq!(long.len(), 40);
        let mut stable = [(1, 'a'), (0, 'b'), (1, 'c'), (0, 'd')];
        sort_like_java(&mut stable, |x, y| x.0.cmp(&y.0));
        assert_eq!(stable, [(0, 'b'), (0, 'd'), (1, 'a'), (1, 'c')]);
    }
}
