#!/usr/bin/env bash
# Fails when a crate reaches one it must not (default: agent, retriever, indexer, llm -> anser-gold).
# Arguments are passed to check-deps.py (--forbid FROM:TO, --metadata FILE); see its docstring.
set -euo pipefail
exec python3 "$(dirname "$0")/check-deps.py" "$@"
