#!/usr/bin/env bash
# Regenerates link/symbol-order.txt: the functions the release binary runs when it loads a
# graph, ranks, selects and writes JSON, so the linker (build.rs) lays them out next to each
# other. A query then faults in ~1.5 MiB of code instead of ~4 MiB scattered over the binary:
# lower peak RSS and a faster cold load. The list is recorded with valgrind's callgrind over
# the embedded demo and, when ../shared/corpus/golden is present, every golden graph with its
# queries. Names carry hashes that change with the toolchain or Cargo.lock; a stale list only
# costs speed (`toolscope` still links and runs). Re-run after a toolchain or dependency
# update:   scripts/make-symbol-order.sh
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
command -v valgrind >/dev/null || { echo "make-symbol-order: valgrind is required" >&2; exit 2; }
(cd "$root" && cargo build --release --quiet)
bin="${CARGO_TARGET_DIR:-$root/target}/release/toolscope"
golden="${GOLDEN_DIR:-$root/../shared/corpus/golden}"
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT

# cg NAME CMD... -> $tmp/NAME.cg; a failed run is noted and stops the script after the wait
cg() {
    valgrind --tool=callgrind --demangle=no --callgrind-out-file="$tmp/$1.cg" "${@:2}" \
        >/dev/null 2>"$tmp/$1.log" || echo "$1" >> "$tmp/failed"
}

gunzip -c "$root/assets/demo/commerce-backoffice.collection.json.gz" > "$tmp/demo.json"
cg demo "$bin" bench "$tmp/demo.json" --queries "$root/assets/demo/queries.txt" --select &
cg demo-query "$bin" query demo "refund an order" --select --json &
wait
if [ -d "$golden/graphs" ]; then
    for g in "$golden"/graphs/*.json; do
        n="$(basename "$g" .json)"
        [ -f "$golden/cases/$n.jsonl" ] || continue
        python3 "$root/scripts/golden_queries.py" "$golden/cases/$n.jsonl" "$tmp/$n.q"
        cg "golden-$n" "$bin" bench "$g" --queries "$tmp/$n.q" --select &
        cg "batch-$n" "$bin" query "$g" --batch "$golden/cases/$n.jsonl" &
        wait
    done
else
    echo "make-symbol-order: $golden not found; recording the demo only" >&2
fi

if [ -s "$tmp/failed" ]; then
    echo "make-symbol-order: failed runs: $(tr '\n' ' ' < "$tmp/failed")(nothing written)" >&2
    exit 1
fi

python3 - "$bin" "$root/link/symbol-order.txt" "$root/Cargo.lock" "$tmp"/*.cg <<'PY'
import re, subprocess, sys
binary, out, lock, profiles = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
ran = set()
for f in profiles:
    for line in open(f, encoding="utf-8", errors="replace"):
        m = re.match(r"^c?fn=\(\d+\) (.+)$", line)
        if m:
            ran.add(m.group(1).strip())
syms = {}
nm = subprocess.run(["nm", "-S", "--defined-only", binary], capture_output=True, text=True, check=True)
for line in nm.stdout.splitlines():
    p = line.split()
    if len(p) == 4 and p[2] in "tTwW":
        syms[p[3]] = (int(p[0], 16), int(p[1], 16))
hot = sorted((n for n in ran if n in syms), key=lambda n: syms[n][0])
# the first line says what the names were recorded with; build.rs compares it with the
# toolchain and Cargo.lock it builds with and warns when they differ (the list is stale)
release = next(l for l in subprocess.run(["rustc", "-vV"], capture_output=True, text=True,
                                         check=True).stdout.splitlines() if l.startswith("release: "))
h = 0xcbf29ce484222325
for b in open(lock, "rb").read():
    h = ((h ^ b) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
with open(out, "w", encoding="utf-8") as f:
    f.write(f"# recorded with rustc {release[9:]}, Cargo.lock fnv1a64 {h:016x}\n")
    f.write("".join(n + "\n" for n in hot))
kib = sum(syms[n][1] for n in hot) // 1024
print(f"make-symbol-order: {len(hot)} functions ({kib} KiB of code) -> {out}", file=sys.stderr)
PY
