"""Random small GraphQL introspection results for differential fuzzing of `toolscope build`.

usage: fuzz_graphql.py OUT_DIR FIRST_SEED END_SEED

Writes OUT_DIR/fz-<seed>.graphql.json for every seed in [FIRST_SEED, END_SEED), and for
two seeds in three a sidecar fz-<seed>.graphql.endpoint with the endpoint URL to pass
(`--endpoint` / the reference's `endpoint_url`): a valid one, or one the reference refuses
(a sensitive query key, userinfo, a fragment, another scheme). Each schema has object,
interface and union output types, enums (with deprecated values), custom scalars, nested
and recursive input objects, list and non-null wrappers in every combination up to three
deep, default values, arguments that are required, optional or required-with-default,
deprecated root and nested fields, missing, empty and padded descriptions, a query root
(sometimes renamed), often a mutation and sometimes a subscription root; now and then a
root field with an invalid name or type reference, a type the document never defines, or
an object with more fields than the reference selects. Half the documents are wrapped in
`{"data": …}`. Deterministic per seed (Python's `random.Random(seed)`).
"""
import json
import os
import random
import sys

SCALARS = ["String", "Int", "Float", "Boolean", "ID"]
WORDS = ["user", "order", "item", "account", "invoice", "team", "project", "event",
         "ticket", "payment", "review", "comment", "tag", "shipment", "refund", "member"]


def T(kind, name=None, of=None):
    return {"kind": kind, "name": name, "ofType": of}


def wrap(rng, t, allow=True):
    """Random list / non-null wrappers around a named type reference."""
    if not allow:
        return t
    for _ in range(rng.choice([0, 0, 1, 1, 2, 3])):
        t = T("NON_NULL", None, t) if rng.random() < 0.5 and t["kind"] != "NON_NULL" else T("LIST", None, t)
    return t


def desc(rng, text):
    r = rng.random()
    if r < 0.35:
        return None
    if r < 0.45:
        return rng.choice(["", "   ", "\n"])
    if r < 0.55:
        return f"  {text}  \n "
    return text


class Gen:
    def __init__(self, seed):
        self.rng = random.Random(seed)
        self.n = 0

    def name(self, style=None):
        rng = self.rng
        self.n += 1
        a, b = rng.choice(WORDS), rng.choice(WORDS)
        style = style or rng.choice(["camel", "camel", "snake", "plain"])
        if style == "camel":
            return f"{a}{b.capitalize()}{self.n}"
        if style == "snake":
            return f"{a}_{b}_{self.n}"
        return f"{a}{self.n}"

    def type_name(self):
        self.n += 1
        return self.rng.choice(WORDS).capitalize() + self.rng.choice(["", "Node", "Info", "Data"]) + str(self.n)

    def build(self):
        rng = self.rng
        self.enums = [self.type_name() + "Kind" for _ in range(rng.randint(1, 3))]
        self.scalars = [rng.choice(["DateTime", "JSON", "URL", "Money"]) + str(i) for i in range(rng.randint(0, 2))]
        self.inputs = [self.type_name() + "Input" for _ in range(rng.randint(1, 4))]
        self.objects = [self.type_name() for _ in range(rng.randint(2, 6))]
        self.interfaces = [self.type_name() + "Iface" for _ in range(rng.randint(0, 2))]
        self.unions = [self.type_name() + "Union" for _ in range(rng.randint(0, 2))]
        types = []
        for e in self.enums:
            vals = [{"name": f"{e.upper()}_{i}", "description": desc(rng, "value"),
                     "isDeprecated": rng.random() < 0.15, "deprecationReason": None}
                    for i in range(rng.randint(1, 4))]
            types.append({"kind": "ENUM", "name": e, "description": desc(rng, "an enum"),
                          "fields": None, "inputFields": None, "interfaces": None,
                          "enumValues": vals, "possibleTypes": None})
        for s in self.scalars:
            types.append({"kind": "SCALAR", "name": s, "description": desc(rng, "custom")})
        for i in self.inputs:
            fields = [self.input_value(nested=True) for _ in range(rng.randint(0, 4))]
            types.append({"kind": "INPUT_OBJECT", "name": i, "description": desc(rng, "input"),
                          "fields": None, "inputFields": fields, "interfaces": None,
                          "enumValues": None, "possibleTypes": None})
        for o in self.objects:
            n = rng.randint(1, 6) if rng.random() > 0.05 else rng.randint(25, 30)
            ifaces = [T("INTERFACE", x) for x in self.interfaces if rng.random() < 0.4]
            types.append({"kind": "OBJECT", "name": o, "description": desc(rng, "object"),
                          "fields": [self.field() for _ in range(n)], "inputFields": None,
                          "interfaces": ifaces, "enumValues": None, "possibleTypes": None})
        for x in self.interfaces:
            types.append({"kind": "INTERFACE", "name": x, "description": desc(rng, "iface"),
                          "fields": [self.field() for _ in range(rng.randint(1, 3))],
                          "inputFields": None, "interfaces": [], "enumValues": None,
                          "possibleTypes": [T("OBJECT", o) for o in rng.sample(self.objects, min(2, len(self.objects)))]})
        for u in self.unions:
            types.append({"kind": "UNION", "name": u, "description": None, "fields": None,
                          "inputFields": None, "interfaces": None, "enumValues": None,
                          "possibleTypes": [T("OBJECT", o) for o in rng.sample(self.objects, min(rng.randint(1, 3), len(self.objects)))]})
        roots = {}
        for op, p in [("query", 1.0), ("mutation", 0.6), ("subscription", 0.3)]:
            if rng.random() >= p:
                continue
            rname = {"query": "Query", "mutation": "Mutation", "subscription": "Subscription"}[op]
            if rng.random() < 0.2:
                rname = "Root" + rname
            fields = [self.field(root=True) for _ in range(rng.randint(1, 6))]
            if rng.random() < 0.08:
                fields.append(self.field(root=True) | {"name": "bad-name"})
            if rng.random() < 0.05:
                fields.append(self.field(root=True) | {"type": {"kind": "OBJECT", "name": None, "ofType": None}})
            types.append({"kind": "OBJECT", "name": rname, "description": desc(rng, "root"),
                          "fields": fields, "inputFields": None, "interfaces": [],
                          "enumValues": None, "possibleTypes": None})
            roots[op] = rname
        for s in SCALARS:
            types.append({"kind": "SCALAR", "name": s, "description": None})
        rng.shuffle(types)
        schema = {"queryType": {"name": roots["query"]},
                  "mutationType": {"name": roots["mutation"]} if "mutation" in roots else None,
                  "subscriptionType": {"name": roots["subscription"]} if "subscription" in roots else None,
                  "types": types, "directives": []}
        return {"data": {"__schema": schema}} if rng.random() < 0.5 else {"__schema": schema}

    def named_input(self):
        rng = self.rng
        r = rng.random()
        if r < 0.45:
            return T("SCALAR", rng.choice(SCALARS + self.scalars))
        if r < 0.65:
            return T("ENUM", rng.choice(self.enums))
        if r < 0.98:
            return T("INPUT_OBJECT", rng.choice(self.inputs))
        return T("INPUT_OBJECT", "MissingInput")

    def default_for(self, t):
        rng = self.rng
        if rng.random() < 0.7:
            return None
        base = t
        while base["kind"] in ("NON_NULL", "LIST"):
            base = base["ofType"]
        return {"SCALAR": rng.choice(['"x"', "1", "2.5", "true", "null"]),
                "ENUM": (self.enums and f"{base['name'].upper()}_0") or "A",
                "INPUT_OBJECT": rng.choice(["{}", "{a: 1}"])}.get(base["kind"], "null")

    def input_value(self, nested=False):
        rng = self.rng
        t = wrap(rng, self.named_input())
        v = {"name": self.name(), "description": desc(rng, "an argument"), "type": t,
             "defaultValue": self.default_for(t)}
        if rng.random() < 0.1:
            v["isDeprecated"] = True
            v["deprecationReason"] = "old"
        return v

    def named_output(self):
        rng = self.rng
        r = rng.random()
        if r < 0.45:
            return T("SCALAR", rng.choice(SCALARS + self.scalars))
        if r < 0.55:
            return T("ENUM", rng.choice(self.enums))
        if r < 0.85:
            return T("OBJECT", rng.choice(self.objects))
        if r < 0.92 and self.interfaces:
            return T("INTERFACE", rng.choice(self.interfaces))
        if self.unions:
            return T("UNION", rng.choice(self.unions))
        return T("OBJECT", "MissingObject") if rng.random() < 0.3 else T("OBJECT", rng.choice(self.objects))

    def field(self, root=False):
        rng = self.rng
        nargs = rng.choice([0, 0, 1, 2, 3, 4]) if root else rng.choice([0, 0, 0, 1])
        dep = rng.random() < (0.15 if root else 0.1)
        return {"name": self.name(), "description": desc(rng, "a field"),
                "args": [self.input_value() for _ in range(nargs)],
                "type": wrap(rng, self.named_output()), "isDeprecated": dep,
                "deprecationReason": rng.choice([None, "use another"]) if dep else None}


ENDPOINTS_OK = ["https://api.example.com/graphql", "https://h.example.com", "http://localhost:4000/gql?v=2"]
ENDPOINTS_BAD = ["https://api.example.com/graphql?access_token=x", "https://u:p@h.example.com/g",
                 "https://h.example.com/g#frag", "ftp://h.example.com/g", "graphql"]


def main():
    out, first, end = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    os.makedirs(out, exist_ok=True)
    for seed in range(first, end):
        g = Gen(seed)
        doc = g.build()
        path = os.path.join(out, f"fz-{seed}.graphql.json")
        with open(path, "w") as f:
            json.dump(doc, f, indent=1)
        ep = None
        if seed % 3 == 1:
            ep = g.rng.choice(ENDPOINTS_OK)
        elif seed % 3 == 2:
            ep = g.rng.choice(ENDPOINTS_BAD)
        if ep is not None:
            with open(path[: -len(".json")] + ".endpoint", "w") as f:
                f.write(ep)


if __name__ == "__main__":
    main()
