//! Shapley values of a few players over a value function of several metrics: exact by
//! enumerating every coalition (small player counts), or estimated from random player
//! orders drawn with a fixed seed, with a 95% error bound per player. Both are additive:
//! the values of all players sum to v(all) − v(none) (for the estimate, in every order
//! drawn, so in their mean too).

/// Metrics of one evaluation (a hybrid's outcome), decomposed together.
pub const METRICS: usize = 5;

/// A value per metric.
pub type Values = [f64; METRICS];

/// The decomposition: per player, per metric.
#[derive(Debug, Clone)]
pub struct Shares {
    pub phi: Vec<Values>,
    /// `None` when exact; else the largest 95% half-width over players, per metric.
    pub error_bound: Option<Values>,
    /// Player orders drawn (0 when exact).
    pub samples: usize,
}

/// Players beyond which the exact sum (2^n coalitions) gives way to sampling.
pub const EXACT_MAX: usize = 7;

/// Orders drawn by the estimate at most, and at least.
pub const SAMPLES: usize = 64;
pub const MIN_SAMPLES: usize = 16;
/// Evaluations the estimate aims to stay within (each order costs one per player).
pub const SAMPLE_BUDGET: usize = 512;

/// Orders to draw for `n` players: as many as the budget allows, within the bounds.
pub fn samples_for(n: usize) -> usize {
    (SAMPLE_BUDGET / n.max(1)).clamp(MIN_SAMPLES, SAMPLES)
}

/// Exact Shapley values: `v(mask)` for every coalition bitmask of `n` players.
pub fn exact(n: usize, v: &mut dyn FnMut(u128) -> Values) -> Shares {
    let phi = exact_many(n, METRICS, &mut |mask| v(mask).to_vec());
    Shares {
        phi: phi.iter().map(|p| values(p)).collect(),
        error_bound: None,
        samples: 0,
    }
}

/// Estimated Shapley values from `samples` player orders (splitmix64, fixed seed).
pub fn sampled(n: usize, samples: usize, seed: u64, v: &mut dyn FnMut(u128) -> Values) -> Shares {
    let (phi, bound) = sampled_many(n, METRICS, samples, seed, &mut |mask| v(mask).to_vec());
    Shares {
        phi: phi.iter().map(|p| values(p)).collect(),
        error_bound: Some(values(&bound)),
        samples,
    }
}

fn values(v: &[f64]) -> Values {
    std::array::from_fn(|m| v[m])
}

/// [`exact`] for any number of metrics `m` (`v` returns `m` values): per player, per
/// metric.
pub fn exact_many(n: usize, m: usize, v: &mut dyn FnMut(u128) -> Vec<f64>) -> Vec<Vec<f64>> {
    let full = 1u128 << n;
    let vals: Vec<Vec<f64>> = (0..full).map(&mut *v).collect();
    // weight of a coalition of size s not holding i: s! (n-s-1)! / n!
    let mut fact = vec![1f64; n + 1];
    for i in 1..=n {
        fact[i] = fact[i - 1] * i as f64;
    }
    let mut phi = vec![vec![0f64; m]; n];
    for (i, p) in phi.iter_mut().enumerate() {
        let bit = 1u128 << i;
        for s in 0..full {
            if s & bit != 0 {
                continue;
            }
            let size = s.count_ones() as usize;
            let w = fact[size] * fact[n - size - 1] / fact[n];
            let (with, without) = (&vals[(s | bit) as usize], &vals[s as usize]);
            for k in 0..m {
                p[k] += w * (with[k] - without[k]);
            }
        }
    }
    phi
}

/// [`sampled`] for any number of metrics `m`: the estimates per player and metric, and
/// the largest 95% half-width over players per metric. The same `seed` and `samples`
/// draw the same orders whatever `m` is.
pub fn sampled_many(
    n: usize,
    m: usize,
    samples: usize,
    seed: u64,
    v: &mut dyn FnMut(u128) -> Vec<f64>,
) -> (Vec<Vec<f64>>, Vec<f64>) {
    let mut rng = seed;
    let mut next = || {
        rng = rng.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = rng;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    };
    let mut sum = vec![vec![0f64; m]; n];
    let mut sq = vec![vec![0f64; m]; n];
    let mut order: Vec<usize> = (0..n).collect();
    let base = v(0);
    for _ in 0..samples {
        for i in (1..n).rev() {
            let j = (next() % (i as u64 + 1)) as usize;
            order.swap(i, j);
        }
        let mut mask = 0u128;
        let mut prev = base.clone();
        for &p in &order {
            mask |= 1u128 << p;
            let cur = v(mask);
            for k in 0..m {
                let d = cur[k] - prev[k];
                sum[p][k] += d;
                sq[p][k] += d * d;
            }
            prev = cur;
        }
    }
    let kf = samples.max(1) as f64;
    let phi: Vec<Vec<f64>> = sum
        .iter()
        .map(|s| s.iter().map(|x| x / kf).collect())
        .collect();
    let mut bound = vec![0f64; m];
    for (s, q) in sum.iter().zip(&sq) {
        for k in 0..m {
            let mean = s[k] / kf;
            let var = if samples > 1 {
                ((q[k] / kf - mean * mean) * kf / (kf - 1.0)).max(0.0)
            } else {
                0.0
            };
            bound[k] = bound[k].max(1.96 * (var / kf).sqrt());
        }
    }
    (phi, bound)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// v = a weighted sum plus an interaction between players 0 and 1.
    fn game(mask: u128) -> Values {
        let has = |i: u32| if mask & (1 << i) != 0 { 1.0 } else { 0.0 };
        let x = 3.0 * has(0) + 1.0 * has(1) - 2.0 * has(2) + 4.0 * has(0) * has(1);
        [x, has(3), 0.0, -x, 0.0]
    }

    #[test]
    fn exact_values_are_shapley_values() {
        let s = exact(4, &mut |m| game(m));
        // the interaction 4 is split evenly between players 0 and 1
        assert_eq!(s.phi[0][0], 5.0);
        assert_eq!(s.phi[1][0], 3.0);
        assert_eq!(s.phi[2][0], -2.0);
        assert_eq!(s.phi[3][0], 0.0);
        assert_eq!(s.phi[3][1], 1.0);
        let total: f64 = s.phi.iter().map(|p| p[0]).sum();
        assert_eq!(total, game(15)[0] - game(0)[0]);
    }

    #[test]
    fn sampled_values_add_up_and_are_close() {
        let s = sampled(4, 200, 7, &mut |m| game(m));
        let total: f64 = s.phi.iter().map(|p| p[0]).sum();
        assert!((total - 6.0).abs() < 1e-9, "{total}");
        assert!((s.phi[0][0] - 5.0).abs() <= s.error_bound.unwrap()[0] + 1e-9);
        assert_eq!(s.phi[2][0], -2.0); // no interaction: every order gives -2
        // a fixed seed gives the same estimate
        let again = sampled(4, 200, 7, &mut |m| game(m));
        assert_eq!(s.phi, again.phi);
    }

    /// The many-metric forms give the same values as the fixed ones, metric by metric,
    /// and the same orders whatever the number of metrics.
    #[test]
    fn many_metrics_agree_with_the_fixed_ones() {
        let e = exact(4, &mut |m| game(m));
        let many = exact_many(4, 2, &mut |m| vec![game(m)[0], game(m)[3]]);
        for (p, q) in e.phi.iter().zip(&many) {
            assert_eq!((p[0], p[3]), (q[0], q[1]));
        }
        let s = sampled(4, 30, 11, &mut |m| game(m));
        let (phi, bound) = sampled_many(4, 1, 30, 11, &mut |m| vec![game(m)[0]]);
        for (p, q) in s.phi.iter().zip(&phi) {
            assert_eq!(p[0], q[0]);
        }
        assert_eq!(s.error_bound.unwrap()[0], bound[0]);
    }
}
