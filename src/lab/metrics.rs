//! Retrieval and selection metrics over labelled cases (spec §7.2 definitions).

/// hit@k: 1 if any of the first k names is expected (0 when nothing is expected).
pub fn hit_at_k(ranked: &[String], expected: &[String], k: usize) -> f64 {
    if expected.is_empty() {
        return 0.0;
    }
    if ranked.iter().take(k).any(|n| expected.contains(n)) {
        1.0
    } else {
        0.0
    }
}

/// Reciprocal rank of the first expected name (0 when none is ranked).
pub fn reciprocal_rank(ranked: &[String], expected: &[String]) -> f64 {
    ranked
        .iter()
        .position(|n| expected.contains(n))
        .map(|i| 1.0 / (i + 1) as f64)
        .unwrap_or(0.0)
}

/// Fractional recall@k: |R[:k] ∩ G| / |G| (1.0 when G is empty).
pub fn recall_at_k(ranked: &[String], expected: &[String], k: usize) -> f64 {
    if expected.is_empty() {
        return 1.0;
    }
    let hits = expected
        .iter()
        .filter(|e| ranked.iter().take(k).any(|n| n == *e))
        .count();
    hits as f64 / expected.len() as f64
}

/// Mean of values (0 for none).
pub fn mean(v: &[f64]) -> f64 {
    if v.is_empty() {
        0.0
    } else {
        v.iter().sum::<f64>() / v.len() as f64
    }
}

/// A small deterministic generator (splitmix64) for resampling.
pub struct SplitMix(u64);

impl SplitMix {
    pub fn new(seed: u64) -> Self {
        SplitMix(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
}

/// Paired bootstrap of the mean of per-case deltas: (mean, 2.5th and 97.5th percentile).
pub fn paired_bootstrap(deltas: &[f64], resamples: usize, seed: u64) -> (f64, f64, f64) {
    let m = mean(deltas);
    if deltas.len() < 2 {
        return (m, m, m);
    }
    let mut rng = SplitMix::new(seed);
    let n = deltas.len();
    let mut means: Vec<f64> = (0..resamples)
        .map(|_| {
            let mut s = 0.0;
            for _ in 0..n {
                s += deltas[rng.below(n)];
            }
            s / n as f64
        })
        .collect();
    means.sort_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));
    let at = |p: f64| means[((p * (resamples - 1) as f64).round() as usize).min(resamples - 1)];
    (m, at(0.025), at(0.975))
}

/// Jaccard similarity of two name lists as sets (1.0 when both are empty).
pub fn jaccard(a: &[String], b: &[String]) -> f64 {
    let sa: std::collections::BTreeSet<&String> = a.iter().collect();
    let sb: std::collections::BTreeSet<&String> = b.iter().collect();
    let union = sa.union(&sb).count();
    if union == 0 {
        return 1.0;
    }
    sa.intersection(&sb).count() as f64 / union as f64
}

/// Extrapolated rank-biased overlap (Webber et al. 2010, eq. 32) with persistence `p`,
/// evaluated to the depth of the longer list.
pub fn rbo(a: &[String], b: &[String], p: f64) -> f64 {
    let k = a.len().max(b.len());
    if k == 0 {
        return 1.0;
    }
    let mut seen_a = std::collections::HashSet::new();
    let mut seen_b = std::collections::HashSet::new();
    let mut overlap = 0usize;
    let mut sum = 0.0;
    let mut x_k = 0.0;
    for d in 1..=k {
        let (x, y) = (a.get(d - 1), b.get(d - 1));
        match (x, y) {
            (Some(x), Some(y)) if x == y => overlap += 1,
            _ => {
                if x.is_some_and(|x| seen_b.contains(x)) {
                    overlap += 1;
                }
                if y.is_some_and(|y| seen_a.contains(y)) {
                    overlap += 1;
                }
            }
        }
        if let Some(x) = x {
            seen_a.insert(x.clone());
        }
        if let Some(y) = y {
            seen_b.insert(y.clone());
        }
        let agreement = overlap as f64 / d as f64;
        sum += agreement * p.powi(d as i32);
        x_k = agreement;
    }
    x_k * p.powi(k as i32) + (1.0 - p) / p * sum
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(x: &[&str]) -> Vec<String> {
        x.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn rank_metrics() {
        let r = v(&["a", "b", "c"]);
        assert_eq!(hit_at_k(&r, &v(&["c"]), 2), 0.0);
        assert_eq!(hit_at_k(&r, &v(&["c"]), 3), 1.0);
        assert_eq!(reciprocal_rank(&r, &v(&["b", "z"])), 0.5);
        assert_eq!(recall_at_k(&r, &v(&["a", "z"]), 3), 0.5);
        assert_eq!(jaccard(&r, &v(&["a", "d"])), 0.25);
    }

    #[test]
    fn rbo_bounds() {
        let a = v(&["a", "b", "c", "d"]);
        assert!((rbo(&a, &a, 0.9) - 1.0).abs() < 1e-12);
        assert_eq!(rbo(&a, &v(&["w", "x", "y", "z"]), 0.9), 0.0);
        let swapped = v(&["b", "a", "c", "d"]);
        let r = rbo(&a, &swapped, 0.9);
        assert!((r - 0.9).abs() < 1e-12, "{r}"); // worked by hand: 0.9^4 + (0.1/0.9)(0.81 + 0.729 + 0.6561)
    }

    #[test]
    fn bootstrap_is_deterministic() {
        let d = [0.0, 1.0, 0.0, 1.0, 1.0, 0.0, -1.0, 0.0];
        let a = paired_bootstrap(&d, 1000, 42);
        assert_eq!(a, paired_bootstrap(&d, 1000, 42));
        assert!(a.1 <= a.0 && a.0 <= a.2);
    }
}
