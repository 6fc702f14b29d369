#!/usr/bin/env bash
# The README's main command: sets up what is missing, compiles the embedded example PyTorch model
# for llvm-cpu, runs it on IREE's local-task device, and compares it with PyTorch eager.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$root/tools/setup.sh"
exec python -m strata.tools.demo "$@"
