// Drives `toolscope mcp` with the official MCP TypeScript SDK client and checks the
// contract: negotiation, tool annotations, structured results, execution errors as
// isError, protocol errors as JSON-RPC errors, the call budget and hidden labels.
// usage: node client.mjs /path/to/toolscope /path/to/cases.jsonl
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import assert from "node:assert/strict";

const [bin, cases] = process.argv.slice(2);
const transport = new StdioClientTransport({
  command: bin,
  args: ["mcp", "demo", "--cases", cases, "--budget", "12"],
  stderr: "pipe",
});
const client = new Client({ name: "toolscope-sdk-test", version: "1.0.0" });
await client.connect(transport);

const info = client.getServerVersion();
assert.equal(info.name, "toolscope");
assert.ok(client.getServerCapabilities().tools, "tools capability");

const { tools } = await client.listTools();
const names = tools.map((t) => t.name).sort();
assert.deepEqual(names, [
  "compare_bounded_counterfactual",
  "describe_metric",
  "explain_metric",
  "list_available_metrics",
  "list_available_tools",
  "lookup_recorded_run",
  "trace_entity",
  "trace_event",
]);
for (const t of tools) {
  assert.deepEqual(t.annotations.readOnlyHint, true, t.name);
  assert.deepEqual(t.annotations.destructiveHint, false, t.name);
  assert.deepEqual(t.annotations.idempotentHint, true, t.name);
  assert.deepEqual(t.annotations.openWorldHint, false, t.name);
  assert.equal(t._meta["dev.toolscope/returns_action_recommendations"], false, t.name);
  assert.ok(t.outputSchema, `${t.name} has an outputSchema`);
  assert.match(t.description, /returns_action_recommendations: false/);
}

// a structured result with its text mirror (the SDK validates it against outputSchema)
const run = await client.callTool({ name: "lookup_recorded_run", arguments: { query: "refund approval" } });
assert.equal(run.isError, false);
assert.equal(run.structuredContent.read_only, true);
assert.equal(run.structuredContent.returns_action_recommendations, false);
assert.deepEqual(JSON.parse(run.content[0].text), run.structuredContent);
const top = run.structuredContent.run.rows[0].tool;

const ex = await client.callTool({
  name: "explain_metric",
  arguments: { metric_id: "retrieval.score", query: "refund approval", scope_id: top },
});
assert.equal(ex.structuredContent.mechanism_status, "resolved");
assert.equal(ex.structuredContent.value, run.structuredContent.run.rows[0].score);
assert.match(ex.structuredContent.provenance.graph.fingerprint, /^sha256:[0-9a-f]{64}$/);

const cf = await client.callTool({
  name: "compare_bounded_counterfactual",
  arguments: { query: "refund approval", change: { depth: 0 } },
});
assert.equal(cf.structuredContent.mechanism_status, "resolved");
assert.ok(!("selector_base" in cf.structuredContent), "the selector's verdict is post-decision");

// suite counterfactual: aggregates only, labels never visible
const suite = await client.callTool({
  name: "compare_bounded_counterfactual",
  arguments: { suite: true, change: { depth: 1 } },
});
assert.equal(suite.isError, false);
const text = JSON.stringify(suite.structuredContent);
assert.ok(!text.includes("expected"), "no expected targets in model-facing output");
assert.ok(!("base_hit" in suite.structuredContent.per_case[0]), "no per-case hits");

// execution errors are isError results; protocol errors are JSON-RPC errors
const bad = await client.callTool({ name: "explain_metric", arguments: { metric_id: "no.such.metric", query: "x" } });
assert.equal(bad.isError, true);
const hidden = await client.callTool({ name: "explain_metric", arguments: { metric_id: "selector.confidence", query: "x" } });
assert.equal(hidden.isError, true);
let protocolError = null;
try {
  await client.callTool({ name: "no_such_tool", arguments: {} });
} catch (e) {
  protocolError = e;
}
assert.ok(protocolError, "unknown tool is a protocol error");
assert.equal(protocolError.code, -32602);

await client.ping();

// the budget (12 calls) runs out
let exhausted = null;
for (let i = 0; i < 12; i++) {
  const r = await client.callTool({ name: "list_available_tools", arguments: {} });
  if (r.isError) {
    exhausted = r;
    break;
  }
}
assert.ok(exhausted, "budget exhausted");
assert.match(exhausted.content[0].text, /budget exhausted/);

await client.close();
console.log(`MCP SDK client: ok (${tools.length} tools, protocol negotiated, budget enforced)`);
