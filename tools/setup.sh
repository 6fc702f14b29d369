#!/usr/bin/env bash
# Installs whatever is missing for strata on this machine, and nothing that is already there:
# the Debian dev tools (when running as root) and a project venv (.venv) with the pinned packages.
# Sourced by tools/test.sh and tools/demo.sh so that both quickstart commands work on a fresh clone.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="$root/.venv"

apt_packages=(mlir-22-tools llvm-22-tools llvm-22 libmlir-22-dev lld-22 libomp5 mesa-vulkan-drivers)
missing=()
for p in "${apt_packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ]; then
    echo "setup: installing Debian packages: ${missing[*]}" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q >/dev/null
    apt-get install -y -q "${missing[@]}" >/dev/null
  else
    echo "setup: warning: not root, cannot install ${missing[*]}; tests that need them are skipped" >&2
  fi
fi

stamp="$venv/.strata-installed"
want="$(sha256sum "$root/pyproject.toml" | cut -d' ' -f1)"
if [ ! -x "$venv/bin/python" ]; then
  echo "setup: creating $venv" >&2
  python3 -m venv "$venv"
fi
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  echo "setup: installing strata and its pinned dependencies into $venv" >&2
  "$venv/bin/python" -m pip install -q --disable-pip-version-check -e "$root[test,bench]" 2>&1 \
    | grep -v "is ignored: it is neither a file nor a directory" >&2 || true
  "$venv/bin/python" -c "import strata, torch_mlir, iree.compiler, iree.runtime, torch" \
    || { echo "setup: error: the venv is incomplete" >&2; exit 1; }
  echo "$want" > "$stamp"
fi
# An editable install leaves strata's modules uncompiled, and where PYTHONDONTWRITEBYTECODE is set
# Python recompiles every one of them on each run: ~40 ms of every strata-opt start-up. Compile
# them as a wheel install would (cheap when nothing changed: only stale files are rewritten).
"$venv/bin/python" -m compileall -q "$root/python/strata" >/dev/null
export PATH="$venv/bin:/usr/lib/llvm-22/bin:$PATH"
