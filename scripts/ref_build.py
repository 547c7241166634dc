#!/usr/bin/env python3
"""Build a graph with the reference (graph-tool-call 0.47.0) the way users do.

usage: ref_build.py KIND OUT SOURCE... [--server NAME ...]
  KIND openapi : build_openapi_collection_artifact(SOURCE or [SOURCES]) written like the CLI
                 build-openapi-collection (json.dumps(indent=2, ensure_ascii=False, default=str))
  KIND mcp     : ToolGraph().ingest_mcp_tools(tools, server_name=NAME) per SOURCE; ToolGraph.save
                 (SOURCE: a JSON file with "tools" or a bare list; NAME defaults to the file's "name"
                 or its stem)
  KIND functions: ToolGraph().add_tools(list); ToolGraph.save
Prints one JSON line {"build_s", "peak_rss_mib"} on stdout.
"""
import json, os, resource, sys, time


def main():
    kind, out, *rest = sys.argv[1:]
    servers = []
    sources = []
    i = 0
    while i < len(rest):
        if rest[i] == "--server":
            servers.append(rest[i + 1]); i += 2
        else:
            sources.append(rest[i]); i += 1
    t0 = time.perf_counter()
    if kind == "openapi":
        from graph_tool_call.graphify import build_openapi_collection_artifact
        src = sources[0] if len(sources) == 1 else sources
        artifact = build_openapi_collection_artifact(src)
        build_s = time.perf_counter() - t0
        with open(out, "w", encoding="utf-8") as f:
            f.write(json.dumps(artifact, indent=2, ensure_ascii=False, default=str))
    else:
        from graph_tool_call import ToolGraph
        tg = ToolGraph()
        for n, path in enumerate(sources):
            with open(path, encoding="utf-8") as f:
                data = json.load(f)
            if kind == "mcp":
                tools = data["tools"] if isinstance(data, dict) else data
                name = servers[n] if n < len(servers) else (
                    data.get("name") if isinstance(data, dict) and data.get("name")
                    else os.path.splitext(os.path.basename(path))[0])
                tg.ingest_mcp_tools(tools, server_name=name)
            else:
                tg.add_tools(data)
        build_s = time.perf_counter() - t0
        tg.save(out)
    total_s = time.perf_counter() - t0
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"build_s": round(build_s, 3), "total_s": round(total_s, 3),
                      "peak_rss_mib": round(rss, 1)}))


if __name__ == "__main__":
    main()
