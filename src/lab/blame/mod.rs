//! Ranking blame: which change between two graphs moved a case's ranking or selection.
//!
//! A case runs on OLD and NEW. When its outcome (names, order, rounded scores, selected
//! target, decision, reason codes) differs, the change is attributed to the change groups
//! of [`plan`] by replaying the case on hybrid graphs (OLD with a subset of the groups
//! applied) and taking Shapley values ([`shapley`]) of four metrics: the tracked tool's
//! rounded score (0 when absent), its rank (`top_k + 1` when absent), whether the top-1 is
//! NEW's and whether the selected target is NEW's. The tracked tool is the expected tool
//! (the best placed in NEW when a case names several), else OLD's top-1.
//!
//! The players are the groups that touch the case: tools in either ranking or whose
//! documents hold a query term, the edges of the tools in either ranking, nodes, the
//! corpus statistics and the order. If OLD plus those groups does not reproduce NEW, the
//! set widens with the tools of the hybrid's ranking, and at last every remaining group
//! joins as one player, so the hybrids always reach both endpoints. With many players,
//! those that change nothing alone and nothing when left out are merged into one; beyond
//! [`shapley::EXACT_MAX`] the values are estimated with a stated error bound.
//! `mechanism_status` is `resolved` only when the empty and the full hybrid reproduce
//! OLD and NEW exactly.

pub mod plan;
pub mod report;
pub mod shapley;

use rustc_hash::{FxHashMap, FxHashSet};

use crate::engine::knobs::Knobs;
use crate::engine::query::QueryPlan;
use crate::engine::{Engine, Retrieval, Selection};
use crate::model::ToolId;
use crate::pytext::round;
use plan::{GroupKind, Plan};
use shapley::{METRICS, Values};

/// Metric slots in [`Values`].
pub const SCORE: usize = 0;
pub const RANK: usize = 1;
pub const TOP1: usize = 2;
pub const SELECTED: usize = 3;
/// Positions of the ranking that hold NEW's tool there.
pub const AGREE: usize = 4;

/// One case to blame.
#[derive(Debug, Clone)]
pub struct CaseSpec {
    pub id: String,
    pub query: String,
    pub knobs: Knobs,
    pub expected: Vec<String>,
}

/// What a run produced, as exactness compares it.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    pub rows: Vec<(String, f64)>,
    pub selected: String,
    pub decision: &'static str,
    pub reasons: Vec<&'static str>,
}

impl Outcome {
    /// The ranked names (in order) or the selection differ; scores alone do not count.
    pub fn decision_differs(&self, other: &Outcome) -> bool {
        self.rows.len() != other.rows.len()
            || self.rows.iter().zip(&other.rows).any(|(a, b)| a.0 != b.0)
            || self.selected != other.selected
            || self.decision != other.decision
            || self.reasons != other.reasons
    }

    pub fn of(engine: &Engine, query: &str, knobs: &Knobs) -> Outcome {
        let r: Retrieval = engine.retrieve(query, &knobs.params);
        let s: Selection = engine.select(&r, &knobs.select);
        Outcome {
            rows: r
                .rows
                .iter()
                .map(|row| (row.name.clone(), row.rounded_score()))
                .collect(),
            selected: s.selected_target,
            decision: s.decision,
            reasons: s.reason_codes,
        }
    }

    pub fn top1(&self) -> Option<&str> {
        self.rows.first().map(|r| r.0.as_str())
    }

    pub fn rank_of(&self, name: &str) -> Option<usize> {
        self.rows.iter().position(|r| r.0 == name).map(|i| i + 1)
    }

    pub fn score_of(&self, name: &str) -> Option<f64> {
        self.rows.iter().find(|r| r.0 == name).map(|r| r.1)
    }
}

/// One side of a case as the report shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct SideView {
    pub top1: Option<String>,
    pub selected: String,
    pub tracked: Option<String>,
    pub expected_rank: Option<usize>,
    pub expected_score: Option<f64>,
}

/// A player's share: one group, or several merged.
#[derive(Debug, Clone)]
pub struct Share {
    pub groups: Vec<u32>,
    pub effect: Values,
}

/// How the shares were computed.
#[derive(Debug, Clone, PartialEq)]
pub enum Method {
    /// Nothing to attribute (the outcome did not change).
    None,
    Exact,
    /// Estimated from this many player orders; the 95% bound on each share, per metric.
    Sampled {
        samples: usize,
        bound: Values,
    },
}

/// The blame of one case.
#[derive(Debug, Clone)]
pub struct CaseBlame {
    pub id: String,
    pub query: String,
    /// The ranking (names and order) or the selection changed: what the blame explains.
    pub changed: bool,
    /// Some score changed (possibly only that: the corpus statistics move every score).
    pub scores_changed: bool,
    /// The tracked tool is an expected tool (else OLD's top-1).
    pub tracked_expected: bool,
    pub old: SideView,
    pub new: SideView,
    /// Sorted by the size of their effect on the primary metric, largest first.
    pub shares: Vec<Share>,
    /// Metric change NEW − OLD minus the sum of the shares.
    pub residual: Values,
    /// NEW − OLD per metric.
    pub delta: Values,
    pub resolved: bool,
    pub method: Method,
    pub evaluations: usize,
    /// Groups that touched the case, and players the shares were computed over.
    pub touching: usize,
    pub players: usize,
    /// Expected tools missing from OLD, and from NEW.
    pub missing: (Vec<String>, Vec<String>),
    /// The ranked names in OLD and in NEW.
    pub rows: (Vec<String>, Vec<String>),
    /// Every tool whose place (by name) differs between OLD and NEW, with its move split
    /// over the same players as the shares.
    pub moved: Vec<MovedTool>,
}

/// A tool whose rank moved, by name (`top_k + 1` when absent), in NEW's order then the
/// tools that dropped out; `parts` split the move NEW − OLD over the case's players
/// (Shapley values, exact or estimated from the same orders as the shares, so no hybrid
/// is evaluated twice), the players that move it first.
#[derive(Debug, Clone)]
pub struct MovedTool {
    pub name: String,
    pub rank: (Option<usize>, Option<usize>),
    /// The players with a nonzero part, largest first.
    pub parts: Vec<(Vec<u32>, f64)>,
    /// The move minus the parts.
    pub residual: f64,
}

impl MovedTool {
    /// The move in rank places, NEW − OLD (positive: it fell).
    pub fn delta(&self, top_k: usize) -> f64 {
        let r = |x: Option<usize>| x.unwrap_or(top_k + 1) as f64;
        r(self.rank.1) - r(self.rank.0)
    }

    /// The part that moved it furthest in the direction it moved, and that part's share of
    /// the move (None: no part moved it that way).
    pub fn top_part(&self, top_k: usize) -> Option<(&[u32], f64)> {
        let d = self.delta(top_k);
        // the parts are largest first: the first that moved it this way
        self.parts
            .iter()
            .find(|(_, e)| e * d > 0.0)
            .map(|(g, e)| (g.as_slice(), e / d))
    }
}

impl CaseBlame {
    /// The metric the report leads with: the tracked tool's rank when it moved, else its
    /// score, else the top-1, else the selection, else the rest of the ranking.
    pub fn primary(&self) -> usize {
        [RANK, SELECTED, TOP1, AGREE, SCORE]
            .into_iter()
            .find(|&m| self.delta[m] != 0.0)
            .unwrap_or(SCORE)
    }
}

/// The value of one hybrid to the metrics.
fn metrics(o: &Outcome, tracked: Option<&str>, new: &Outcome, top_k: usize) -> Values {
    let rank = tracked.and_then(|t| o.rank_of(t));
    let agree = o
        .rows
        .iter()
        .zip(&new.rows)
        .filter(|(x, y)| x.0 == y.0)
        .count();
    [
        tracked.and_then(|t| o.score_of(t)).unwrap_or(0.0),
        rank.unwrap_or(top_k + 1) as f64,
        f64::from(u8::from(o.top1().is_some() && o.top1() == new.top1())),
        f64::from(u8::from(o.selected == new.selected)),
        agree as f64,
    ]
}

/// The hybrids of one case, each evaluated once (keyed by the bitset of its groups).
struct Evals<'a, 'p, 'e> {
    plan: &'p Plan<'e>,
    case: &'a CaseSpec,
    tracked_slot: Option<u32>,
    o_new: &'a Outcome,
    cache: FxHashMap<Vec<u64>, (Outcome, Values)>,
}

impl Evals<'_, '_, '_> {
    fn eval(&mut self, applied: &[bool]) -> (Outcome, Values) {
        let mut key = vec![0u64; applied.len().div_ceil(64)];
        for (i, _) in applied.iter().enumerate().filter(|(_, a)| **a) {
            key[i / 64] |= 1 << (i % 64);
        }
        if let Some(hit) = self.cache.get(&key) {
            return hit.clone();
        }
        let (plan, k) = (self.plan, &self.case.knobs);
        let t = std::time::Instant::now();
        let e = plan.hybrid(applied);
        let t_build = t.elapsed();
        let o = Outcome::of(&e, &self.case.query, k);
        profile::add(t_build, t.elapsed() - t_build);
        let tracked = self.tracked_slot.and_then(|s| plan.tool_name(s, applied));
        let m = metrics(&o, tracked, self.o_new, k.params.top_k);
        self.cache.insert(key, (o.clone(), m));
        (o, m)
    }
}

/// The coalition of every one of `n` players.
fn full_mask(n: usize) -> u128 {
    if n == 128 {
        u128::MAX
    } else {
        (1u128 << n) - 1
    }
}

/// The groups applied by the players of `mask`.
fn applied_of(groups: usize, players: &[Vec<u32>], mask: u128) -> Vec<bool> {
    let mut a = vec![false; groups];
    for (i, p) in players.iter().enumerate() {
        if mask & (1u128 << i) != 0 {
            for &g in p {
                a[g as usize] = true;
            }
        }
    }
    a
}

/// Many players: those that move no metric alone and none when left out are merged into
/// one (found by halving blocks of players: a block that does neither is set aside whole).
fn screen(players: Vec<Vec<u32>>, ev: &mut Evals<'_, '_, '_>, m_old: &Values) -> Vec<Vec<u32>> {
    let groups = ev.plan.groups.len();
    let n = players.len();
    let full = full_mask(n);
    let m_full = ev.eval(&applied_of(groups, &players, full)).1;
    let mut active: Vec<usize> = Vec::new();
    let mut idle: Vec<usize> = Vec::new();
    let mut todo: Vec<Vec<usize>> = vec![(0..n).collect()];
    while let Some(block) = todo.pop() {
        let mask = block.iter().fold(0u128, |m, &i| m | (1u128 << i));
        let quiet = ev.eval(&applied_of(groups, &players, mask)).1 == *m_old
            && ev.eval(&applied_of(groups, &players, full & !mask)).1 == m_full;
        if quiet {
            idle.extend(block);
        } else if block.len() == 1 {
            active.push(block[0]);
        } else {
            let (x, y) = block.split_at(block.len() / 2);
            todo.push(y.to_vec());
            todo.push(x.to_vec());
        }
    }
    active.sort_unstable();
    let mut next: Vec<Vec<u32>> = active.iter().map(|&i| players[i].clone()).collect();
    if !idle.is_empty() {
        next.push(idle.iter().flat_map(|&i| players[i].clone()).collect());
    }
    next
}

/// Blames cases between two graphs; hybrids are built per case and not kept.
pub struct Blamer<'p, 'e> {
    pub plan: &'p Plan<'e>,
}

/// Players a case may have at most (coalitions are bitmasks).
const MAX_PLAYERS: usize = 120;

/// BM25 candidates (best first) whose changes touch a case; the engine seeds with five.
const SEED_WINDOW: usize = 15;

impl Blamer<'_, '_> {
    pub fn blame(&self, case: &CaseSpec) -> CaseBlame {
        let plan = self.plan;
        let k = &case.knobs;
        let o_old = Outcome::of(plan.old, &case.query, k);
        let o_new = Outcome::of(plan.new, &case.query, k);
        let missing = (
            missing_in(plan.old, &case.expected),
            missing_in(plan.new, &case.expected),
        );
        // the tracked tool: the best placed expected tool in NEW (then OLD), else OLD's top-1
        let tracked_expected = case
            .expected
            .iter()
            .any(|e| plan.new.graph.tool_id(e).is_some() || plan.old.graph.tool_id(e).is_some());
        let tracked_slot = self.tracked_slot(case, &o_old, &o_new);
        let none = vec![false; plan.groups.len()];
        let all = vec![true; plan.groups.len()];
        let name_in = |applied: &[bool]| tracked_slot.and_then(|s| plan.tool_name(s, applied));
        let view = |o: &Outcome, applied: &[bool]| SideView {
            top1: o.top1().map(String::from),
            selected: o.selected.clone(),
            tracked: name_in(applied).map(String::from),
            expected_rank: name_in(applied).and_then(|t| o.rank_of(t)),
            expected_score: name_in(applied).and_then(|t| o.score_of(t)),
        };
        let top_k = k.params.top_k;
        let m_old = metrics(&o_old, name_in(&none), &o_new, top_k);
        let m_new = metrics(&o_new, name_in(&all), &o_new, top_k);
        let delta: Values = std::array::from_fn(|m| m_new[m] - m_old[m]);
        let mut out = CaseBlame {
            id: case.id.clone(),
            query: case.query.clone(),
            changed: o_old.decision_differs(&o_new),
            scores_changed: o_old.rows != o_new.rows,
            tracked_expected,
            old: view(&o_old, &none),
            new: view(&o_new, &all),
            shares: Vec::new(),
            residual: [0.0; METRICS],
            delta,
            resolved: true,
            method: Method::None,
            evaluations: 0,
            touching: 0,
            players: 0,
            missing,
            rows: (
                o_old.rows.iter().map(|r| r.0.clone()).collect(),
                o_new.rows.iter().map(|r| r.0.clone()).collect(),
            ),
            moved: Vec::new(),
        };
        if !out.changed && !out.scores_changed {
            // the same ranking, selection and scores: nothing to explain
            return out;
        }
        let mut ev = Evals {
            plan,
            case,
            tracked_slot,
            o_new: &o_new,
            cache: FxHashMap::default(),
        };
        // the endpoints: OLD and NEW reproduced by the empty and the full hybrid
        let endpoints_ok = ev.eval(&none).0 == o_old && ev.eval(&all).0 == o_new;
        let chosen = self.touching(case, &o_old, &o_new);
        out.touching = chosen.len();
        let mut players = self.widen(chosen, &mut ev);
        if players.len() > shapley::EXACT_MAX {
            players = screen(players, &mut ev, &m_old);
        }
        let n = players.len();
        out.players = n;
        let groups = plan.groups.len();
        let mut v = |mask: u128| ev.eval(&applied_of(groups, &players, mask)).1;
        let shares = if n <= shapley::EXACT_MAX {
            shapley::exact(n, &mut v)
        } else {
            shapley::sampled(n, shapley::samples_for(n), seed_of(&case.query), &mut v)
        };
        out.method = match shares.error_bound {
            None => Method::Exact,
            Some(bound) => Method::Sampled {
                samples: shares.samples,
                bound,
            },
        };
        out.moved = moved_tools(&mut ev, &players, &o_old, seed_of(&case.query));
        let reaches_new = ev.eval(&applied_of(groups, &players, full_mask(n))).0 == o_new;
        out.resolved = endpoints_ok && reaches_new;
        out.evaluations = ev.cache.len();
        let primary = out.primary();
        let mut list: Vec<Share> = players
            .into_iter()
            .zip(shares.phi)
            .map(|(groups, effect)| Share { groups, effect })
            .filter(|s| s.effect.iter().any(|&x| x != 0.0))
            .collect();
        list.sort_by(|a, b| b.effect[primary].abs().total_cmp(&a.effect[primary].abs()));
        for m in 0..METRICS {
            let sum: f64 = list.iter().map(|s| s.effect[m]).sum();
            out.residual[m] = out.delta[m] - sum;
        }
        out.shares = list;
        out
    }

    /// The players: the groups that touch the case, widened with the groups of the tools
    /// a hybrid ranks until OLD plus them reproduces NEW (at most three rounds); whatever
    /// is still missing then joins as one last player, so the players always reach NEW.
    fn widen(&self, mut chosen: Vec<u32>, ev: &mut Evals<'_, '_, '_>) -> Vec<Vec<u32>> {
        let groups = self.plan.groups.len();
        let mut players: Vec<Vec<u32>>;
        let mut rounds = 0;
        loop {
            let mut applied = vec![false; groups];
            for &g in &chosen {
                applied[g as usize] = true;
            }
            let (o, _) = ev.eval(&applied);
            if o == *ev.o_new {
                players = chosen.iter().map(|&g| vec![g]).collect();
                break;
            }
            rounds += 1;
            let before = chosen.len();
            self.add_row_groups(&o, &applied, &mut chosen);
            if rounds >= 3 || chosen.len() == before {
                players = chosen.iter().map(|&g| vec![g]).collect();
                let rest: Vec<u32> = (0..groups as u32).filter(|g| !chosen.contains(g)).collect();
                if !rest.is_empty() {
                    players.push(rest);
                }
                break;
            }
        }
        if players.len() > MAX_PLAYERS {
            let tail: Vec<u32> = players.drain(MAX_PLAYERS - 1..).flatten().collect();
            players.push(tail);
        }
        players
    }

    /// The tool slot a case tracks.
    fn tracked_slot(&self, case: &CaseSpec, o_old: &Outcome, o_new: &Outcome) -> Option<u32> {
        let p = self.plan;
        let slot = |name: &str| {
            p.new
                .graph
                .tool_id(name)
                .map(|i| p.slot_of(true, i))
                .or_else(|| p.old.graph.tool_id(name).map(|i| p.slot_of(false, i)))
        };
        let best = |o: &Outcome| {
            case.expected
                .iter()
                .filter_map(|e| o.rank_of(e).map(|r| (r, e)))
                .min()
                .map(|(_, e)| e.clone())
        };
        if case.expected.iter().any(|e| slot(e).is_some()) {
            let name = best(o_new)
                .or_else(|| best(o_old))
                .or_else(|| case.expected.iter().find(|e| slot(e).is_some()).cloned())?;
            return slot(&name);
        }
        o_old
            .top1()
            .and_then(|t| p.old.graph.tool_id(t).map(|i| p.slot_of(false, i)))
            .or_else(|| o_new.top1().and_then(slot))
    }

    /// Groups that touch a case: tools in either ranking or holding a query term, their
    /// edges, nodes, the corpus statistics and the order.
    fn touching(&self, case: &CaseSpec, o_old: &Outcome, o_new: &Outcome) -> Vec<u32> {
        let p = self.plan;
        let mut set: FxHashSet<u32> = FxHashSet::default();
        let none = vec![false; p.groups.len()];
        let all = vec![true; p.groups.len()];
        let rows_of = |o: &Outcome, applied: &[bool], set: &mut FxHashSet<u32>| {
            for (name, _) in &o.rows {
                if let Some(s) = p.slot_named(name, applied) {
                    self.tool_and_edges(s, set);
                }
            }
        };
        rows_of(o_old, &none, &mut set);
        rows_of(o_new, &all, &mut set);
        // the BM25 candidates near the top in either graph (seeds are the best five)
        for (engine, new_side) in [(p.old, false), (p.new, true)] {
            let qp = QueryPlan::new(&case.query, &engine.index, engine.tokenizer.as_ref());
            let mut scratch = Vec::new();
            let mut cands: Vec<(ToolId, f64)> =
                crate::engine::query::bm25_candidates(&engine.index, &qp, &mut scratch)
                    .into_iter()
                    .map(|(d, partial)| {
                        (
                            d,
                            crate::engine::query::full_score(&engine.graph, &qp, d, partial),
                        )
                    })
                    .collect();
            cands.sort_by(|x, y| y.1.total_cmp(&x.1).then(x.0.cmp(&y.0)));
            for &(d, _) in cands.iter().take(SEED_WINDOW) {
                self.tool_and_edges(p.slot_of(new_side, d), &mut set);
            }
        }
        for (i, g) in p.groups.iter().enumerate() {
            if matches!(
                g.kind,
                GroupKind::Node | GroupKind::Corpus | GroupKind::Order
            ) {
                set.insert(i as u32);
            }
        }
        let mut v: Vec<u32> = set.into_iter().collect();
        v.sort_unstable();
        v
    }

    fn tool_and_edges(&self, slot: u32, set: &mut FxHashSet<u32>) {
        if let Some(g) = self.plan.tool_group(slot) {
            set.insert(g);
        }
        set.extend(self.plan.edge_groups_of(slot).iter().copied());
    }

    /// Adds the groups of the tools in a hybrid's ranking (and their edges).
    fn add_row_groups(&self, o: &Outcome, applied: &[bool], chosen: &mut Vec<u32>) {
        let mut set: FxHashSet<u32> = chosen.iter().copied().collect();
        for (name, _) in &o.rows {
            if let Some(s) = self.plan.slot_named(name, applied) {
                self.tool_and_edges(s, &mut set);
            }
        }
        let mut v: Vec<u32> = set.into_iter().collect();
        v.sort_unstable();
        *chosen = v;
    }
}

/// The tools whose place differs between OLD and NEW (`ev`'s endpoints), each one's move
/// split over `players` as the shares were: every hybrid this asks for is in `ev`'s cache.
fn moved_tools(
    ev: &mut Evals<'_, '_, '_>,
    players: &[Vec<u32>],
    o_old: &Outcome,
    seed: u64,
) -> Vec<MovedTool> {
    let o_new = ev.o_new;
    let mut names: Vec<String> = Vec::new();
    for (name, _) in o_new.rows.iter().chain(&o_old.rows) {
        if o_old.rank_of(name) != o_new.rank_of(name) && !names.contains(name) {
            names.push(name.clone());
        }
    }
    if names.is_empty() {
        return Vec::new();
    }
    let (n, groups) = (players.len(), ev.plan.groups.len());
    let absent = ev.case.knobs.params.top_k + 1;
    let mut v = |mask: u128| -> Vec<f64> {
        let o = ev.eval(&applied_of(groups, players, mask)).0;
        names
            .iter()
            .map(|t| o.rank_of(t).unwrap_or(absent) as f64)
            .collect()
    };
    let phi = if n <= shapley::EXACT_MAX {
        shapley::exact_many(n, names.len(), &mut v)
    } else {
        shapley::sampled_many(n, names.len(), shapley::samples_for(n), seed, &mut v).0
    };
    let top_k = absent - 1;
    names
        .iter()
        .enumerate()
        .map(|(k, name)| {
            let mut parts: Vec<(Vec<u32>, f64)> = players
                .iter()
                .zip(&phi)
                .filter(|(_, p)| p[k] != 0.0)
                .map(|(g, p)| (g.clone(), p[k]))
                .collect();
            parts.sort_by(|a, b| b.1.abs().total_cmp(&a.1.abs()));
            let mut t = MovedTool {
                name: name.clone(),
                rank: (o_old.rank_of(name), o_new.rank_of(name)),
                parts,
                residual: 0.0,
            };
            t.residual = t.delta(top_k) - t.parts.iter().map(|p| p.1).sum::<f64>();
            t
        })
        .collect()
}

fn missing_in(e: &Engine, expected: &[String]) -> Vec<String> {
    expected
        .iter()
        .filter(|x| e.graph.tool_id(x).is_none())
        .cloned()
        .collect()
}

/// A seed per case (FNV-1a of its query), so a case's estimate does not depend on the
/// suite it is in or its id.
fn seed_of(id: &str) -> u64 {
    id.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ b as u64).wrapping_mul(0x0100_0000_01b3)
    })
}

/// Where a blame's time goes (with `TOOLSCOPE_TIMING`): building hybrids and running
/// the case on them.
pub mod profile {
    use std::sync::atomic::{AtomicU64, Ordering};
    static BUILD: AtomicU64 = AtomicU64::new(0);
    static RUN: AtomicU64 = AtomicU64::new(0);
    static N: AtomicU64 = AtomicU64::new(0);

    pub fn add(build: std::time::Duration, run: std::time::Duration) {
        BUILD.fetch_add(build.as_micros() as u64, Ordering::Relaxed);
        RUN.fetch_add(run.as_micros() as u64, Ordering::Relaxed);
        N.fetch_add(1, Ordering::Relaxed);
    }

    /// `hybrids N, build X ms, run Y ms` so far.
    pub fn report() -> String {
        format!(
            "hybrids {}, building {:.1} ms, running the case {:.1} ms",
            N.load(Ordering::Relaxed),
            BUILD.load(Ordering::Relaxed) as f64 / 1e3,
            RUN.load(Ordering::Relaxed) as f64 / 1e3
        )
    }
}

/// A score rounded as reports show it (4 decimals).
pub fn r4(x: f64) -> f64 {
    round(x, 4)
}

#[cfg(test)]
mod tests;
