#!/usr/bin/env python3
"""Compare two tool graphs (reference vs toolscope build) and print difference counts.

usage: diff_build.py REFERENCE.json TOOLSCOPE.json [--label L] [--show N] [--paths]
Prints one summary line per aspect and a last line
  "<label>: tools missing/extra/different a/b/c (core d), edges missing/extra/different e/f/g, ..."
Timestamps (built_at, created_at) are ignored. Exit 0 iff tools, edges and nodes are identical.
"""
import json, re, sys
from collections import Counter

TS_KEYS = {"built_at", "created_at"}


def strip_ts(v):
    if isinstance(v, dict):
        return {k: strip_ts(x) for k, x in v.items() if k not in TS_KEYS}
    if isinstance(v, list):
        return [strip_ts(x) for x in v]
    return v


def first_diffs(a, b, path="", out=None, limit=50):
    if out is None:
        out = []
    if len(out) >= limit:
        return out
    if type(a) != type(b) and not (isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool) and not isinstance(b, bool)):
        out.append((path, "type"))
    elif isinstance(a, dict):
        if list(a) != list(b):
            if set(a) != set(b):
                for k in a:
                    if k not in b:
                        out.append((path + "." + k, "missing"))
                for k in b:
                    if k not in a:
                        out.append((path + "." + k, "extra"))
            else:
                out.append((path, "key order"))
        for k in a:
            if k in b:
                first_diffs(a[k], b[k], path + "." + k, out, limit)
    elif isinstance(a, list):
        if len(a) != len(b):
            out.append((path, "length"))
        for x, y in zip(a, b):
            first_diffs(x, y, path + "[]", out, limit)
    elif a != b:
        out.append((path, "value"))
    return out


def main():
    args = sys.argv[1:]
    label = args[args.index("--label") + 1] if "--label" in args else "graph"
    show = int(args[args.index("--show") + 1]) if "--show" in args else 0
    ref = json.load(open(args[0], encoding="utf-8"))
    mine = json.load(open(args[1], encoding="utf-8"))
    rt, mt = ref.get("tools", {}), mine.get("tools", {})
    missing = [k for k in rt if k not in mt]
    extra = [k for k in mt if k not in rt]
    core_keys = ["name", "description", "parameters", "tags", "domain", "annotations"]
    diff_full = diff_core = 0
    paths = Counter()
    examples = {}
    for k in rt:
        if k not in mt:
            continue
        a, b = rt[k], mt[k]
        if a != b or list(a) != list(b) or json.dumps(a) != json.dumps(b):
            diff_full += 1
            if any(json.dumps(a.get(c)) != json.dumps(b.get(c)) for c in core_keys):
                diff_core += 1
            for p, why in first_diffs(a, b):
                key = (re.sub(r"\[\]", "[]", p), why)
                paths[key] += 1
                examples.setdefault(key, k)
    order_same = list(rt) == [k for k in mt if k in rt]
    # edges
    def edges(g):
        out = {}
        order = []
        for e in g.get("graph", {}).get("edges", []):
            key = (e["source"], e["target"])
            out[key] = {k: v for k, v in e.items() if k not in ("source", "target")}
            order.append(key)
        return out, order
    re_, ro = edges(ref)
    me_, mo = edges(mine)
    e_missing = [k for k in re_ if k not in me_]
    e_extra = [k for k in me_ if k not in re_]
    attr_diff = Counter()
    e_diff = 0
    e_diff_ex = []
    for k in re_:
        if k in me_ and json.dumps(re_[k]) != json.dumps(me_[k]):
            e_diff += 1
            e_diff_ex.append(k)
            a, b = re_[k], me_[k]
            for att in set(a) | set(b):
                if json.dumps(a.get(att)) != json.dumps(b.get(att)):
                    attr_diff[att] += 1
            if list(a) != list(b) and set(a) == set(b):
                attr_diff["(key order)"] += 1
    edge_order_same = ro == mo
    rn = [n["id"] for n in ref.get("graph", {}).get("nodes", [])]
    mn = [n["id"] for n in mine.get("graph", {}).get("nodes", [])]
    rnodes = {n["id"]: n for n in ref.get("graph", {}).get("nodes", [])}
    mnodes = {n["id"]: n for n in mine.get("graph", {}).get("nodes", [])}
    node_diff = sum(1 for k in rnodes if k in mnodes and json.dumps(rnodes[k]) != json.dumps(mnodes[k]))
    # other sections
    sect = []
    for k in ref:
        if k in ("tools", "graph"):
            continue
        if k not in mine:
            sect.append(k + "(missing)")
        elif json.dumps(strip_ts(ref[k])) != json.dumps(strip_ts(mine[k])):
            sect.append(k)
    for k in mine:
        if k not in ref:
            sect.append(k + "(extra)")
    print(f"  tools: {len(rt)} ref / {len(mt)} toolscope; missing {len(missing)} extra {len(extra)} "
          f"different {diff_full} (core fields {diff_core}); order {'same' if order_same else 'DIFFERENT'}")
    if show:
        for k in missing[:show]:
            print("    missing tool", k)
        for k in extra[:show]:
            print("    extra tool", k)
        for (p, why), n in paths.most_common(show):
            print(f"    {n:5} {why:9} {p}   e.g. {examples[(p, why)]}")
    print(f"  edges: {len(re_)} ref / {len(me_)} toolscope; missing {len(e_missing)} extra {len(e_extra)} "
          f"different {e_diff} {dict(attr_diff)}; order {'same' if edge_order_same else 'DIFFERENT'}")
    if show:
        for k in e_missing[:show]:
            print("    missing edge", k, re_[k].get("relation"), re_[k].get("evidence", "")[:100])
        for k in e_extra[:show]:
            print("    extra edge", k, me_[k].get("relation"), me_[k].get("evidence", "")[:100])
        for k in e_diff_ex[:show]:
            print("    diff edge", k, "\n      ref ", json.dumps(re_[k])[:300], "\n      mine", json.dumps(me_[k])[:300])
    print(f"  nodes: {len(rn)} ref / {len(mn)} toolscope; order {'same' if rn == mn else 'DIFFERENT'}; attrs different {node_diff}")
    print(f"  other sections different: {', '.join(sect) if sect else 'none'}")
    ok = not missing and not extra and diff_full == 0 and not e_missing and not e_extra and e_diff == 0 and rn == mn and node_diff == 0
    print(f"{label}: tools missing/extra/different {len(missing)}/{len(extra)}/{diff_full} (core {diff_core}), "
          f"edges missing/extra/different {len(e_missing)}/{len(e_extra)}/{e_diff}, "
          f"edge order {'same' if edge_order_same else 'different'}, sections different {len(sect)}"
          f" -> {'IDENTICAL' if ok and not sect else ('GRAPH IDENTICAL' if ok else 'DIFFERENT')}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
