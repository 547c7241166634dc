"""Random small OpenAPI 3.0 specs for differential testing of `toolscope build` against the
reference (see fuzz-vs-reference.sh): component schemas with refs, allOf/oneOf, enums, formats,
nullable; path/query/header/cookie parameters (object-valued ones too); JSON, form, multipart
and XML bodies with and without schemas; several response codes, envelopes and headers;
missing and duplicate operationIds, tags, deprecated operations, bearer security, servers.
The same seed always gives the same spec.

usage: fuzz_specs.py OUT_DIR FIRST_SEED END_SEED   (writes OUT_DIR/fz-<seed>.json)
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


if __name__ == "__main__":
    out = sys.argv[1]
    for seed in range(int(sys.argv[2]), int(sys.argv[3])):
        json.dump(gen(seed), open(f"{out}/fz-{seed:04d}.json", "w"), indent=1)
