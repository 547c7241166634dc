#!/usr/bin/env python3
"""Like ../shared/tools/golden-compare.py, but ignoring the `tool` object inside each
retrieval row (the full stored ToolSchema, which carries every metadata byte). What is left
is the ranking, scores, evidence, subgraph text and the selector's decision.

usage: golden_ranking_compare.py EXPECTED.jsonl ACTUAL.jsonl [--label L]
"""
import json, sys


def strip(v):
    if isinstance(v, dict):
        return {k: strip(x) for k, x in v.items() if k != "tool"}
    if isinstance(v, list):
        return [strip(x) for x in v]
    return v


def main():
    exp = [json.loads(l) for l in open(sys.argv[1], encoding="utf-8") if l.strip()]
    act = {}
    for l in open(sys.argv[2], encoding="utf-8"):
        if l.strip():
            a = json.loads(l)
            act[a.get("id")] = a
    label = sys.argv[sys.argv.index("--label") + 1] if "--label" in sys.argv else sys.argv[1]
    same = 0
    shown = 0
    for e in exp:
        a = act.get(e["id"])
        want = strip(e["expected"])
        got = strip({"retrieval": a.get("retrieval"), "selection": a.get("selection")}) if a else None
        if got == want:
            same += 1
        elif shown < 3:
            shown += 1
            # first differing top-level area
            for k in ("retrieval", "selection"):
                if got is None or got.get(k) != want.get(k):
                    w, g = want.get(k), (got or {}).get(k)
                    if isinstance(w, dict) and isinstance(g, dict):
                        keys = [x for x in w if w.get(x) != g.get(x)]
                        print(f"  {e['id']}: {k} differs in {keys[:5]}")
                    else:
                        print(f"  {e['id']}: {k} differs")
                    break
    print(f"{label}: {same}/{len(exp)} identical without tool objects")
    return 0 if same == len(exp) else 1


if __name__ == "__main__":
    sys.exit(main())
