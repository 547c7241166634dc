//! Local `$ref` resolution. A resolved reference is replaced by a copy of its target with
//! `"x-graph-tool-call-ref": "<ref>"` appended (as the reference marks expanded schemas).
//! A reference already being expanded on the current path (a cycle) becomes
//! `{"type": "object", "description": "(circular ref: …)"}`; remote references (not starting with `#`) are refused; a reference to a
//! missing target is left as it is (`Resolver::check_refs` says so once, with its place).

use serde_json::{Map, Value};
use std::cell::{Cell, RefCell};

use crate::error::InputError;

pub const REF_MARKER: &str = "x-graph-tool-call-ref";
/// Deepest `$ref` chain expanded on one path.
pub const MAX_REF_DEPTH: usize = 64;

pub struct Resolver<'a> {
    pub file: &'a str,
    pub root: &'a Value,
    /// resolved targets that did not meet a cycle (their expansion is context-free), with
    /// the number of nodes each expands to
    cache: RefCell<rustc_hash::FxHashMap<String, (Value, u64)>>,
    /// nodes produced since [`Resolver::begin_budget`] (a `$ref` fan-out cannot grow past
    /// [`crate::limits::REF_NODES`]: expansion stops and the caller reports it)
    used: Cell<u64>,
    budget: Cell<u64>,
    /// nodes produced for the whole spec, across threads (bounded by
    /// [`crate::limits::REF_NODES_TOTAL`])
    total: Option<&'a std::sync::atomic::AtomicU64>,
}

/// The most nodes one operation's expansion produced in this process, and the sum over
/// all operations (reported with `TOOLSCOPE_TIMING`, to compare real specs with
/// [`crate::limits::REF_NODES`] and [`crate::limits::REF_NODES_TOTAL`]).
pub static PEAK_NODES: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
pub static ALL_NODES: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// JSON pointer lookup (`#/components/schemas/Pet`).
pub fn lookup<'v>(root: &'v Value, r: &str) -> Option<&'v Value> {
    let ptr = r.strip_prefix('#')?;
    if ptr.is_empty() {
        return Some(root);
    }
    let mut cur = root;
    for part in ptr.strip_prefix('/')?.split('/') {
        let key = part.replace("~1", "/").replace("~0", "~");
        let key = percent_decode(&key);
        cur = match cur {
            Value::Object(m) => m.get(&key)?,
            Value::Array(a) => a.get(key.parse::<usize>().ok()?)?,
            _ => return None,
        };
    }
    Some(cur)
}

fn percent_decode(s: &str) -> String {
    if !s.contains('%') {
        return s.to_string();
    }
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%'
            && i + 2 < b.len()
            && let Ok(v) = u8::from_str_radix(&s[i + 1..i + 3], 16)
        {
            out.push(v);
            i += 3;
            continue;
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8(out).unwrap_or_else(|_| s.to_string())
}

impl<'a> Resolver<'a> {
    pub fn new(file: &'a str, root: &'a Value) -> Self {
        Resolver {
            file,
            root,
            cache: RefCell::new(Default::default()),
            used: Cell::new(0),
            budget: Cell::new(crate::limits::REF_NODES.get()),
            total: None,
        }
    }

    /// Counts this resolver's expansions into a total shared by every thread building the
    /// same spec.
    pub fn with_total(mut self, total: &'a std::sync::atomic::AtomicU64) -> Self {
        self.total = Some(total);
        self
    }

    /// Starts counting the nodes produced by expansion (one operation's worth).
    pub fn begin_budget(&self) {
        use std::sync::atomic::Ordering::Relaxed;
        let used = self.used.get();
        PEAK_NODES.fetch_max(used, Relaxed);
        ALL_NODES.fetch_add(used, Relaxed);
        if let Some(t) = self.total {
            t.fetch_add(used, Relaxed);
        }
        self.used.set(0);
    }

    /// Whether the expansion since [`Resolver::begin_budget`] went over the budget (its
    /// output is then incomplete and must not be used).
    pub fn over_budget(&self) -> bool {
        self.used.get() > self.budget.get()
    }

    /// Whether the whole spec's expansion so far is over [`crate::limits::REF_NODES_TOTAL`].
    pub fn over_total(&self) -> bool {
        self.total.is_some_and(|t| {
            t.load(std::sync::atomic::Ordering::Relaxed) > crate::limits::REF_NODES_TOTAL.get()
        })
    }

    /// Counts `n` nodes as produced (also an expansion an earlier operation made, whose
    /// result is reused instead of made again: it weighs on the budget and the spec's total
    /// as if it were).
    pub fn count(&self, n: u64) {
        self.used.set(self.used.get().saturating_add(n));
    }

    /// Nodes produced since [`Resolver::begin_budget`].
    pub fn used(&self) -> u64 {
        self.used.get()
    }

    /// Checks every `$ref` in the document, in document order: a remote reference is an
    /// error; a local one that points to nothing is a warning, once per reference, naming
    /// where it first appears (resolution then leaves it as it is, silently). The JSON
    /// pointer of a node is only spelled out for the ones reported.
    pub fn check_refs(&self) -> Result<(), InputError> {
        enum Step<'v> {
            Enter(&'v Value, Seg<'v>),
            Leave,
        }
        #[derive(Clone, Copy)]
        enum Seg<'v> {
            Root,
            Key(&'v str),
            Index(usize),
        }
        let pointer = |path: &[Seg]| {
            let mut p = String::new();
            for s in path {
                match s {
                    Seg::Root => {}
                    Seg::Key(k) => {
                        p.push('/');
                        p.push_str(&crate::model::load::pointer_escape(k));
                    }
                    Seg::Index(i) => p.push_str(&format!("/{i}")),
                }
            }
            p
        };
        let mut path: Vec<Seg> = Vec::new();
        let mut looked_up: rustc_hash::FxHashSet<&str> = Default::default();
        let mut stack = vec![Step::Enter(self.root, Seg::Root)];
        while let Some(step) = stack.pop() {
            let (v, seg) = match step {
                Step::Leave => {
                    path.pop();
                    continue;
                }
                Step::Enter(v, seg) => (v, seg),
            };
            path.push(seg);
            stack.push(Step::Leave);
            match v {
                Value::Object(m) => {
                    if let Some(Value::String(r)) = m.get("$ref") {
                        if !r.starts_with('#') {
                            return Err(InputError::new(
                                self.file,
                                &format!("{}/$ref", pointer(&path)),
                                format!(
                                    "remote $ref {} refused: only local references (#/…) are resolved",
                                    crate::sanitize::quoted(r)
                                ),
                            ));
                        }
                        if looked_up.insert(r) && lookup(self.root, r).is_none() {
                            crate::ingest::warn(format!(
                                "{}:{}/$ref: $ref {} points to nothing; left unresolved",
                                self.file,
                                pointer(&path),
                                crate::sanitize::quoted(r)
                            ));
                        }
                    }
                    // pushed last member first: taken in document order
                    for (k, x) in m.iter().rev() {
                        if matches!(x, Value::Object(_) | Value::Array(_)) {
                            stack.push(Step::Enter(x, Seg::Key(k)));
                        }
                    }
                }
                Value::Array(a) => {
                    for (i, x) in a.iter().enumerate().rev() {
                        if matches!(x, Value::Object(_) | Value::Array(_)) {
                            stack.push(Step::Enter(x, Seg::Index(i)));
                        }
                    }
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// The target of a `$ref` object (one level), for parameters / responses / bodies.
    pub fn deref<'v>(&'v self, v: &'v Value) -> &'v Value {
        let mut cur = v;
        for _ in 0..MAX_REF_DEPTH {
            match cur.get("$ref").and_then(Value::as_str) {
                Some(r) => match lookup(self.root, r) {
                    Some(t) => cur = t,
                    // (said by `check_refs`)
                    None => return cur,
                },
                None => return cur,
            }
        }
        cur
    }

    /// Fully resolved copy of a schema.
    pub fn resolve(&self, v: &Value) -> Value {
        let mut stack = Vec::new();
        let mut cut = usize::MAX;
        self.resolve_in(v, &mut stack, &mut cut)
    }

    /// [`Resolver::resolve`] of an object without its members `skip` (which the caller
    /// resolves apart, or reuses), counted as `resolve` counts the object itself: the
    /// object's own node and its other members.
    pub fn resolve_except(&self, v: &Value, skip: &[&str]) -> Value {
        let Value::Object(m) = v else {
            return self.resolve(v);
        };
        if m.contains_key("$ref") {
            return self.resolve(v);
        }
        if self.over_budget() {
            return Value::Null;
        }
        self.count(1);
        let mut out = Map::with_capacity(m.len());
        for (k, x) in m {
            if !skip.contains(&k.as_str()) {
                out.insert(k.clone(), self.resolve(x));
            }
        }
        Value::Object(out)
    }

    /// `cut` receives the smallest stack depth a cycle cut referred to (so a ref's
    /// expansion is context-free when no cut inside it reached below its own level).
    fn resolve_in(&self, v: &Value, stack: &mut Vec<String>, cut: &mut usize) -> Value {
        if self.over_budget() {
            return Value::Null;
        }
        self.count(1);
        match v {
            Value::Object(m) => {
                if let Some(Value::String(r)) = m.get("$ref") {
                    if let Some(pos) = stack.iter().position(|x| x == r) {
                        *cut = (*cut).min(pos);
                        // as the reference marks a cycle
                        return serde_json::json!({
                            "type": "object",
                            "description": format!("(circular ref: {r})"),
                        });
                    }
                    if stack.len() >= MAX_REF_DEPTH {
                        *cut = 0;
                        return serde_json::json!({
                            "type": "object",
                            "description": format!("(circular ref: {r})"),
                        });
                    }
                    if let Some((hit, n)) = self.cache.borrow().get(r.as_str()) {
                        self.count(*n);
                        return hit.clone();
                    }
                    let Some(target) = lookup(self.root, r) else {
                        // (said by `check_refs`)
                        return v.clone();
                    };
                    let level = stack.len();
                    let before = self.used.get();
                    stack.push(r.clone());
                    let mut inner_cut = usize::MAX;
                    let mut out = self.resolve_in(target, stack, &mut inner_cut);
                    stack.pop();
                    if let Value::Object(o) = &mut out
                        && !o.contains_key(REF_MARKER)
                    {
                        o.insert(REF_MARKER.into(), Value::String(r.clone()));
                    }
                    if inner_cut >= level {
                        // cycles inside refer only to this ref or below: same result anywhere
                        if inner_cut == usize::MAX && !self.over_budget() {
                            let n = self.used.get() - before;
                            self.cache.borrow_mut().insert(r.clone(), (out.clone(), n));
                        }
                    }
                    *cut = (*cut).min(inner_cut);
                    return out;
                }
                let mut out = Map::with_capacity(m.len());
                for (k, x) in m {
                    out.insert(k.clone(), self.resolve_in(x, stack, cut));
                }
                Value::Object(out)
            }
            Value::Array(a) => {
                Value::Array(a.iter().map(|x| self.resolve_in(x, stack, cut)).collect())
            }
            other => other.clone(),
        }
    }
}
