//! `toolscope mcp` driven by the official MCP TypeScript SDK client (tests/mcp/client.mjs),
//! under 2025-11-25 and, with the version rewritten on the way out, 2025-06-18.
//! `.ci/run` installs the SDK (`npm ci --prefix tests/mcp`); without Node or the SDK the
//! test says SKIP on the terminal (shown without `--nocapture`).

mod common;

use std::path::Path;
use std::process::Command;

#[test]
fn official_sdk_client_talks_to_the_server() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = root.join("tests/mcp");
    if !dir.join("node_modules/@modelcontextprotocol/sdk").is_dir() {
        common::skip(
            "official_sdk_client_talks_to_the_server: the MCP SDK is not installed \
             (run `npm ci --prefix tests/mcp`, as .ci/run does)",
        );
        return;
    }
    if Command::new("node").arg("--version").output().is_err() {
        common::skip("official_sdk_client_talks_to_the_server: node not found");
        return;
    }
    let cases =
        std::env::temp_dir().join(format!("toolscope-mcp-cases-{}.jsonl", std::process::id()));
    std::fs::write(
        &cases,
        "{\"case_id\":\"c1\",\"query\":\"refund approval\",\"expected_target\":\"approveRefund\"}\n\
         {\"case_id\":\"c2\",\"query\":\"주문 취소해줘\",\"expected_target\":\"cancelOrder\"}\n\
         {\"case_id\":\"c3\",\"query\":\"member detail\",\"expected_target\":\"getMemberDetail\"}\n",
    )
    .unwrap();
    let out = Command::new("node")
        .arg(dir.join("client.mjs"))
        .arg(env!("CARGO_BIN_EXE_toolscope"))
        .arg(&cases)
        .output()
        .expect("node runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "client failed:\n{stdout}\n{stderr}");
    assert!(stdout.contains("MCP SDK client: ok"), "{stdout}");
    assert!(
        stdout.contains(
            "SEP-1303 isError under 2025-11-25, -32602 under 2025-06-18; 8 invalid-argument kinds checked under both"
        ),
        "{stdout}"
    );
    println!("{}", stdout.trim());
}
