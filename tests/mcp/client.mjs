// Drives `toolscope mcp` with the official MCP TypeScript SDK client and checks the
// contract: negotiation, tool annotations, structured results, execution errors as
// isError, protocol errors as JSON-RPC errors, the call budget and hidden labels; and the
// two error kinds per protocol version: under 2025-11-25 (the SDK's latest) an invalid
// argument is an isError result (SEP-1303), under 2025-06-18 a JSON-RPC -32602 error; an
// unknown tool is a JSON-RPC -32602 error under both. Every kind of invalid argument
// (missing, mistyped, unknown or hidden metric, unauthorised or post-decision knob, out of
// range, an unknown tool named in an argument) is checked under both versions.
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
// the client hands the negotiated version to transports that take one
let negotiated = null;
transport.setProtocolVersion = (v) => {
  negotiated = v;
};
const client = new Client({ name: "toolscope-sdk-test", version: "1.0.0" });
await client.connect(transport);

assert.equal(negotiated, "2025-11-25");
const info = client.getServerVersion();
assert.equal(info.name, "toolscope");
assert.ok(client.getServerCapabilities().tools, "tools capability");

const { tools } = await client.listTools();
const names = tools.map((t) => t.name).sort();
assert.deepEqual(names, [
  "compare_bounded_counterfactual",
  "describe_metric",
  "explain_metric",
  "explain_rank_gap",
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

// a rank gap: the triage of one named tool without probes, in the retrieval scope
const gap = await client.callTool({
  name: "explain_rank_gap",
  arguments: { query: "approve refund", expected: "listOrders" },
});
assert.equal(gap.isError, false);
assert.equal(gap.structuredContent.class, "not_retrieved");
assert.equal(gap.structuredContent.sub_cause, "below_cutoff");
assert.ok(!("probes" in gap.structuredContent), "no probes for models");
assert.ok(!("selection" in gap.structuredContent.evidence), "the selector's verdict is post-decision");
const gapBad = await client.callTool({
  name: "explain_rank_gap",
  arguments: { query: "approve refund", expected: "approveRefnd" },
});
assert.equal(gapBad.isError, true);
assert.match(gapBad.content[0].text, /^invalid arguments for explain_rank_gap: expected: .*"approveRefnd".*closest names: approveRefund/);

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
assert.match(protocolError.message, /unknown tool/);

// SEP-1303: an invalid argument is a tool execution error the model sees, naming the
// argument and what it accepts
const badArg = await client.callTool({
  name: "lookup_recorded_run",
  arguments: { query: "refund approval", params: { top_k: -5 } },
});
assert.equal(badArg.isError, true);
assert.match(badArg.content[0].text, /^invalid arguments for lookup_recorded_run: params: knob top_k: expected an integer from 1 to 10000/);
assert.ok(!("structuredContent" in badArg), "no structured content on an error");

// label-dependent aggregates over a 3-case suite are withheld
const lab = await client.callTool({ name: "explain_metric", arguments: { metric_id: "lab.hit_at_k", params: { top_k: 1 } } });
assert.equal(lab.isError, false);
assert.equal(lab.structuredContent.value, null);
assert.equal(lab.structuredContent.mechanism_status, "unresolved");
assert.match(lab.structuredContent.limitations[0], /withheld/);

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

// a client that negotiates 2025-06-18 (the SDK sends its latest version; the transport
// rewrites it) keeps the older answer: -32602 for invalid arguments
const oldTransport = new StdioClientTransport({ command: bin, args: ["mcp", "demo"], stderr: "pipe" });
let oldNegotiated = null;
oldTransport.setProtocolVersion = (v) => {
  oldNegotiated = v;
};
const send = oldTransport.send.bind(oldTransport);
oldTransport.send = (msg, opts) => {
  if (msg.method === "initialize") msg.params.protocolVersion = "2025-06-18";
  return send(msg, opts);
};
const old = new Client({ name: "toolscope-sdk-test-2025-06-18", version: "1.0.0" });
await old.connect(oldTransport);
assert.equal(oldNegotiated, "2025-06-18");
let oldError = null;
try {
  await old.callTool({ name: "lookup_recorded_run", arguments: { query: "refund approval", params: { top_k: -5 } } });
} catch (e) {
  oldError = e;
}
assert.ok(oldError, "under 2025-06-18 an invalid argument is a protocol error");
assert.equal(oldError.code, -32602);
assert.match(oldError.message, /params: knob top_k/);
let oldUnknown = null;
try {
  await old.callTool({ name: "no_such_tool", arguments: {} });
} catch (e) {
  oldUnknown = e;
}
assert.equal(oldUnknown?.code, -32602);
// a tool that runs but cannot answer (a lab metric with no suite loaded) stays an isError
// result under every version
const oldExec = await old.callTool({ name: "explain_metric", arguments: { metric_id: "lab.mrr" } });
assert.equal(oldExec.isError, true, "execution errors stay isError results");
assert.equal(oldExec.content[0].text, "lab.mrr needs a suite (--cases)");
await checkInvalidArguments(old, "2025-06-18");
await old.close();

// every kind of invalid argument, on a fresh 2025-11-25 session (no budget to run out)
const fresh = new Client({ name: "toolscope-sdk-test-kinds", version: "1.0.0" });
await fresh.connect(new StdioClientTransport({ command: bin, args: ["mcp", "demo"], stderr: "pipe" }));
await checkInvalidArguments(fresh, "2025-11-25");
await fresh.close();

// Each kind of argument validation failure, with the text its message must carry (the
// argument's name and what it accepts): an isError result under 2025-11-25 (SEP-1303), a
// JSON-RPC -32602 error under 2025-06-18; an unknown tool in params.name is -32602 under both.
async function checkInvalidArguments(c, version) {
  const kinds = [
    ["missing", "explain_metric", { query: "x" }, /missing required argument "metric_id"/],
    ["mistyped", "lookup_recorded_run", { query: 5 }, /query: expected a string/],
    ["unknown metric", "describe_metric", { metric_id: "no.such.metric" },
      /metric_id: unknown metric "no\.such\.metric"; allowed: retrieval\.score, retrieval\.seed, retrieval\.graph/],
    ["hidden metric", "explain_metric", { metric_id: "selector.confidence", query: "x" },
      /metric_id: metric selector\.confidence is post_decision .*allowed: retrieval\.score/],
    ["unauthorised knob", "compare_bounded_counterfactual", { query: "x", change: { graph: "g" } },
      /change: "graph" is not an authorised knob \(authorised: top_k, depth/],
    ["post-decision knob", "lookup_recorded_run", { query: "x", params: { policy: "manual_review" } },
      /params: llm_target and policy are post-decision knobs .*authorised for models: top_k/],
    ["out of range", "lookup_recorded_run", { query: "x", params: { top_k: -5 } },
      /params: knob top_k: expected an integer from 1 to 10000/],
    ["unknown tool in an argument", "trace_entity", { query: "x", tool: "approveRefnd" },
      /tool: no tool named "approveRefnd" in the graph; .*closest names: approveRefund/],
  ];
  for (const [kind, name, args, want] of kinds) {
    const what = `${version} ${kind} (${name})`;
    if (version === "2025-11-25") {
      const r = await c.callTool({ name, arguments: args });
      assert.equal(r.isError, true, what);
      assert.ok(!("structuredContent" in r), `${what}: no structured content on an error`);
      assert.match(r.content[0].text, new RegExp(`^invalid arguments for ${name}: `), what);
      assert.match(r.content[0].text, want, what);
    } else {
      let err = null;
      try {
        await c.callTool({ name, arguments: args });
      } catch (e) {
        err = e;
      }
      assert.ok(err, `${what}: a JSON-RPC error`);
      assert.equal(err.code, -32602, what);
      assert.match(err.message, want, what);
    }
  }
  let unknown = null;
  try {
    await c.callTool({ name: "approveRefund", arguments: {} });
  } catch (e) {
    unknown = e;
  }
  assert.equal(unknown?.code, -32602, `${version}: an unknown tool name is a protocol error`);
  assert.match(unknown.message, /unknown tool: "approveRefund" \(tools: list_available_tools,/);
}

console.log(`MCP SDK client: ok (${tools.length} tools, protocol negotiated, budget enforced, SEP-1303 isError under 2025-11-25, -32602 under 2025-06-18; 8 invalid-argument kinds checked under both)`);
