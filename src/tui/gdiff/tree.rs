//! The artifact diff as a navigable tree: tools (added, removed, renamed, changed and
//! what changed in each), edges, nodes, the corpus statistics and the versions. One pure
//! function lists the rows a set of open branches shows; the app (Enter opens and closes a
//! branch) and the view (draws the rows) both call it, so they never disagree.

use std::collections::BTreeSet;

use crate::lab::graphdiff::report::token_list;
use crate::lab::graphdiff::{ArtifactDiff, ToolChange};

/// Leaves a branch lists at most (the CLI's `--json` lists them all).
pub const MAX_LEAVES: usize = 400;

/// One row of the tree. Text is raw (the view sanitises it).
#[derive(Clone, Debug, PartialEq)]
pub struct TreeItem {
    /// The branch path (`tools/changed/getOrder`); a leaf's is its parent's plus an index.
    pub key: String,
    pub depth: usize,
    /// A branch (Enter opens or closes it), and whether it is open.
    pub branch: bool,
    pub open: bool,
    /// `+` added, `-` removed, `~` changed, `>` renamed, ' ' other.
    pub sign: char,
    pub label: String,
    pub note: String,
}

/// The branches open when the screen starts: the five sections.
pub fn default_open() -> BTreeSet<String> {
    ["tools", "edges", "stats"]
        .into_iter()
        .map(String::from)
        .collect()
}

struct Builder<'a> {
    out: Vec<TreeItem>,
    open: &'a BTreeSet<String>,
}

impl Builder<'_> {
    /// Adds a branch row; true when it is open (its children follow).
    fn branch(&mut self, key: &str, depth: usize, sign: char, label: String, note: String) -> bool {
        let open = self.open.contains(key);
        self.out.push(TreeItem {
            key: key.to_string(),
            depth,
            branch: true,
            open,
            sign,
            label,
            note,
        });
        open
    }

    fn leaf(&mut self, key: String, depth: usize, sign: char, label: String, note: String) {
        self.out.push(TreeItem {
            key,
            depth,
            branch: false,
            open: false,
            sign,
            label,
            note,
        });
    }

    /// Leaves of a list, at most [`MAX_LEAVES`], then a count of the rest.
    fn list<T>(
        &mut self,
        parent: &str,
        depth: usize,
        items: &[T],
        f: impl Fn(&T) -> (char, String, String),
    ) {
        for (i, it) in items.iter().take(MAX_LEAVES).enumerate() {
            let (s, l, n) = f(it);
            self.leaf(format!("{parent}/{i}"), depth, s, l, n);
        }
        if items.len() > MAX_LEAVES {
            self.leaf(
                format!("{parent}/more"),
                depth,
                ' ',
                format!("and {} more", items.len() - MAX_LEAVES),
                "toolscope diff OLD NEW --json lists every one".into(),
            );
        }
    }
}

/// The rows shown with `open` branches open.
pub fn items(d: &ArtifactDiff, open: &BTreeSet<String>) -> Vec<TreeItem> {
    let mut b = Builder {
        out: Vec::new(),
        open,
    };
    tools(&mut b, d);
    edges(&mut b, d);
    let n = &d.nodes;
    if (!n.added.is_empty() || !n.removed.is_empty() || !n.changed.is_empty())
        && b.branch(
            "nodes",
            0,
            '~',
            "Nodes".into(),
            format!(
                "+{} -{} ~{} (categories, domains, undeclared endpoints)",
                n.added.len(),
                n.removed.len(),
                n.changed.len()
            ),
        )
    {
        let mut all: Vec<(char, &String)> = n.added.iter().map(|x| ('+', x)).collect();
        all.extend(n.removed.iter().map(|x| ('-', x)));
        all.extend(n.changed.iter().map(|x| ('~', x)));
        b.list("nodes", 1, &all, |(s, x)| (*s, (*x).clone(), String::new()));
    }
    stats(&mut b, d);
    versions(&mut b, d);
    b.out
}

fn tools(b: &mut Builder<'_>, d: &ArtifactDiff) {
    let t = &d.tools;
    let seen = t.changed.iter().filter(|c| c.engine_visible).count();
    let note = format!(
        "+{} -{} ~{} ({seen} seen by ranking), {} renamed, {} unchanged{}",
        t.added.len(),
        t.removed.len(),
        t.changed.len(),
        t.renamed.len(),
        t.unchanged,
        if t.order_changed {
            ", order changed"
        } else {
            ""
        }
    );
    if !b.branch("tools", 0, '~', "Tools".into(), note) {
        return;
    }
    if !t.added.is_empty()
        && b.branch(
            "tools/added",
            1,
            '+',
            "added".into(),
            t.added.len().to_string(),
        )
    {
        b.list("tools/added", 2, &t.added, |r| {
            ('+', r.name.clone(), r.route())
        });
    }
    if !t.removed.is_empty()
        && b.branch(
            "tools/removed",
            1,
            '-',
            "removed".into(),
            t.removed.len().to_string(),
        )
    {
        b.list("tools/removed", 2, &t.removed, |r| {
            ('-', r.name.clone(), r.route())
        });
    }
    if !t.renamed.is_empty()
        && b.branch(
            "tools/renamed",
            1,
            '>',
            "renamed".into(),
            format!("{} (same method and path, new name)", t.renamed.len()),
        )
    {
        b.list("tools/renamed", 2, &t.renamed, |(o, n)| {
            ('>', format!("{o} -> {n}"), String::new())
        });
    }
    let visible: Vec<&ToolChange> = t.changed.iter().filter(|c| c.engine_visible).collect();
    if !visible.is_empty()
        && b.branch(
            "tools/changed",
            1,
            '~',
            "changed, seen by ranking".into(),
            visible.len().to_string(),
        )
    {
        for c in visible.iter().take(MAX_LEAVES) {
            let key = format!("tools/changed/{}", c.name);
            if b.branch(&key, 2, '~', c.name.clone(), c.fields.join(", ")) {
                change_rows(b, &key, c);
            }
        }
        if visible.len() > MAX_LEAVES {
            b.leaf(
                "tools/changed/more".into(),
                2,
                ' ',
                format!("and {} more", visible.len() - MAX_LEAVES),
                String::new(),
            );
        }
    }
    let inert: Vec<&ToolChange> = t.changed.iter().filter(|c| !c.engine_visible).collect();
    if !inert.is_empty()
        && b.branch(
            "tools/inert",
            1,
            '~',
            "changed in metadata the engine does not read".into(),
            inert.len().to_string(),
        )
    {
        b.list("tools/inert", 2, &inert, |c| {
            ('~', c.name.clone(), c.metadata_keys.join(", "))
        });
    }
}

/// What changed in one tool, one row per field.
fn change_rows(b: &mut Builder<'_>, key: &str, c: &ToolChange) {
    let mut rows: Vec<(String, String)> = Vec::new();
    if let Some(o) = &c.renamed_from {
        rows.push(("renamed from".into(), o.clone()));
    }
    if let Some((x, y)) = &c.description {
        // quoted, control characters shown by the sanitiser (`\x1b`), so the quotes hold
        let q = |s: &str| format!("\"{}\"", crate::sanitize::line(s));
        rows.push(("description".into(), format!("{} -> {}", q(x), q(y))));
    }
    let p = &c.params;
    let mut parts: Vec<String> = Vec::new();
    parts.extend(p.added.iter().map(|x| format!("+{x}")));
    parts.extend(p.removed.iter().map(|x| format!("-{x}")));
    parts.extend(p.changed.iter().map(|x| format!("~{x}")));
    if !parts.is_empty() {
        rows.push(("parameters".into(), parts.join(" ")));
    }
    if !c.tokens.is_empty() {
        rows.push((
            "indexed text".into(),
            format!(
                "{} (length {} -> {})",
                token_list(&c.tokens.gained, &c.tokens.lost, 12),
                c.tokens.len.0,
                c.tokens.len.1
            ),
        ));
    }
    for (f, x, y) in &c.facts {
        rows.push(((*f).to_string(), format!("{x} -> {y}")));
    }
    let mut contract: Vec<String> = c.contract.added.iter().map(|x| format!("+{x}")).collect();
    contract.extend(c.contract.removed.iter().map(|x| format!("-{x}")));
    contract.extend(c.contract.changed.iter().map(|x| format!("~{x}")));
    if !contract.is_empty() {
        rows.push(("contract".into(), contract.join(" ")));
    }
    if c.metadata.count > 0 {
        rows.push((
            "metadata".into(),
            format!(
                "{} leaves under {}",
                c.metadata.count,
                c.metadata_keys.join(", ")
            ),
        ));
    }
    for (i, (k, v)) in rows.into_iter().enumerate() {
        b.leaf(format!("{key}/{i}"), 3, ' ', k, v);
    }
}

fn edges(b: &mut Builder<'_>, d: &ArtifactDiff) {
    let e = &d.edges;
    let seen = e.changed.iter().filter(|c| c.engine_visible).count();
    let note = format!(
        "+{} -{} ~{} ({seen} seen by ranking), {} unchanged{}",
        e.added.len(),
        e.removed.len(),
        e.changed.len(),
        e.unchanged,
        if e.order_changed {
            ", order changed"
        } else {
            ""
        }
    );
    if !b.branch("edges", 0, '~', "Edges".into(), note) {
        return;
    }
    for (key, sign, title, list) in [
        ("edges/added", '+', "added", &e.added),
        ("edges/removed", '-', "removed", &e.removed),
    ] {
        if !list.is_empty() && b.branch(key, 1, sign, title.into(), list.len().to_string()) {
            b.list(key, 2, list, |(_, r)| {
                (
                    sign,
                    format!("{} -> {}", r.source, r.target),
                    format!("{} {}", r.relation, r.confidence),
                )
            });
        }
    }
    if !e.changed.is_empty()
        && b.branch(
            "edges/changed",
            1,
            '~',
            "changed".into(),
            e.changed.len().to_string(),
        )
    {
        b.list("edges/changed", 2, &e.changed, |c| {
            let f: Vec<String> = c
                .fields
                .iter()
                .map(|(k, x, y)| format!("{k} {x} -> {y}"))
                .collect();
            ('~', format!("{} -> {}", c.source, c.target), f.join(", "))
        });
    }
}

fn stats(b: &mut Builder<'_>, d: &ArtifactDiff) {
    let c = &d.corpus;
    let note = format!(
        "documents {} -> {}, avg length {:.2} -> {:.2}",
        c.documents.0, c.documents.1, c.avgdl.0, c.avgdl.1
    );
    if !b.branch("stats", 0, '~', "Statistics".into(), note) {
        return;
    }
    b.leaf(
        "stats/terms".into(),
        1,
        ' ',
        "terms".into(),
        format!(
            "{} -> {} (+{} -{})",
            c.terms.0, c.terms.1, c.terms_added, c.terms_removed
        ),
    );
    if !c.idf_moves.is_empty()
        && b.branch(
            "stats/idf",
            1,
            '~',
            "idf moves".into(),
            format!("{} terms whose idf moved most", c.idf_moves.len()),
        )
    {
        let f = |x: Option<f64>| x.map_or("-".into(), |v| format!("{v:.3}"));
        b.list("stats/idf", 2, &c.idf_moves, |m| {
            (
                '~',
                m.term.clone(),
                format!("{} -> {} (df {} -> {})", f(m.old), f(m.new), m.df.0, m.df.1),
            )
        });
    }
    for (key, title, list) in [
        ("stats/stop+", "stopwords added", &c.stopwords_added),
        ("stats/stop-", "stopwords removed", &c.stopwords_removed),
    ] {
        if !list.is_empty() {
            b.leaf(key.into(), 1, ' ', title.into(), list.join(", "));
        }
    }
}

fn versions(b: &mut Builder<'_>, d: &ArtifactDiff) {
    let differ = d.versions.iter().filter(|r| r.differs()).count();
    let note = if differ == 0 {
        "the same".to_string()
    } else {
        format!("{differ} differ")
    };
    if !b.branch("versions", 0, ' ', "Versions".into(), note) {
        return;
    }
    b.list("versions", 1, &d.versions, |r| {
        let v = |x: &Option<String>| x.clone().unwrap_or_else(|| "(absent)".into());
        (
            if r.differs() { '~' } else { ' ' },
            r.key.to_string(),
            if r.differs() {
                format!("{} -> {}", v(&r.old), v(&r.new))
            } else {
                v(&r.old)
            },
        )
    });
    for p in &d.partial {
        b.leaf(
            "versions/partial".into(),
            1,
            '!',
            "partial".into(),
            p.clone(),
        );
    }
}
