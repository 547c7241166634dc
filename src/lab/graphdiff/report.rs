//! The artifact diff written out: a human summary first (counts, then the lists, each cut
//! at a limit the caller chooses), and one JSON object for scripts (the contract in the
//! README's "diff" section). Names come from the files and pass the one sanitiser on their
//! way to a terminal; `--json` escapes them as `jsonout` does.

use std::fmt::Write;

use rustc_hash::FxHashMap;
use serde_json::Value;

use super::leaves::Leaf;
use super::{ArtifactDiff, EdgeRef, ToolChange};
use crate::jsonout::JsonWriter;
use crate::sanitize::line as clean;

/// `… N more (--limit 0 lists all)` after a list cut at `limit`.
fn more(out: &mut String, total: usize, limit: usize) {
    if limit > 0 && total > limit {
        let _ = writeln!(out, "  … {} more (--limit 0 lists all)", total - limit);
    }
}

fn take<T>(items: &[T], limit: usize) -> &[T] {
    if limit == 0 {
        items
    } else {
        &items[..items.len().min(limit)]
    }
}

/// A value for one line: strings unquoted and cut at `width` characters.
pub fn short(v: &str, width: usize) -> String {
    let v = clean(v);
    if v.chars().count() <= width {
        v
    } else {
        let cut: String = v.chars().take(width.saturating_sub(1)).collect();
        format!("{cut}…")
    }
}

fn show_value(v: &Option<Value>) -> String {
    match v {
        None => "(absent)".into(),
        Some(Value::String(s)) => format!("{:?}", short(s, 48)),
        Some(other) => short(&other.to_string(), 48),
    }
}

fn fp(f: &str) -> &str {
    &f[..f.len().min(12)]
}

/// The header and the counts (what `diff --cases` prints above the blame).
pub fn summary(d: &ArtifactDiff) -> String {
    let mut out = String::new();
    header(&mut out, d);
    out
}

/// The human report.
pub fn text(d: &ArtifactDiff, limit: usize) -> String {
    let mut out = String::new();
    header(&mut out, d);
    tools_text(&mut out, d, limit);
    edges_text(&mut out, d, limit);
    corpus_text(&mut out, d, limit);
    summaries_text(&mut out, d, limit);
    out
}

fn header(out: &mut String, d: &ArtifactDiff) {
    let version = |which: usize| {
        d.versions
            .iter()
            .find(|r| r.key == "graph_tool_call_version" || r.key == "library_version")
            .and_then(|r| {
                if which == 0 {
                    r.old.clone()
                } else {
                    r.new.clone()
                }
            })
            .map(|v| format!("  graph-tool-call {}", clean(&v)))
            .unwrap_or_default()
    };
    for (tag, s, w) in [("OLD", &d.old, 0), ("NEW", &d.new, 1)] {
        let _ = writeln!(
            out,
            "{tag}  {}  {} tools  {} edges  sha256 {}{}",
            clean(&s.label),
            s.tools,
            s.edges,
            fp(&s.fingerprint),
            version(w)
        );
    }
    let t = &d.tools;
    let visible = t.changed.iter().filter(|c| c.engine_visible).count();
    let _ = writeln!(out);
    let _ = writeln!(
        out,
        "tools     +{} added  -{} removed  {} renamed  {} changed ({} seen by ranking, {} in metadata only)  {} unchanged{}",
        t.added.len(),
        t.removed.len(),
        t.renamed.len(),
        t.changed.len(),
        visible,
        t.changed.len() - visible,
        t.unchanged,
        if t.order_changed {
            "  (tool order changed)"
        } else {
            ""
        }
    );
    let e = &d.edges;
    let _ = writeln!(
        out,
        "edges     +{} added  -{} removed  {} changed ({} seen by ranking)  {} unchanged{}",
        e.added.len(),
        e.removed.len(),
        e.changed.len(),
        e.changed.iter().filter(|c| c.engine_visible).count(),
        e.unchanged,
        if e.order_changed {
            "  (edge order changed)"
        } else {
            ""
        }
    );
    let n = &d.nodes;
    if !(n.added.is_empty() && n.removed.is_empty() && n.changed.is_empty()) {
        let _ = writeln!(
            out,
            "nodes     +{} added  -{} removed  {} changed (categories, domains, undeclared endpoints)",
            n.added.len(),
            n.removed.len(),
            n.changed.len()
        );
    }
    let c = &d.corpus;
    let _ = writeln!(
        out,
        "corpus    documents {} -> {}  avg length {:.2} -> {:.2}  terms {} -> {} (+{} -{})",
        c.documents.0,
        c.documents.1,
        c.avgdl.0,
        c.avgdl.1,
        c.terms.0,
        c.terms.1,
        c.terms_added,
        c.terms_removed
    );
    let differing: Vec<String> = d
        .versions
        .iter()
        .filter(|r| r.differs() && r.key != "fingerprint")
        .map(|r| {
            format!(
                "{} {} -> {}",
                r.key,
                clean(r.old.as_deref().unwrap_or("(absent)")),
                clean(r.new.as_deref().unwrap_or("(absent)"))
            )
        })
        .collect();
    let _ = writeln!(
        out,
        "versions  {}; both ranked as {}",
        if differing.is_empty() {
            "the same".to_string()
        } else {
            differing.join(", ")
        },
        crate::engine::PROFILE
    );
    if d.old.fingerprint == d.new.fingerprint {
        let _ = writeln!(out, "          the two files have the same content");
    }
    for p in &d.partial {
        let _ = writeln!(out, "partial   {}", clean(p));
    }
    if d.engine_identical() {
        let _ = writeln!(
            out,
            "          ranking and selection cannot differ: nothing the engine reads changed"
        );
    }
}

fn tools_text(out: &mut String, d: &ArtifactDiff, limit: usize) {
    let t = &d.tools;
    if !t.renamed.is_empty() {
        let _ = writeln!(
            out,
            "\nRenamed ({}): same method and path, new name",
            t.renamed.len()
        );
        for (o, n) in take(&t.renamed, limit) {
            let _ = writeln!(out, "  {} -> {}", clean(o), clean(n));
        }
        more(out, t.renamed.len(), limit);
    }
    for (title, list) in [("Added", &t.added), ("Removed", &t.removed)] {
        if list.is_empty() {
            continue;
        }
        let _ = writeln!(out, "\n{title} ({})", list.len());
        let w = take(list, limit)
            .iter()
            .map(|r| r.name.chars().count())
            .max()
            .unwrap_or(0);
        for r in take(list, limit) {
            let _ = writeln!(out, "  {:w$}  {}", clean(&r.name), clean(&r.route()));
        }
        more(out, list.len(), limit);
    }
    let visible: Vec<&ToolChange> = t.changed.iter().filter(|c| c.engine_visible).collect();
    if !visible.is_empty() {
        let _ = writeln!(out, "\nChanged, seen by ranking ({})", visible.len());
        for c in take(&visible, limit) {
            change_text(out, c);
        }
        more(out, visible.len(), limit);
    }
    let inert: Vec<&ToolChange> = t.changed.iter().filter(|c| !c.engine_visible).collect();
    if !inert.is_empty() {
        let mut keys: FxHashMap<&str, usize> = FxHashMap::default();
        for c in &inert {
            for k in &c.metadata_keys {
                *keys.entry(k).or_default() += 1;
            }
        }
        let mut keys: Vec<(&str, usize)> = keys.into_iter().collect();
        keys.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
        let list: Vec<String> = keys
            .iter()
            .take(8)
            .map(|(k, n)| format!("{} ({n})", clean(k)))
            .collect();
        let _ = writeln!(
            out,
            "\nChanged in metadata the engine does not read ({}): {}",
            inert.len(),
            list.join(", ")
        );
    }
}

fn change_text(out: &mut String, c: &ToolChange) {
    let name = match &c.renamed_from {
        Some(o) => format!("{} (was {})", clean(&c.name), clean(o)),
        None => clean(&c.name),
    };
    let _ = writeln!(out, "  {name}  {}", c.fields.join(", "));
    if !c.engine_fields.is_empty() {
        let _ = writeln!(out, "      engine reads  {}", c.engine_fields.join(", "));
    }
    if let Some((a, b)) = &c.description {
        let _ = writeln!(
            out,
            "      description   {:?} -> {:?}",
            short(a, 60),
            short(b, 60)
        );
    }
    let p = &c.params;
    if !(p.added.is_empty() && p.removed.is_empty() && p.changed.is_empty()) {
        let mut parts: Vec<String> = Vec::new();
        parts.extend(p.added.iter().map(|x| format!("+{}", clean(x))));
        parts.extend(p.removed.iter().map(|x| format!("-{}", clean(x))));
        parts.extend(p.changed.iter().map(|x| format!("~{}", clean(x))));
        let _ = writeln!(out, "      parameters    {}", parts.join(" "));
    }
    if !c.tokens.is_empty() {
        let _ = writeln!(
            out,
            "      indexed text  {}  (length {} -> {})",
            token_list(&c.tokens.gained, &c.tokens.lost, 12),
            c.tokens.len.0,
            c.tokens.len.1
        );
    }
    for (f, a, b) in &c.facts {
        let _ = writeln!(out, "      {f:<13} {} -> {}", clean(a), clean(b));
    }
    if !c.contract.is_empty() {
        let mut parts: Vec<String> = Vec::new();
        for (sign, list) in [
            ('+', &c.contract.added),
            ('-', &c.contract.removed),
            ('~', &c.contract.changed),
        ] {
            parts.extend(list.iter().take(6).map(|x| format!("{sign}{}", clean(x))));
        }
        let n = c.contract.added.len() + c.contract.removed.len() + c.contract.changed.len();
        let rest = if n > parts.len() {
            format!(" (+{} more)", n - parts.len())
        } else {
            String::new()
        };
        let _ = writeln!(out, "      contract      {}{rest}", parts.join(" "));
    }
    if c.metadata.count > 0 {
        let _ = writeln!(
            out,
            "      metadata      {}{} leaves under {}",
            c.metadata.count,
            if c.metadata.complete() { "" } else { "+" },
            c.metadata_keys
                .iter()
                .map(|k| clean(k))
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
}

/// `+tok ×2 -other` for at most `max` tokens.
pub fn token_list(gained: &[(String, u32)], lost: &[(String, u32)], max: usize) -> String {
    let fmt = |sign: char, (t, n): &(String, u32)| {
        if *n > 1 {
            format!("{sign}{} x{n}", clean(t))
        } else {
            format!("{sign}{}", clean(t))
        }
    };
    let mut parts: Vec<String> = gained.iter().map(|g| fmt('+', g)).collect();
    parts.extend(lost.iter().map(|l| fmt('-', l)));
    let n = parts.len();
    parts.truncate(max);
    let mut s = parts.join(" ");
    if n > max {
        let _ = write!(s, " (+{} more)", n - max);
    }
    s
}

fn edge_line(e: &EdgeRef) -> String {
    format!(
        "{} -> {}  {} {}",
        clean(&e.source),
        clean(&e.target),
        clean(&e.relation),
        clean(&e.confidence)
    )
}

fn by_relation(list: &[(crate::model::EdgeId, EdgeRef)]) -> String {
    let mut counts: Vec<(&str, usize)> = Vec::new();
    for (_, e) in list {
        match counts.iter_mut().find(|(r, _)| *r == e.relation) {
            Some(c) => c.1 += 1,
            None => counts.push((&e.relation, 1)),
        }
    }
    counts.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    counts
        .iter()
        .map(|(r, n)| format!("{} {n}", if r.is_empty() { "(none)" } else { r }))
        .collect::<Vec<_>>()
        .join(", ")
}

fn edges_text(out: &mut String, d: &ArtifactDiff, limit: usize) {
    let e = &d.edges;
    for (title, list) in [("Edges added", &e.added), ("Edges removed", &e.removed)] {
        if list.is_empty() {
            continue;
        }
        let _ = writeln!(
            out,
            "\n{title} ({}): {}",
            list.len(),
            clean(&by_relation(list))
        );
        for (_, r) in take(list, limit) {
            let _ = writeln!(out, "  {}", edge_line(r));
        }
        more(out, list.len(), limit);
    }
    if !e.changed.is_empty() {
        let _ = writeln!(out, "\nEdges changed ({})", e.changed.len());
        for c in take(&e.changed, limit) {
            let fields: Vec<String> = c
                .fields
                .iter()
                .map(|(k, a, b)| format!("{k} {} -> {}", short(a, 30), short(b, 30)))
                .collect();
            let _ = writeln!(
                out,
                "  {} -> {}  {}{}",
                clean(&c.source),
                clean(&c.target),
                fields.join("; "),
                if c.engine_visible {
                    ""
                } else {
                    "  (not read by ranking)"
                }
            );
        }
        more(out, e.changed.len(), limit);
    }
    let n = &d.nodes;
    for (title, list) in [
        ("Nodes added", &n.added),
        ("Nodes removed", &n.removed),
        ("Nodes changed", &n.changed),
    ] {
        if !list.is_empty() {
            let names: Vec<String> = take(list, limit).iter().map(|s| clean(s)).collect();
            let _ = writeln!(out, "\n{title} ({}): {}", list.len(), names.join(", "));
        }
    }
}

fn corpus_text(out: &mut String, d: &ArtifactDiff, limit: usize) {
    let c = &d.corpus;
    if !c.idf_moves.is_empty() {
        let _ = writeln!(out, "\nCorpus: the idf of these terms moved most");
        let w = c
            .idf_moves
            .iter()
            .map(|m| m.term.chars().count())
            .max()
            .unwrap_or(4);
        for m in take(&c.idf_moves, limit) {
            let _ = writeln!(
                out,
                "  {:w$}  idf {:.4} -> {:.4}  df {} -> {}",
                clean(&m.term),
                m.old.unwrap_or(0.0),
                m.new.unwrap_or(0.0),
                m.df.0,
                m.df.1
            );
        }
    }
    if !(c.stopwords_added.is_empty() && c.stopwords_removed.is_empty()) {
        let mut parts: Vec<String> = c
            .stopwords_added
            .iter()
            .map(|s| format!("+{}", clean(s)))
            .collect();
        parts.extend(c.stopwords_removed.iter().map(|s| format!("-{}", clean(s))));
        let _ = writeln!(out, "  stopwords  {}", parts.join(" "));
    }
}

fn summaries_text(out: &mut String, d: &ArtifactDiff, limit: usize) {
    if d.summaries.count == 0 {
        return;
    }
    let _ = writeln!(out, "\nSummaries ({} values differ)", d.summaries.count);
    for l in take(&d.summaries.kept, limit) {
        let _ = writeln!(
            out,
            "  {}  {} -> {}",
            clean(&l.pointer),
            show_value(&l.old),
            show_value(&l.new)
        );
    }
    more(out, d.summaries.count, limit);
}

fn leaf_json(w: &mut JsonWriter, l: &Leaf) {
    w.begin_obj();
    w.key("pointer").str(&l.pointer);
    for (k, v) in [("old", &l.old), ("new", &l.new)] {
        w.key(k);
        match v {
            Some(v) => w.value(v),
            None => w.null(),
        };
    }
    w.end_obj();
}

fn edge_json(w: &mut JsonWriter, e: &EdgeRef) {
    w.begin_obj();
    w.key("source").str(&e.source);
    w.key("target").str(&e.target);
    w.key("relation").str(&e.relation);
    w.key("confidence").str(&e.confidence);
    w.end_obj();
}

fn pair_json(w: &mut JsonWriter, a: &str, b: &str) {
    w.begin_arr();
    w.str(a);
    w.str(b);
    w.end_arr();
}

fn change_json(w: &mut JsonWriter, c: &ToolChange) {
    w.begin_obj();
    w.key("name").str(&c.name);
    // always present (null unless the tool was renamed): one shape for scripts
    match &c.renamed_from {
        Some(o) => w.key("renamed_from").str(o),
        None => w.key("renamed_from").null(),
    };
    w.key("fields").str_list(&c.fields);
    w.key("engine_visible").bool(c.engine_visible);
    w.key("engine_fields").str_list(&c.engine_fields);
    w.key("detail").begin_obj();
    if let Some((a, b)) = &c.description {
        w.key("description");
        pair_json(w, a, b);
    }
    let p = &c.params;
    if !(p.added.is_empty() && p.removed.is_empty() && p.changed.is_empty()) {
        w.key("parameters").begin_obj();
        w.key("added").str_list(&p.added);
        w.key("removed").str_list(&p.removed);
        w.key("changed").str_list(&p.changed);
        w.end_obj();
    }
    if !c.tokens.is_empty() {
        w.key("indexed_text").begin_obj();
        for (k, list) in [("gained", &c.tokens.gained), ("lost", &c.tokens.lost)] {
            w.key(k).begin_obj();
            for (t, n) in list {
                w.key(t).int(*n as i64);
            }
            w.end_obj();
        }
        w.key("length").begin_arr();
        w.int(c.tokens.len.0 as i64).int(c.tokens.len.1 as i64);
        w.end_arr();
        w.end_obj();
    }
    if !c.facts.is_empty() {
        w.key("facts").begin_obj();
        for (f, a, b) in &c.facts {
            w.key(f);
            pair_json(w, a, b);
        }
        w.end_obj();
    }
    if !c.contract.is_empty() {
        w.key("contract").begin_obj();
        w.key("added").str_list(&c.contract.added);
        w.key("removed").str_list(&c.contract.removed);
        w.key("changed").str_list(&c.contract.changed);
        w.end_obj();
    }
    if c.metadata.count > 0 {
        w.key("metadata").begin_obj();
        w.key("count").int(c.metadata.count as i64);
        w.key("count_complete").bool(c.metadata.complete());
        w.key("keys").str_list(&c.metadata_keys);
        w.key("leaves").begin_arr();
        for l in &c.metadata.kept {
            leaf_json(w, l);
        }
        w.end_arr();
        w.end_obj();
    }
    w.end_obj();
    w.end_obj();
}

/// The JSON object (one line).
pub fn json(d: &ArtifactDiff) -> String {
    let mut w = JsonWriter::new();
    w.begin_obj();
    for (k, s) in [("old", &d.old), ("new", &d.new)] {
        w.key(k).begin_obj();
        w.key("source").str(&s.label);
        w.key("tools").int(s.tools as i64);
        w.key("edges").int(s.edges as i64);
        w.key("fingerprint").str(&s.fingerprint);
        w.end_obj();
    }
    w.key("comparison").str(if d.partial.is_empty() {
        "full"
    } else {
        "partial"
    });
    w.key("partial").str_list(&d.partial);
    w.key("engine_identical").bool(d.engine_identical());
    let t = &d.tools;
    w.key("tools").begin_obj();
    let names = |l: &[super::ToolRef]| l.iter().map(|r| r.name.clone()).collect::<Vec<_>>();
    w.key("added").str_list(&names(&t.added));
    w.key("removed").str_list(&names(&t.removed));
    w.key("renamed").begin_arr();
    for (o, n) in &t.renamed {
        pair_json(&mut w, o, n);
    }
    w.end_arr();
    w.key("changed").begin_arr();
    for c in &t.changed {
        change_json(&mut w, c);
    }
    w.end_arr();
    w.key("unchanged").int(t.unchanged as i64);
    w.key("order_changed").bool(t.order_changed);
    w.end_obj();
    let e = &d.edges;
    w.key("edges").begin_obj();
    w.key("counts").begin_obj();
    w.key("added").int(e.added.len() as i64);
    w.key("removed").int(e.removed.len() as i64);
    w.key("changed").int(e.changed.len() as i64);
    w.key("unchanged").int(e.unchanged as i64);
    w.end_obj();
    for (k, list) in [("added", &e.added), ("removed", &e.removed)] {
        w.key(k).begin_arr();
        for (_, r) in list.iter() {
            edge_json(&mut w, r);
        }
        w.end_arr();
    }
    w.key("changed").begin_arr();
    for c in &e.changed {
        w.begin_obj();
        w.key("source").str(&c.source);
        w.key("target").str(&c.target);
        w.key("engine_visible").bool(c.engine_visible);
        w.key("fields").begin_obj();
        for (k, a, b) in &c.fields {
            w.key(k).begin_arr();
            w.raw(a).raw(b);
            w.end_arr();
        }
        w.end_obj();
        w.end_obj();
    }
    w.end_arr();
    w.key("order_changed").bool(e.order_changed);
    w.end_obj();
    let n = &d.nodes;
    w.key("nodes").begin_obj();
    w.key("added").str_list(&n.added);
    w.key("removed").str_list(&n.removed);
    w.key("changed").str_list(&n.changed);
    w.end_obj();
    let c = &d.corpus;
    w.key("corpus").begin_obj();
    let pair_int = |w: &mut JsonWriter, k: &str, (a, b): (usize, usize)| {
        w.key(k).begin_arr();
        w.int(a as i64).int(b as i64);
        w.end_arr();
    };
    pair_int(&mut w, "documents", c.documents);
    w.key("avg_length").begin_arr();
    w.f64(c.avgdl.0).f64(c.avgdl.1);
    w.end_arr();
    pair_int(&mut w, "terms", c.terms);
    w.key("terms_added").int(c.terms_added as i64);
    w.key("terms_removed").int(c.terms_removed as i64);
    w.key("idf_moves").begin_arr();
    for m in &c.idf_moves {
        w.begin_obj();
        w.key("term").str(&m.term);
        w.key("old").opt_f64(m.old);
        w.key("new").opt_f64(m.new);
        pair_int(&mut w, "df", m.df);
        w.end_obj();
    }
    w.end_arr();
    w.key("stopwords_added").str_list(&c.stopwords_added);
    w.key("stopwords_removed").str_list(&c.stopwords_removed);
    w.end_obj();
    w.key("versions").begin_obj();
    for r in &d.versions {
        w.key(r.key).begin_arr();
        w.opt_str(r.old.as_deref()).opt_str(r.new.as_deref());
        w.end_arr();
    }
    w.end_obj();
    w.key("summaries").begin_obj();
    w.key("count").int(d.summaries.count as i64);
    w.key("leaves").begin_arr();
    for l in &d.summaries.kept {
        leaf_json(&mut w, l);
    }
    w.end_arr();
    w.end_obj();
    w.end_obj();
    w.finish()
}
