//! Stable fingerprints for code-scanning alerts: FNV-1a over the rule, the
//! path and the logical key (group/key), not the line, so an alert survives
//! lines moving. (`std`'s hasher is not stable across Rust releases.)

pub fn fnv1a(parts: &[&str]) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for p in parts {
        for b in p.bytes().chain(std::iter::once(0u8)) {
            h ^= b as u64;
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    }
    format!("{h:016x}")
}

#[cfg(test)]
mod tests {
    #[test]
    fn stable_values() {
        assert_eq!(super::fnv1a(&[]), "cbf29ce484222325");
        assert_eq!(super::fnv1a(&["DS101", "a.txt"]), super::fnv1a(&["DS101", "a.txt"]));
        assert_ne!(super::fnv1a(&["DS101", "a.txt"]), super::fnv1a(&["DS101a", ".txt"]));
    }
}
