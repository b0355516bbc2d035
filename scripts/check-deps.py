#!/usr/bin/env python3
"""Check the crate graph against the documented dependency rules (ARCHITECTURE.md).

Reads `cargo metadata --format-version 1` (run here, or a saved file with --metadata) and fails
when a package can reach a package it must not reach through normal or build dependencies.
Dev-dependencies are ignored: tests and benchmarks may script a mock from gold, the library may not.

Rules are `FROM[,FROM...]:TO` (package names); the defaults below are the ones CI enforces.
Extra rules may be given with --forbid (repeatable), e.g. the documented direction
`--forbid anser-manifest:anser-indexer` (a lower layer never depends on a higher one).

Exit status: 0 when every rule holds, 1 when one is broken (each violation is printed with the
dependency path that breaks it), 2 on bad usage or unreadable metadata.
"""

import argparse
import json
import os
import subprocess
import sys

# The run path (agent, retriever, indexer, llm) never links the scorer's reference.
DEFAULT_RULES = [
    "anser-agent,anser-retriever,anser-indexer,anser-llm:anser-gold",
]


def parse_rule(text):
    sources, sep, target = text.partition(":")
    if not sep or not sources or not target:
        raise ValueError(f"rule {text!r}: expected FROM[,FROM...]:TO")
    return [s.strip() for s in sources.split(",") if s.strip()], target.strip()


def load_metadata(path):
    if path:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    out = subprocess.run(
        [os.environ.get("CARGO", "cargo"), "metadata", "--format-version", "1", "--locked"],
        check=True,
        capture_output=True,
        text=True,
    )
    return json.loads(out.stdout)


def graph(metadata):
    """name -> set of names it depends on (normal/build edges only), over the resolved graph."""
    names = {p["id"]: p["name"] for p in metadata["packages"]}
    edges = {}
    for node in metadata["resolve"]["nodes"]:
        deps = set()
        for dep in node.get("deps", []):
            kinds = [k.get("kind") for k in dep.get("dep_kinds", [])] or [None]
            if any(k != "dev" for k in kinds):
                deps.add(names[dep["pkg"]])
        edges.setdefault(names[node["id"]], set()).update(deps)
    return edges


def path_to(edges, start, target):
    """A dependency path from start to target, or None."""
    parent = {start: None}
    queue = [start]
    while queue:
        here = queue.pop(0)
        if here == target:
            path = []
            while here is not None:
                path.append(here)
                here = parent[here]
            return list(reversed(path))
        for nxt in sorted(edges.get(here, ())):
            if nxt not in parent:
                parent[nxt] = here
                queue.append(nxt)
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--metadata", help="saved `cargo metadata --format-version 1` output")
    ap.add_argument("--forbid", action="append", default=[], metavar="FROM[,FROM...]:TO")
    ap.add_argument("--no-defaults", action="store_true", help="check only the --forbid rules")
    args = ap.parse_args()
    try:
        rules = [parse_rule(r) for r in ([] if args.no_defaults else DEFAULT_RULES) + args.forbid]
    except ValueError as e:
        print(f"check-deps: {e}", file=sys.stderr)
        return 2
    try:
        edges = graph(load_metadata(args.metadata))
    except (OSError, ValueError, KeyError, subprocess.CalledProcessError) as e:
        print(f"check-deps: cannot read the crate graph: {e}", file=sys.stderr)
        return 2
    broken = 0
    for sources, target in rules:
        for source in sources:
            if source not in edges:
                print(f"check-deps: unknown package {source!r} in a rule; fix the rule", file=sys.stderr)
                return 2
            path = path_to(edges, source, target)
            if path:
                broken += 1
                print(f"check-deps: {source} must not depend on {target}: {' -> '.join(path)}", file=sys.stderr)
    if broken:
        return 1
    print(f"check-deps: {len(rules)} rule(s) hold")
    return 0


if __name__ == "__main__":
    sys.exit(main())
