#!/usr/bin/env python3
"""Check the crate graph against the documented dependency rules (ARCHITECTURE.md).

Reads `cargo metadata --format-version 1` (run here, or a saved file with --metadata) and fails
when a package can reach a package it must not reach through normal or build dependencies.
Dev-dependencies are ignored: tests and benchmarks may script a mock from gold, the library may not.

Rules are `FROM[,FROM...]:TO[,TO...]` (package names); the defaults below are the ones CI
enforces. Extra rules may be given with --forbid (repeatable), e.g. the documented direction
`--forbid anser-manifest:anser-indexer` (a lower layer never depends on a higher one).

Two kinds of rule:
- `--forbid` (DEFAULT_RULES): over the workspace's resolved graph, every feature any member
  enables switched on, so the rule holds for every build;
- `--forbid-default` (DEFAULT_BUILD_RULES): over the default-feature build of FROM alone
  (`cargo tree -p FROM -e normal,build`), for test-only code behind features (the mock server,
  the BERTScore encoder) that the binary enables but a library user does not get. With
  --metadata these need --tree-dir DIR holding `FROM.txt` files of
  `cargo tree -p FROM -e normal,build --prefix depth -f {p}` output; without it they are
  reported as not checked.

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
    # Reading run files never compiles the agent (polars, tantivy, ort): reports reads them
    # through anser-record and the evaluator.
    "anser-reports,anser-record:anser-agent",
    # The run-directory schema stays a leaf: no engine, no model runtime, no async or HTTP stack.
    "anser-record:anser-indexer,anser-retriever,anser-llm,anser-evaluator,polars,tantivy,ort,tokio,reqwest",
]

# Test-only code sits behind features that the binary turns on; default builds of the library
# crates do not link it.
DEFAULT_BUILD_RULES = [
    # The loopback mock server (feature `mock`).
    "anser-llm:axum",
    # The BERTScore encoder (feature `bertscore`).
    "anser-evaluator:anser-encoder,ort",
    # A reader of run directories gets neither engines nor model runtime nor an HTTP server.
    "anser-reports:polars,tantivy,ort,axum",
]


def parse_rule(text):
    """`FROM[,FROM...]:TO[,TO...]` -> [(FROM, TO), ...]."""
    sources, sep, targets = text.partition(":")
    split = lambda part: [x.strip() for x in part.split(",") if x.strip()]
    if not sep or not split(sources) or not split(targets):
        raise ValueError(f"rule {text!r}: expected FROM[,FROM...]:TO[,TO...]")
    return [(s, t) for s in split(sources) for t in split(targets)]


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


def tree_text(source, tree_dir):
    """`cargo tree -p SOURCE -e normal,build --prefix depth -f {p}` output (or DIR/SOURCE.txt)."""
    if tree_dir:
        with open(os.path.join(tree_dir, f"{source}.txt"), encoding="utf-8") as f:
            return f.read()
    out = subprocess.run(
        [os.environ.get("CARGO", "cargo"), "tree", "--locked", "-p", source, "-e", "normal,build"]
        + ["--prefix", "depth", "-f", "{p}"],
        check=True,
        capture_output=True,
        text=True,
    )
    return out.stdout


def tree_edges(text):
    """name -> set of names, from depth-prefixed `cargo tree` lines (`2serde v1.0.0 ...`)."""
    edges, stack = {}, []
    for line in text.splitlines():
        digits = len(line) - len(line.lstrip("0123456789"))
        if digits == 0 or not line[digits:].strip():
            continue
        depth, name = int(line[:digits]), line[digits:].split()[0]
        del stack[depth:]
        if stack:
            edges.setdefault(stack[-1], set()).add(name)
        edges.setdefault(name, set())
        stack.append(name)
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
    ap.add_argument("--forbid", action="append", default=[], metavar="FROM[,FROM...]:TO[,TO...]")
    ap.add_argument(
        "--forbid-default",
        action="append",
        default=[],
        metavar="FROM[,FROM...]:TO[,TO...]",
        help="forbid TO in the default-feature build of FROM",
    )
    ap.add_argument("--tree-dir", help="saved `cargo tree` outputs (FROM.txt) for the default-build rules")
    ap.add_argument("--no-defaults", action="store_true", help="check only the --forbid/--forbid-default rules")
    args = ap.parse_args()
    try:
        rules = [p for r in ([] if args.no_defaults else DEFAULT_RULES) + args.forbid for p in parse_rule(r)]
        build_rules = [
            p for r in ([] if args.no_defaults else DEFAULT_BUILD_RULES) + args.forbid_default for p in parse_rule(r)
        ]
    except ValueError as e:
        print(f"check-deps: {e}", file=sys.stderr)
        return 2
    try:
        edges = graph(load_metadata(args.metadata))
    except (OSError, ValueError, KeyError, subprocess.CalledProcessError) as e:
        print(f"check-deps: cannot read the crate graph: {e}", file=sys.stderr)
        return 2
    broken = 0
    for source, target in rules:
        if source not in edges:
            print(f"check-deps: unknown package {source!r} in a rule; fix the rule", file=sys.stderr)
            return 2
        path = path_to(edges, source, target)
        if path:
            broken += 1
            print(f"check-deps: {source} must not depend on {target}: {' -> '.join(path)}", file=sys.stderr)
    checked_build = 0
    if build_rules and args.metadata and not args.tree_dir:
        print(f"check-deps: {len(build_rules)} default-build rule(s) not checked (--metadata without --tree-dir)")
        build_rules = []
    trees = {}
    for source, target in build_rules:
        if source not in edges:
            print(f"check-deps: unknown package {source!r} in a rule; fix the rule", file=sys.stderr)
            return 2
        if source not in trees:
            try:
                trees[source] = tree_edges(tree_text(source, args.tree_dir))
            except (OSError, subprocess.CalledProcessError) as e:
                print(f"check-deps: cannot read the default build of {source}: {e}", file=sys.stderr)
                return 2
        checked_build += 1
        path = path_to(trees[source], source, target)
        if path:
            broken += 1
            print(
                f"check-deps: the default build of {source} must not link {target}: {' -> '.join(path)}"
                " (put it behind a feature)",
                file=sys.stderr,
            )
    if broken:
        return 1
    print(f"check-deps: {len(rules) + checked_build} rule(s) hold")
    return 0


if __name__ == "__main__":
    sys.exit(main())
