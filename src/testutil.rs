//! Helpers for the crate's unit tests (the integration tests have `tests/common`).

use std::path::PathBuf;

/// An empty folder of this test process's own, under the system's temporary folder:
/// `toolscope-TAG-PID`, emptied if a crashed earlier run left it.
pub fn scratch(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("toolscope-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// A seeded xorshift64 stream: the same numbers on every run, for tests that sweep many
/// inputs without a proptest (a seed of 0 would give only zeros).
pub struct XorShift(pub u64);

impl XorShift {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

/// JSON trees of `leaf` values in arrays and objects (keys from the regex `key`), nested
/// as proptest's `prop_recursive(depth, size, branch)`: containers hold up to `branch - 1`
/// members. Each test gives the leaves and keys its code must meet.
pub fn arb_json(
    leaf: impl proptest::strategy::Strategy<Value = serde_json::Value> + 'static,
    key: &'static str,
    (depth, size, branch): (u32, u32, u32),
) -> impl proptest::strategy::Strategy<Value = serde_json::Value> {
    use proptest::prelude::*;
    use serde_json::Value;
    leaf.prop_recursive(depth, size, branch, move |inner| {
        let most = branch as usize;
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..most).prop_map(Value::Array),
            proptest::collection::vec((key, inner), 0..most)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}
