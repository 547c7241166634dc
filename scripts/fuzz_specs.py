"""Random small OpenAPI 3.0 specs for differential testing of `toolscope build` against the
reference (see fuzz-vs-reference.sh): component schemas with refs, allOf/oneOf, enums, formats,
nullable; path/query/header/cookie parameters (object-valued ones too); JSON, form, multipart
and XML bodies with and without schemas; several response codes, envelopes and headers;
missing and duplicate operationIds, tags, deprecated operations, bearer security, servers.
The same seed always gives the same spec.

usage: fuzz_specs.py OUT_DIR FIRST_SEED END_SEED [--mixed] [--extras]
       (writes OUT_DIR/fz-<seed>.json; --mixed: every third spec as Swagger 2.0, every fifth as
       YAML; --extras: operationRef links, callbacks, component responses/parameters/examples,
       path-item parameters and webhooks, see add_extras)
"""
import json, random, sys

WORDS = ["user", "order", "item", "cart", "invoice", "payment", "shipment", "address", "coupon",
         "review", "product", "member", "refund", "ticket", "store", "pet", "tag", "team", "repo", "file"]
VERBS = ["list", "get", "create", "update", "delete", "search", "find", "cancel", "approve", "export"]
FORMATS = [None, None, "date-time", "email", "uuid", "uri", "int64"]


def cap(s):
    return s[:1].upper() + s[1:]


def gen_schema(r, comps, depth=0):
    k = r.random()
    if depth < 2 and k < 0.25:
        props = {}
        for _ in range(r.randint(1, 4)):
            w = r.choice(WORDS)
            name = r.choice([w + "Id", w + "_id", "name", "status", "total", w, "created_at", "id", "email", "count"])
            props[name] = gen_schema(r, comps, depth + 1)
        o = {"type": "object", "properties": props}
        if r.random() < 0.5:
            o["required"] = r.sample(list(props), r.randint(1, len(props)))
        return o
    if depth < 2 and k < 0.35:
        return {"type": "array", "items": gen_schema(r, comps, depth + 1)}
    if comps and k < 0.5:
        return {"$ref": "#/components/schemas/" + r.choice(list(comps))}
    if depth < 2 and k < 0.55 and comps:
        return {"allOf": [{"$ref": "#/components/schemas/" + r.choice(list(comps))},
                          {"type": "object", "properties": {"extra": {"type": "string"}}}]}
    if depth < 2 and k < 0.6 and len(comps) >= 2:
        a, b = r.sample(list(comps), 2)
        return {"oneOf": [{"$ref": "#/components/schemas/" + a}, {"$ref": "#/components/schemas/" + b}]}
    t = r.choice(["string", "string", "integer", "number", "boolean"])
    s = {"type": t}
    f = r.choice(FORMATS)
    if f and t == "string":
        s["format"] = f
    if t == "string" and r.random() < 0.2:
        s["enum"] = r.sample(["active", "inactive", "pending", "done", "open"], r.randint(1, 3))
    if r.random() < 0.1:
        s["nullable"] = True
    if r.random() < 0.2:
        s["description"] = "The " + r.choice(WORDS) + " value"
    return s


def gen(seed):
    r = random.Random(seed)
    comps = {}
    for _ in range(r.randint(0, 4)):
        w = cap(r.choice(WORDS))
        comps[w] = None
    for name in list(comps):
        others = {k: v for k, v in comps.items() if k != name and v is not None}
        props = {}
        for _ in range(r.randint(1, 5)):
            w = r.choice(WORDS)
            pn = r.choice([w + "Id", "id", "name", "status", w, "createdAt", "amount"])
            props[pn] = gen_schema(r, others, 1)
        comps[name] = {"type": "object", "properties": props}
        if r.random() < 0.5:
            comps[name]["required"] = r.sample(list(props), r.randint(1, len(props)))
    paths = {}
    used_ids = set()
    for _ in range(r.randint(2, 9)):
        res = r.choice(WORDS)
        base = "/" + res + "s"
        if r.random() < 0.3:
            base = "/" + r.choice(WORDS) + "s/{" + r.choice(WORDS) + "Id}" + base
        single = r.random() < 0.5
        path = base + ("/{" + res + "Id}" if single else "")
        if r.random() < 0.1:
            path += "/" + r.choice(["status", "items", "export", "cancel"])
        item = paths.setdefault(path, {})
        method = r.choice(["get", "get", "post", "put", "patch", "delete"])
        if method in item:
            continue
        op = {"responses": {}}
        verb = r.choice(VERBS)
        oid = verb + cap(res) + ("s" if not single and verb == "list" else "")
        if r.random() < 0.85:
            if oid in used_ids and r.random() < 0.7:
                oid += str(r.randint(2, 9))
            used_ids.add(oid)
            op["operationId"] = oid
        if r.random() < 0.7:
            op["summary"] = cap(verb) + " " + res + ("s" if not single else "")
        if r.random() < 0.4:
            op["description"] = "Operation on the " + res + " collection. " + r.choice(["", "Returns a page.", "Requires auth."])
        if r.random() < 0.5:
            op["tags"] = [cap(res)]
        if r.random() < 0.08:
            op["deprecated"] = True
        params = []
        for seg in path.split("/"):
            if seg.startswith("{"):
                params.append({"name": seg[1:-1], "in": "path", "required": True, "schema": {"type": "string"}})
        for _ in range(r.randint(0, 3)):
            loc = r.choice(["query", "query", "header", "cookie"])
            pn = r.choice(["page", "limit", "cursor", "status", "q", "sort", r.choice(WORDS) + "Id", "X-Request-Id", "Authorization"])
            if any(p["name"] == pn and p["in"] == loc for p in params):
                continue
            p = {"name": pn, "in": loc, "schema": gen_schema(r, comps, 2)}
            if r.random() < 0.3:
                p["required"] = True
            if r.random() < 0.2:
                p["description"] = "Filter by " + pn
            params.append(p)
        if params:
            op["parameters"] = params
        if method in ("post", "put", "patch") and r.random() < 0.85:
            ct = r.choice(["application/json", "application/json", "application/x-www-form-urlencoded", "multipart/form-data", "application/xml"])
            media = {}
            if r.random() < 0.9:
                media["schema"] = gen_schema(r, comps, 0) if r.random() < 0.6 or not comps else {"$ref": "#/components/schemas/" + r.choice(list(comps))}
            if r.random() < 0.2:
                media["example"] = {"name": "x", r.choice(WORDS) + "Id": "abc"}
            op["requestBody"] = {"content": {ct: media}}
            if r.random() < 0.6:
                op["requestBody"]["required"] = True
        codes = r.sample(["200", "201", "204", "400", "404", "default"], r.randint(1, 3))
        for c in codes:
            resp = {"description": "resp " + c}
            if c != "204" and r.random() < 0.75:
                sch = gen_schema(r, comps, 0) if r.random() < 0.5 or not comps else {"$ref": "#/components/schemas/" + r.choice(list(comps))}
                if r.random() < 0.2:
                    sch = {"type": "object", "properties": {"data": sch, "meta": {"type": "object", "properties": {"total": {"type": "integer"}}}}}
                resp["content"] = {"application/json": {"schema": sch}}
            if r.random() < 0.1:
                resp["headers"] = {"X-Rate-Limit": {"schema": {"type": "integer"}}}
            op["responses"][c] = resp
        if r.random() < 0.15:
            op["security"] = [{"bearerAuth": []}]
        if r.random() < 0.15 and used_ids:
            ok = next((c for c in ("200", "201") if c in op["responses"]), None)
            if ok:
                target = r.choice(sorted(used_ids))
                op["responses"][ok]["links"] = {
                    "Next" + cap(target): {"operationId": target,
                                           "parameters": {r.choice(WORDS) + "Id": "$response.body#/id"}}}
        item[method] = op
    spec = {"openapi": "3.0.3", "info": {"title": "Fuzz " + str(seed), "version": "1.0.0"}, "paths": paths}
    if r.random() < 0.3:
        spec["servers"] = [{"url": "https://api.example.com/v1"}]
    c = {}
    if comps:
        c["schemas"] = comps
    if r.random() < 0.3 or any("security" in o for it in paths.values() for o in it.values()):
        c["securitySchemes"] = {"bearerAuth": {"type": "http", "scheme": "bearer"}}
        if r.random() < 0.3:
            spec["security"] = [{"bearerAuth": []}]
    if c:
        spec["components"] = c
    return spec


def ref2(v):
    """#/components/schemas/X -> #/definitions/X, everywhere."""
    if isinstance(v, dict):
        return {k: (x.replace("#/components/schemas/", "#/definitions/") if k == "$ref" and isinstance(x, str) else ref2(x))
                for k, x in v.items()}
    if isinstance(v, list):
        return [ref2(x) for x in v]
    return v


def to_swagger2(spec, seed):
    """The same API as a Swagger 2.0 document: definitions, body/formData parameters,
    response schemas, produces/consumes, securityDefinitions, host and basePath."""
    r = random.Random(seed * 7 + 1)
    out = {"swagger": "2.0", "info": spec["info"], "paths": {}}
    if r.random() < 0.5:
        out["host"] = "api.example.com"
        out["basePath"] = "/v2"
        out["schemes"] = ["https"]
    if r.random() < 0.5:
        out["produces"] = ["application/json"]
    comps = spec.get("components", {})
    if comps.get("schemas"):
        out["definitions"] = ref2(comps["schemas"])
    sec = {"bearerAuth": {"type": "apiKey", "in": "header", "name": "Authorization"}}
    if r.random() < 0.3:
        sec["basicAuth"] = {"type": "basic"}
    if r.random() < 0.3:
        sec["oauth"] = {"type": "oauth2", "flow": "application", "tokenUrl": "https://x/token",
                        "scopes": {"read": "read", "write": "write"}}
    if "securitySchemes" in comps:
        out["securityDefinitions"] = sec
    if "security" in spec:
        out["security"] = spec["security"]
    for path, item in spec["paths"].items():
        o2 = {}
        for m, op in item.items():
            op = ref2(op)
            n = {k: v for k, v in op.items() if k not in ("requestBody", "responses", "parameters")}
            params = []
            for p in op.get("parameters", []):
                q = {k: v for k, v in p.items() if k != "schema"}
                sch = p.get("schema", {"type": "string"})
                if sch.get("type") in ("object", "array") or "$ref" in sch or "allOf" in sch or "oneOf" in sch:
                    q["type"] = "string"
                else:
                    q.update({k: v for k, v in sch.items() if k in ("type", "format", "enum", "description")})
                params.append(q)
            rb = op.get("requestBody")
            if rb:
                ct, media = next(iter(rb["content"].items()))
                sch = media.get("schema")
                if ct in ("application/x-www-form-urlencoded", "multipart/form-data") and sch and sch.get("properties"):
                    n["consumes"] = [ct]
                    for k, v in sch["properties"].items():
                        f = {"name": k, "in": "formData", "type": v.get("type", "string") if v.get("type") in ("string", "integer", "number", "boolean") else "string"}
                        if k in sch.get("required", []):
                            f["required"] = True
                        params.append(f)
                else:
                    if ct != "application/json":
                        n["consumes"] = [ct]
                    b = {"name": "body", "in": "body", "schema": sch or {"type": "object"}}
                    if rb.get("required"):
                        b["required"] = True
                    params.append(b)
            if params:
                n["parameters"] = params
            resps = {}
            for c, resp in op.get("responses", {}).items():
                x = {"description": resp.get("description", "")}
                content = resp.get("content") or {}
                if content:
                    x["schema"] = next(iter(content.values())).get("schema", {"type": "object"})
                if resp.get("headers"):
                    x["headers"] = {h: {"type": "integer"} for h in resp["headers"]}
                resps[c] = x
            n["responses"] = resps
            o2[m] = n
        out["paths"][path] = o2
    return out


def add_extras(spec, seed):
    """The rarer OpenAPI 3 features, from a random stream of their own (the base spec of a
    seed does not change): links by operationRef (local, with a document prefix, escaped,
    unresolvable), link parameters from headers, the request and constants, link request
    bodies; callbacks; components/responses, components/parameters and components/examples
    by $ref; path-item parameters; response examples; webhooks (3.1)."""
    r = random.Random(seed * 13 + 5)
    ops = [(p, m, op) for p, it in spec["paths"].items() for m, op in it.items()]
    comps = spec.setdefault("components", {})

    def esc(p):
        return p.replace("~", "~0").replace("/", "~1")

    for path, method, op in ops:
        ok = next((c for c in ("200", "201") if c in op["responses"]), None)
        if ok and r.random() < 0.3:
            tp, tm, top = r.choice(ops)
            ref = "#/paths/" + esc(tp) + "/" + tm
            form = r.random()
            if form < 0.2:
                ref = "https://api.example.com/openapi.json" + ref
            elif form < 0.3:
                ref = "#/paths/" + esc("/nowhere/{x}") + "/get"
            params = {}
            for _ in range(r.randint(0, 3)):
                params[r.choice(WORDS) + "Id"] = r.choice([
                    "$response.body#/id", "$response.body#/data/0/id", "$response.header.X-Rate-Limit",
                    "$request.path.id", "$request.query.page", "$request.body#/name", "$url", "$method",
                    "$statusCode", "literal", 42, {"nested": True}, "$response.body", "$response.body#",
                    "$response.body#/", "$response.body#/data/0", "$response.body#/a~1b/c~0d",
                    "$request.body", "$request.body#/items/1/sku", "$request.header.X-Id",
                    "$request.cookie.sid", "{$response.body#/id}", "$response.header.", None, True])
            link = {"operationRef": ref}
            if params or r.random() < 0.2:
                link["parameters"] = params
            if r.random() < 0.3:
                link["requestBody"] = r.choice(["$response.body", "$response.body#/id", {"a": 1}])
            if r.random() < 0.3:
                link["description"] = "Follow to " + tm.upper() + " " + tp
            if r.random() < 0.2 and "operationId" in top:
                link["operationId"] = top["operationId"]
            op["responses"][ok].setdefault("links", {})["By" + cap(tm) + str(r.randint(1, 99))] = link
        if r.random() < 0.15:
            op["callbacks"] = {"on" + cap(r.choice(WORDS)): {"{$request.body#/callbackUrl}": {
                "post": {"operationId": "cb" + cap(r.choice(WORDS)) + str(r.randint(1, 9)),
                         "requestBody": {"content": {"application/json": {"schema": {
                             "type": "object", "properties": {"eventId": {"type": "string"}}}}}},
                         "responses": {"200": {"description": "ok"}}}}}}
        if ok and r.random() < 0.2:
            ex = {"value": {"id": r.randint(1, 999), "name": r.choice(WORDS),
                            "items": [{"sku": "a-1", "qty": 2}], "meta": None}}
            if r.random() < 0.5:
                comps.setdefault("examples", {})["Ex" + str(len(comps.get("examples", {})))] = ex
                ex = {"$ref": "#/components/examples/Ex" + str(len(comps["examples"]) - 1)}
            for media in (op["responses"][ok].get("content") or {}).values():
                media.setdefault("examples", {})["sample"] = ex
        if r.random() < 0.15:
            name = "Err" + str(len(comps.get("responses", {})))
            comps.setdefault("responses", {})[name] = {
                "description": "Problem", "content": {"application/json": {"schema": {
                    "type": "object", "properties": {"code": {"type": "integer"}, "message": {"type": "string"}}}}}}
            op["responses"]["4" + r.choice(["00", "04", "09", "22"])] = {"$ref": "#/components/responses/" + name}
        if r.random() < 0.15:
            name = "P" + str(len(comps.get("parameters", {})))
            comps.setdefault("parameters", {})[name] = {
                "name": r.choice(["page", "per_page", "traceId", "since"]), "in": "query",
                "schema": {"type": "integer" if r.random() < 0.5 else "string"}}
            op.setdefault("parameters", []).append({"$ref": "#/components/parameters/" + name})
    for path, item in spec["paths"].items():
        if r.random() < 0.15:
            item["parameters"] = [{"name": "X-Tenant", "in": "header", "required": r.random() < 0.5,
                                   "schema": {"type": "string"}}]
    if r.random() < 0.2:
        spec["openapi"] = "3.1.0"
        spec["webhooks"] = {"newThing": {"post": {"operationId": "hookNewThing", "requestBody": {
            "content": {"application/json": {"schema": {"type": "object"}}}},
            "responses": {"200": {"description": "ok"}}}}}
    if not comps:
        del spec["components"]
    return spec


if __name__ == "__main__":
    # OUT_DIR FIRST END [--mixed]: --mixed writes every third spec as Swagger 2.0 and every
    # fifth as YAML (needs PyYAML)
    out = sys.argv[1]
    mixed = "--mixed" in sys.argv[4:]
    extras = "--extras" in sys.argv[4:]
    for seed in range(int(sys.argv[2]), int(sys.argv[3])):
        spec = gen(seed)
        # the extras are OpenAPI 3 features: not for the specs written as Swagger 2.0
        if extras and not (mixed and seed % 3 == 1):
            spec = add_extras(spec, seed)
        if mixed and seed % 3 == 1:
            spec = to_swagger2(spec, seed)
        if mixed and seed % 5 == 2:
            import yaml
            with open(f"{out}/fz-{seed:04d}.yaml", "w") as f:
                yaml.safe_dump(spec, f, sort_keys=False, allow_unicode=True)
        else:
            json.dump(spec, open(f"{out}/fz-{seed:04d}.json", "w"), indent=1)
