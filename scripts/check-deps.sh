#!/usr/bin/env bash
# Fails when a crate reaches one it must not (defaults: DEFAULT_RULES and DEFAULT_BUILD_RULES in
# check-deps.py: no gold on the run path, reports/record never reach the agent, no test-only code
# such as the mock server or the BERTScore encoder in the default build of a library crate).
# Arguments are passed to check-deps.py (--forbid FROM:TO, --metadata FILE); see its docstring.
set -euo pipefail
exec python3 "$(dirname "$0")/check-deps.py" "$@"
