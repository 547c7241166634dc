#!/usr/bin/env python3
"""The distinct non-empty queries of a golden case file (JSON Lines), whitespace collapsed,
comments (`#...`) left out, first 100 in file order, one per line.

usage: golden_queries.py CASES.jsonl OUT.txt
Used by bench-vs-reference.sh and make-symbol-order.sh, so both run the same query sets.
"""
import json
import sys


def main():
    cases, out_path = sys.argv[1], sys.argv[2]
    seen, out = set(), []
    for line in open(cases, encoding="utf-8"):
        q = " ".join((json.loads(line).get("query") or "").split())
        if q and not q.startswith("#") and q not in seen:
            seen.add(q)
            out.append(q)
    with open(out_path, "w", encoding="utf-8") as f:
        f.write("\n".join(out[:100]) + "\n")


if __name__ == "__main__":
    main()
