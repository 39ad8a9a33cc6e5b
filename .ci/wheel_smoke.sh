#!/usr/bin/env bash
# Installs the built wheels into fresh virtual environments outside the source tree, as a user
# would, and runs wheel_smoke.py in each from a temporary directory: one environment for the core
# (with the harness's extra) and the torch and fairlearn adapters, and one for the AIF360
# adapter, which pins pandas<3 while the others are tested with pandas 3 (as in its nox session).
# Both are removed on exit; pip's cache is reused. They are made under $TMPDIR (default /tmp):
# where deleting files is slow (a disk mounted with online discard), TMPDIR=/dev/shm saves minutes.
# Usage: .ci/wheel_smoke.sh PYTHON DIST (DIST holds one wheel per distribution)
set -euo pipefail
python=$1
dist=$(cd "$2" && pwd)
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"; echo "-- environments removed, ${SECONDS}s after the start"' EXIT

wheel() {
    local found=("$dist/$1"-*.whl)
    if [ "${#found[@]}" -ne 1 ] || [ ! -f "${found[0]}" ]; then
        echo "expected one wheel of $1 in $dist, found: ${found[*]}" >&2
        exit 1
    fi
    echo "${found[0]}"
}

# fresh_env NAME REQUIREMENT...: a new environment with torch first, then the requirements
fresh_env() {
    local name=$1
    shift
    "$python" -m venv "$scratch/$name"
    # first and pinned: a CPU wheel of exactly this version is available, while any other torch
    # requirement pulls a CUDA build of several GB
    "$scratch/$name/bin/pip" install --quiet torch==2.13.0
    "$scratch/$name/bin/pip" install --quiet "$@"
}

# smoke NAME INSTALLED...: the checks, from the scratch directory, with nothing but site-packages
smoke() {
    local name=$1
    shift
    (cd "$scratch" && "$scratch/$name/bin/python" -I "$here/wheel_smoke.py" "$@")
    echo "-- $name environment done, ${SECONDS}s after the start"
}

core=$(wheel faircocco_plugins)
torch_adapter=$(wheel faircocco_torch)
fairlearn_adapter=$(wheel faircocco_fairlearn)
aif360_adapter=$(wheel faircocco_aif360)

echo "== faircocco-plugins[bench], faircocco-torch and faircocco-fairlearn"
fresh_env main "$core[bench]" "$torch_adapter" "$fairlearn_adapter"
smoke main bench torch fairlearn

echo "== faircocco-aif360 (AIF360 0.6.1, pandas<3)"
fresh_env aif360 "$core" "$torch_adapter" "$aif360_adapter"
# Importing AIF360's metrics imports all its algorithms, and three modules of its reductions each
# log "No module named 'fairlearn'": the check shows what a user sees, and says why.
echo "(AIF360's three notices of a missing fairlearn below are expected: only the methods"
echo " aif360_expgrad and aif360_gridsearch need it, and neither AIF360 nor faircocco-aif360"
echo " installs it)"
smoke aif360 torch aif360
