//! Orders that Apache's scheduler inherits from Java collections, reproduced so that ties
//! break the same way.
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
fn bucket_of(h: i32, capacity: usize) -> usize {
    let h = h as u32;
    ((h ^ (h >> 16)) as usize) & (capacity - 1)
}

fn bucket(key: &str, capacity: usize) -> usize {
    bucket_of(string_hash(key), capacity)
}

/// The order a default `HashMap<NodeId, _>` iterates the node ids in `ids` (given in
/// insertion order). Returns indices into `ids`.
pub fn node_map_order(ids: &[&str]) -> Vec<usize> {
    let capacity = table_size(ids.len());
    let mut order: Vec<usize> = (0..ids.len()).collect();
    order.sort_by_key(|&i| bucket_of(node_id_hash(ids[i]), capacity));
    order
}

/// The table size of a default `HashMap` (16 buckets, load factor 0.75) that has held
/// `most` entries at once: it doubles whenever the count passes three quarters of it.
fn table_size(most: usize) -> usize {
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
    let mut order: Vec<usize> = (0..keys.len()).collect();
    order.sort_by_key(|&i| bucket(keys[i], capacity));
    order
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
}
