//! Parity with graph-tool-call 0.47.0 on the shared golden vectors
//! (`../shared/corpus/golden`, or under `$TOOLSCOPE_SHARED_DIR`): every retrieval and
//! selection identical, compared exactly. Without the corpus the test says SKIP on the
//! terminal.

mod common;

use toolscope::engine::Engine;
use toolscope::model::load::load_graph_file;

#[test]
fn every_shared_golden_case_is_identical() {
    let Some(dir) = common::shared_golden("every_shared_golden_case_is_identical") else {
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

/// Trial 2026-12-05 item 1: a fresh clone without `../shared` can point the tests at the
/// corpus with `TOOLSCOPE_SHARED_DIR` (the folder holding `corpus/`, or the corpus itself),
/// and what is skipped without it is said in words that name the variable.
#[test]
fn the_corpus_is_found_through_toolscope_shared_dir() {
    use common::shared_corpus::{ENV, absent_note, build_note, corpus_at};
    let dir = common::tmp_dir("shared", "env");
    let clone = dir.join("clone");
    std::fs::create_dir_all(&clone).unwrap();
    let shared = dir.join("elsewhere/shared");
    std::fs::create_dir_all(shared.join("corpus/golden/cases")).unwrap();
    // no ../shared next to the clone, no variable: absent, and the note says how to fix it
    assert_eq!(corpus_at(&clone, None), None);
    let note = build_note(&clone);
    assert!(
        note.contains("golden parity") && note.contains(ENV),
        "{note}"
    );
    assert!(note.contains("shared/corpus is absent"), "{note}");
    let note = absent_note(&clone, None);
    assert!(
        note.contains("shared/corpus is absent: skipped; set"),
        "{note}"
    );
    assert!(note.contains(ENV), "{note}");
    // the variable names the shared folder, or the corpus itself
    let want = Some(shared.join("corpus"));
    assert_eq!(corpus_at(&clone, Some(shared.as_os_str())), want);
    let corpus = shared.join("corpus");
    assert_eq!(corpus_at(&clone, Some(corpus.as_os_str())), Some(corpus));
    // an empty variable is unset; a folder without the corpus is named in the note
    assert_eq!(corpus_at(&clone, Some("".as_ref())), None);
    let empty = dir.join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    assert_eq!(corpus_at(&clone, Some(empty.as_os_str())), None);
    let note = absent_note(&clone, Some(empty.as_os_str()));
    assert!(
        note.starts_with(&format!("{ENV}={}", empty.display())),
        "{note}"
    );
    // the project's default layout: ../shared next to it
    std::fs::create_dir_all(dir.join("shared/corpus/golden")).unwrap();
    assert_eq!(
        corpus_at(&clone, None).map(|p| p.canonicalize().unwrap()),
        Some(dir.join("shared/corpus").canonicalize().unwrap())
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
