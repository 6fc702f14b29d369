#!/usr/bin/env bash
# The README's test command: sets up what is missing, checks generated files are current, then runs
# the whole suite (lit + FileCheck tests of every tool and pass, pytest for the Python API and
# end-to-end numerics). Extra arguments go to pytest.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$root/tools/setup.sh" || exit 1
cd "$root"
jobs="${STRATA_TEST_JOBS:-$(nproc)}"
status=0
echo "== strata-tblgen --check"
strata-tblgen --check || status=1
echo "== lit test/"
lit -sv -j "$jobs" test/ || status=1
echo "== pytest"
python -m pytest -q test/python "$@" || status=1
exit $status
