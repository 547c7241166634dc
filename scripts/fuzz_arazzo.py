"""Random Arazzo 1.0 workflow descriptions against random OpenAPI specs, for differential
fuzzing of `toolscope build SPEC… WORKFLOWS… -o OUT` against graph-tool-call 0.47.0.

usage: fuzz_arazzo.py OUT_DIR FIRST_SEED END_SEED

For every seed in [FIRST_SEED, END_SEED) writes a case fz-<seed>: one spec (fz-<seed>.a.json,
from fuzz_specs.gen; every fourth seed a second one, fz-<seed>.b.json; every third spec is
written as Swagger 2.0, every seventh has fuzz_specs' extras, every eighth is YAML; every
ninth case is instead an MCP tools/list result fz-<seed>.a.mcp.json made from the spec's
operations, every eleventh a fuzz_graphql.py introspection result fz-<seed>.a.graphql.json,
built with the endpoint https://api.example.com/graphql) and one Arazzo description fz-<seed>.arazzo.yaml (every fifth as
JSON, fz-<seed>.arazzo.json; every sixth seed a second description .2.arazzo.yaml). The
descriptions declare one to three source descriptions (relative and remote URLs, never
fetched) and hold one to four workflows whose steps name operations by operationId, by
`$sourceDescriptions.NAME.operationId`, by operationPath (with or without the
`{$sourceDescriptions.NAME.url}` prefix), call other workflows (`workflowId`), or name
operations no spec has; steps carry outputs (`$response.body#/…` pointers into the real
response fields, headers, status codes, request values), parameters and request bodies
(nested payloads, replacements) that read earlier and later steps' outputs
(`$steps.ID.outputs.NAME`, `{…}` interpolations, `#/…` suffixes, `$workflows.WF.steps…`
across workflows, missing steps and outputs), success criteria, onSuccess/onFailure
actions, workflow inputs and outputs. Now and then: a workflow without an id, duplicate
workflow or step ids, a step without a stepId, non-object steps. A seed in fifteen names an
undeclared source description (toolscope refuses it; the case file `.expect-error` says so).
Deterministic per seed.
"""
import json
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fuzz_specs  # noqa: E402

WORDS = ["user", "order", "item", "cart", "invoice", "payment", "ship", "team", "repo", "file"]


def esc(s):
    return s.replace("~", "~0").replace("/", "~1")


def schema_fields(spec, schema, depth=0):
    """Property names (and `0` for arrays) one or two levels into a response schema."""
    if not isinstance(schema, dict) or depth > 2:
        return []
    ref = schema.get("$ref")
    if isinstance(ref, str):
        name = ref.rsplit("/", 1)[-1]
        comps = spec.get("components", {}).get("schemas", {}) or spec.get("definitions", {})
        return schema_fields(spec, comps.get(name), depth + 1)
    out = []
    if schema.get("type") == "array":
        for f in schema_fields(spec, schema.get("items"), depth + 1):
            out.append("0/" + f)
        out.append("0")
    for k, v in (schema.get("properties") or {}).items():
        out.append(k)
        for f in schema_fields(spec, v, depth + 1)[:3]:
            out.append(k + "/" + f)
    return out


def operations(spec):
    """(operationId or None, method, path, parameter names, response field pointers)."""
    ops = []
    for path, item in spec.get("paths", {}).items():
        for method, op in item.items():
            if not isinstance(op, dict) or method not in ("get", "put", "post", "delete", "patch"):
                continue
            fields = []
            for code, resp in (op.get("responses") or {}).items():
                if not isinstance(resp, dict):
                    continue
                sch = resp.get("schema")
                for media in (resp.get("content") or {}).values():
                    sch = media.get("schema")
                fields += schema_fields(spec, sch)
            params = [p.get("name") for p in op.get("parameters", []) if isinstance(p, dict) and p.get("name")]
            ops.append((op.get("operationId"), method, path, params, fields))
    return ops


class Gen:
    def __init__(self, seed, ops, sources):
        self.r = random.Random(seed * 7919 + 17)
        self.ops = ops
        self.sources = sources
        self.bad_source = seed % 15 == 7

    def step_ref(self, op):
        r = self.r
        oid, method, path, _, _ = op
        k = r.random()
        src = r.choice(self.sources)
        if oid and k < 0.6:
            return {"operationId": oid}
        if oid and k < 0.72:
            return {"operationId": "$sourceDescriptions." + src + "." + oid}
        if k < 0.9:
            pointer = "#/paths/" + esc(path) + "/" + method
            prefix = r.choice(["{$sourceDescriptions." + src + ".url}", "", "./openapi.json"])
            return {"operationPath": prefix + pointer}
        if oid:
            return {"operationId": " " + oid + " " if r.random() < 0.5 else oid}
        return {"operationPath": "#/paths/" + esc(path) + "/" + method.upper()}

    def output_expr(self, op):
        r = self.r
        fields = op[4]
        k = r.random()
        if fields and k < 0.55:
            return "$response.body#/" + r.choice(fields)
        if k < 0.65:
            return "$response.body"
        if k < 0.72:
            return "$response.body#/" + r.choice(["id", "data/id", "items/0/id", "a~1b", ""])
        if k < 0.8:
            return "$response.header." + r.choice(["Location", "X-Rate-Limit", "ETag"])
        if k < 0.88:
            return "$statusCode"
        if k < 0.94:
            return r.choice(["$request.body#/id", "$inputs.token", "$url", 5, {"x": "$response.body#/x"}])
        return " $response.body#/" + (r.choice(fields) if fields else "id") + " "

    def reference(self, wid, prior, all_wfs):
        """An expression reading some step's output (or something else)."""
        r = self.r
        k = r.random()
        if prior and k < 0.7:
            sid, outs = r.choice(prior)
            out = r.choice(list(outs) + ["missing"]) if outs else "missing"
            suffix = r.choice(["", "", "", "#/id", "#/0", "#/a/b"])
            return "$steps." + sid + ".outputs." + out + suffix
        if all_wfs and k < 0.8:
            w, steps = r.choice(all_wfs)
            if steps:
                sid, outs = r.choice(steps)
                out = r.choice(list(outs) + ["nope"]) if outs else "nope"
                return "$workflows." + w + ".steps." + sid + ".outputs." + out
        if k < 0.88:
            return "$inputs." + r.choice(WORDS)
        if k < 0.94:
            return "$steps.ghost.outputs.id"
        return r.choice(["literal", 42, True, None])

    def value(self, wid, prior, all_wfs):
        r = self.r
        v = self.reference(wid, prior, all_wfs)
        k = r.random()
        if isinstance(v, str) and k < 0.15:
            return "prefix-{" + v + "}-" + "{" + self.reference(wid, prior, all_wfs).__str__() + "}"
        if isinstance(v, str) and k < 0.2:
            return [v]
        return v

    def payload(self, wid, prior, all_wfs, depth=0):
        r = self.r
        k = r.random()
        if depth < 2 and k < 0.45:
            return {r.choice(WORDS + ["userId", "id", "payload", "name"]) + r.choice(["", "Id", "_id"]):
                    self.payload(wid, prior, all_wfs, depth + 1) for _ in range(r.randint(1, 3))}
        if depth < 2 and k < 0.6:
            return [self.payload(wid, prior, all_wfs, depth + 1) for _ in range(r.randint(1, 2))]
        return self.value(wid, prior, all_wfs)

    def step(self, wid, sid, op, prior, all_wfs, wf_ids):
        r = self.r
        s = {"stepId": sid} if sid is not None else {}
        k = r.random()
        if k < 0.06 and wf_ids:
            s["workflowId"] = r.choice(wf_ids)
        elif k < 0.1:
            s["operationId"] = r.choice(["noSuchOperation", "legacyExport", "u.createThing"])
        else:
            s.update(self.step_ref(op))
        if self.bad_source and r.random() < 0.3:
            s.pop("operationPath", None)
            s["operationId"] = "$sourceDescriptions.undeclared." + (op[0] or "x")
        if r.random() < 0.3:
            s["description"] = "Step " + str(sid)
        params = []
        names = op[3] + [r.choice(WORDS) + "Id", "page", "q"]
        for _ in range(r.randint(0, 3)):
            p = {"name": r.choice(names), "in": r.choice(["path", "query", "header", "cookie", None]),
                 "value": self.value(wid, prior, all_wfs)}
            if p["in"] is None:
                del p["in"]
            if r.random() < 0.05:
                p = {"reference": "$components.parameters.page", "value": self.value(wid, prior, all_wfs)}
            params.append(p)
        if params:
            s["parameters"] = params
        if r.random() < 0.35:
            body = {"contentType": "application/json", "payload": self.payload(wid, prior, all_wfs)}
            if r.random() < 0.2:
                body["replacements"] = [{"target": "/id", "value": self.value(wid, prior, all_wfs)}]
            s["requestBody"] = body
        if r.random() < 0.5:
            s["successCriteria"] = [{"condition": "$statusCode == 200"}]
            if prior and r.random() < 0.3:
                s["successCriteria"].append({"condition": self.reference(wid, prior, all_wfs).__str__() + " != null"})
        if r.random() < 0.15 and prior:
            s["onSuccess"] = [{"name": "again", "type": "goto", "stepId": r.choice(prior)[0]}]
        if r.random() < 0.1:
            s["onFailure"] = [{"name": "retry", "type": "retry", "retryAfter": 1, "retryLimit": 2}]
        outs = {}
        for _ in range(r.choice([0, 1, 1, 2, 3])):
            outs[r.choice(["id", "userId", "token", "location", "code", "items", "first", "etag.v"])] = self.output_expr(op)
        if outs:
            s["outputs"] = outs
        return s, {k: v for k, v in outs.items()}

    def document(self):
        r = self.r
        doc = {"arazzo": r.choice(["1.0.0", "1.0.1"]),
               "info": {"title": "Fuzz workflows", "version": "1.0.0"},
               "sourceDescriptions": [
                   {"name": n, "url": r.choice(["./" + n + ".json", "https://example.com/" + n + ".yaml"]),
                    "type": "openapi"} for n in self.sources]}
        wfs = []
        done = []
        wf_ids = []
        for wi in range(r.randint(1, 4)):
            wid = r.choice(["onboard", "checkout", "sync", "cleanup", "report"]) + ("-" + str(wi) if r.random() < 0.7 else "")
            wf = {}
            if r.random() < 0.93:
                wf["workflowId"] = wid
            else:
                wid = "unknown"
            if r.random() < 0.4:
                wf["summary"] = "Workflow " + wid
            if r.random() < 0.3:
                wf["inputs"] = {"type": "object", "properties": {"token": {"type": "string"}}}
            steps = []
            prior = []
            for si in range(r.randint(1, 6)):
                if r.random() < 0.04:
                    steps.append(r.choice(["not a step", 7]))
                    continue
                sid = r.choice(["s" + str(si), "step_" + str(si), "get-" + str(si), "s" + str(max(si - 1, 0))])
                if r.random() < 0.05:
                    sid = None
                op = r.choice(self.ops)
                s, outs = self.step(wid, sid, op, prior, done, wf_ids)
                steps.append(s)
                if sid is not None:
                    prior.append((sid, outs))
            # a later step may also be read by an earlier one
            if len(prior) >= 2 and r.random() < 0.3:
                first = next((s for s in steps if isinstance(s, dict)), None)
                if first is not None:
                    sid, outs = prior[-1]
                    out = next(iter(outs), "id")
                    first.setdefault("parameters", []).append(
                        {"name": "later", "in": "query", "value": "$steps." + sid + ".outputs." + out})
            wf["steps"] = steps
            if prior and r.random() < 0.4:
                sid, outs = r.choice(prior)
                wf["outputs"] = {"result": "$steps." + sid + ".outputs." + (next(iter(outs), "id"))}
            if wfs and r.random() < 0.2:
                wf["dependsOn"] = [wfs[0].get("workflowId", "unknown")]
            wfs.append(wf)
            done.append((wid, prior))
            wf_ids.append(wid)
        if len(wfs) >= 2 and r.random() < 0.08:
            wfs.append(json.loads(json.dumps(wfs[0])))
        doc["workflows"] = wfs
        return doc


def write_spec(out, seed, tag, spec, swagger):
    if seed % 7 == 6 and not swagger:
        spec = fuzz_specs.add_extras(spec, seed)
    if swagger:
        spec = fuzz_specs.to_swagger2(spec, seed)
    if seed % 8 == 5:
        import yaml
        with open(os.path.join(out, f"fz-{seed:04d}.{tag}.yaml"), "w") as f:
            yaml.safe_dump(spec, f, sort_keys=False, allow_unicode=True)
        return spec
    with open(os.path.join(out, f"fz-{seed:04d}.{tag}.json"), "w") as f:
        json.dump(spec, f, indent=1)
    return spec


def write_mcp(out, seed, spec):
    """The spec's operations as an MCP tools/list result (names: operationId, else
    `<method>_<path>`), for the tool-graph path; operations keep their ids for the steps."""
    tools, ops = [], []
    for oid, method, path, params, fields in operations(spec):
        name = oid or (method + "_" + path.strip("/").replace("/", "_").replace("{", "").replace("}", ""))
        props = {p: {"type": random.Random(seed + len(tools)).choice(["string", "integer", "number"])}
                 for p in params}
        schema = {"type": "object", "properties": props}
        if params:
            schema["required"] = params[:1]
        tools.append({"name": name, "description": method.upper() + " " + path, "inputSchema": schema})
        ops.append((name, method, path, params, fields))
    with open(os.path.join(out, f"fz-{seed:04d}.a.mcp.json"), "w") as f:
        json.dump({"serverInfo": {"name": "fuzz"}, "tools": tools}, f, indent=1)
    return ops


def write_graphql(out, seed):
    """A fuzz_graphql.py introspection result; its root fields as operations named as the
    GraphQL ingest names tools (`query_<field>`, `mutation_<field>`, …), all `post
    /graphql`, with their arguments as parameters and `data/<field>` as response fields."""
    import fuzz_graphql
    doc = fuzz_graphql.Gen(seed).build()
    with open(os.path.join(out, f"fz-{seed:04d}.a.graphql.json"), "w") as f:
        json.dump(doc, f, indent=1)
    schema = doc.get("data", doc).get("__schema", {})
    types = {t.get("name"): t for t in schema.get("types", []) if isinstance(t, dict)}
    ops = []
    for kind in ("query", "mutation", "subscription"):
        root = (schema.get(kind + "Type") or {}).get("name")
        for fld in (types.get(root) or {}).get("fields") or []:
            name = fld.get("name", "")
            params = [a.get("name") for a in fld.get("args") or [] if a.get("name")]
            ops.append((kind + "_" + name, "post", "/graphql", params, ["data/" + name, "data/" + name + "/id"]))
    return ops or [("query_none", "post", "/graphql", [], [])]


def main():
    out, first, end = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    import yaml
    for seed in range(first, end):
        if seed % 11 == 8:
            ops = write_graphql(out, seed)
        elif seed % 9 == 4:
            ops = write_mcp(out, seed, fuzz_specs.gen(seed))
        else:
            specs = [write_spec(out, seed, "a", fuzz_specs.gen(seed), seed % 3 == 1)]
            if seed % 4 == 3:
                specs.append(write_spec(out, seed, "b", fuzz_specs.gen(seed + 100000), False))
            ops = [o for s in specs for o in operations(s)]
        sources = ["api", "petsApi", "users-v2"][: 1 + seed % 3]
        g = Gen(seed, ops, sources)
        docs = [g.document()]
        if seed % 6 == 5:
            docs.append(g.document())
        for i, doc in enumerate(docs):
            stem = f"fz-{seed:04d}" + ("" if i == 0 else f".{i + 1}")
            if seed % 5 == 4 and i == 0:
                with open(os.path.join(out, stem + ".arazzo.json"), "w") as f:
                    json.dump(doc, f, indent=1)
            else:
                with open(os.path.join(out, stem + ".arazzo.yaml"), "w") as f:
                    yaml.safe_dump(doc, f, sort_keys=False, allow_unicode=True)
        if g.bad_source and "undeclared" in json.dumps(docs):
            open(os.path.join(out, f"fz-{seed:04d}.expect-error"), "w").write("undeclared source description\n")


if __name__ == "__main__":
    main()
