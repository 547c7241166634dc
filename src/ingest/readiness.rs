//! Readiness report (spec §8.1) and its printed summary.

use serde_json::Value;

/// The readiness summary `build` prints (spec §8.1).
pub fn summary_text(artifact: &Value) -> String {
    let Some(r) = artifact.get("readiness_report") else {
        return String::new();
    };
    let s = &r["summary"];
    let mut out = format!(
        "readiness: {} (score {}), {} tools, {} operations, {} deprecated\n",
        s["status"].as_str().unwrap_or("?"),
        s["readiness_score"],
        s["tool_count"],
        s["operation_count"],
        s["deprecated_tool_count"]
    );
    if let Some(issues) = r["issues"].as_array() {
        let mut counts: indexmap::IndexMap<(String, String), usize> = Default::default();
        for i in issues {
            let k = (
                i["severity"].as_str().unwrap_or("").to_string(),
                i["code"].as_str().unwrap_or("").to_string(),
            );
            *counts.entry(k).or_default() += 1;
        }
        for ((sev, code), n) in counts {
            out.push_str(&format!("  {sev:8} {code} x{n}\n"));
        }
    }
    out
}
