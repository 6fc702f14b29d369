#!/usr/bin/env bash
# The README's test command: sets up what is missing, checks generated files are current, then runs
# the whole suite (lit + FileCheck tests of every tool and pass, pytest for the Python API and
# end-to-end numerics). Extra arguments go to pytest.
#
# Without arguments the op conformance suite (test/python/conformance: ~4 minutes of compiles that
# keep 1.25 cores busy) runs in a pytest process of its own beside lit and the rest of pytest, which
# alone keep two cores busy only part of the time; its report follows theirs. With arguments one
# pytest process runs what they select, as before.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$root/tools/setup.sh" || exit 1
cd "$root"
jobs="${STRATA_TEST_JOBS:-$(nproc)}"
status=0
echo "== strata-tblgen --check"
strata-tblgen --check || status=1

conformance_pid=
if [ $# -eq 0 ]; then
  scratch="$(mktemp -d)"
  trap '[ -n "$conformance_pid" ] && kill "$conformance_pid" 2>/dev/null; rm -rf "$scratch"' EXIT
  python -m pytest -q test/python/conformance --basetemp="$scratch/tmp" -p no:cacheprovider \
    > "$scratch/conformance.log" 2>&1 &
  conformance_pid=$!
fi
echo "== lit test/"
lit -sv -j "$jobs" test/ || status=1
if [ -n "$conformance_pid" ]; then
  echo "== pytest test/python (less conformance)"
  python -m pytest -q test/python --ignore=test/python/conformance || status=1
  echo "== pytest test/python/conformance"
  wait "$conformance_pid" || status=1
  conformance_pid=
  cat "$scratch/conformance.log"
else
  echo "== pytest"
  python -m pytest -q test/python "$@" || status=1
fi
exit $status
