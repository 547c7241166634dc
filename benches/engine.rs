//! Criterion benches of the engine on the embedded demo graph: load, index build, query
//! with evidence (JSON included) and target selection.
//! Bigger workloads and ratios against the reference: `scripts/bench-vs-reference.sh`.

use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;
use toolscope::demo::{DEMO_GRAPH_GZ, demo_queries};
use toolscope::engine::{Engine, Params, SelectParams};
use toolscope::model::load::load_graph_bytes;
use toolscope::output::json;

fn benches(c: &mut Criterion) {
    c.bench_function("load demo artifact (gzip, 4.5 MB JSON)", |b| {
        b.iter(|| load_graph_bytes("demo", black_box(DEMO_GRAPH_GZ.to_vec())).unwrap())
    });
    let graph = load_graph_bytes("demo", DEMO_GRAPH_GZ.to_vec()).unwrap();
    c.bench_function("index build (123 tools)", |b| {
        b.iter(|| {
            toolscope::engine::index::Index::build(
                black_box(&graph),
                &toolscope::engine::tokenize::BuiltinTokenizer,
            )
        })
    });
    let engine = Engine::new(graph);
    let queries = demo_queries();
    let params = Params::default();
    c.bench_function("query with evidence, top 10, JSON (20 demo queries)", |b| {
        b.iter(|| {
            for q in &queries {
                let r = engine.retrieve(q, &params);
                black_box(json::retrieval_json(&engine, &r));
            }
        })
    });
    c.bench_function("retrieval only, plain path (20 demo queries)", |b| {
        b.iter(|| {
            for q in &queries {
                black_box(engine.retrieve(q, &params));
            }
        })
    });
    c.bench_function("retrieval with trace recording (20 demo queries)", |b| {
        b.iter(|| {
            for q in &queries {
                black_box(toolscope::engine::trace::record(&engine, q, &params, None));
            }
        })
    });
    let retrievals: Vec<_> = queries
        .iter()
        .map(|q| engine.retrieve(q, &params))
        .collect();
    let sel = SelectParams::default();
    c.bench_function("target selection over top 10 (20 demo queries)", |b| {
        b.iter(|| {
            for r in &retrievals {
                black_box(engine.select(r, &sel));
            }
        })
    });
}

criterion_group!(engine, benches);
criterion_main!(engine);
