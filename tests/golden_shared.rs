//! Parity with graph-tool-call 0.47.0 on the shared golden vectors
//! (`../shared/corpus/golden`): every retrieval and selection identical, compared exactly.

mod common;

use toolscope::engine::Engine;
use toolscope::model::load::load_graph_file;

#[test]
fn every_shared_golden_case_is_identical() {
    let Some(dir) = common::shared_golden() else {
        println!("SKIP: ../shared/corpus/golden not found; shared golden parity not checked");
        return;
    };
    let mut graphs: Vec<_> = std::fs::read_dir(dir.join("cases"))
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .collect();
    graphs.sort();
    let results: Vec<(String, usize, usize, Vec<String>)> = std::thread::scope(|s| {
        let handles: Vec<_> = graphs
            .iter()
            .map(|cases| {
                let dir = &dir;
                s.spawn(move || {
                    let name = cases.file_stem().unwrap().to_string_lossy().to_string();
                    let graph = load_graph_file(&dir.join("graphs").join(format!("{name}.json")))
                        .expect("graph loads");
                    let engine = Engine::new(graph);
                    let (same, total, failures) = common::run_cases(&engine, cases);
                    (name, same, total, failures)
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let (mut same, mut total) = (0, 0);
    let mut report = String::new();
    for (name, s, t, failures) in &results {
        same += s;
        total += t;
        report.push_str(&format!("{name}: {s}/{t} identical\n"));
        for f in failures.iter().take(3) {
            report.push_str(&format!("  {f}\n"));
        }
    }
    println!("{report}golden parity (exact): {same}/{total} identical");
    assert!(total > 0, "no golden cases found");
    assert_eq!(same, total, "golden cases differ:\n{report}");
}
