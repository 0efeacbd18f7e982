#!/usr/bin/env bash
# Benchmark `dslint check` on a tree of 10,000 configs made from testdata
# variants, side by side in one run with `cat` of the same files and with
# yamllint on the YAML subset. Not a test: prints figures and ratios.
#
#   bash bench/check_speed.sh [N_FILES]     (default 10000)
#
# yamllint is installed with pip when missing.
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-10000}
cargo build --release --quiet
BIN=$PWD/target/release/dslint
TREE=$(mktemp -d)
trap 'rm -rf "$TREE"' EXIT

source bench/common.sh
make_config_tree "$TREE" "$N"
i=$TREE_FOLDERS
CONFIGS=$(find "$TREE" -type f \( -name '*.txt' -o -name '*.yml' \) | wc -l)
YAMLS=$(find "$TREE" -type f -name '*.yml' | wc -l)
echo "tree: $CONFIGS config files ($YAMLS YAML) in $i pipelines, $(du -sh "$TREE" | cut -f1)"

python3 -m yamllint --version >/dev/null 2>&1 || python3 -m pip install --quiet yamllint

find "$TREE" -type f \( -name '*.txt' -o -name '*.yml' \) -print0 > "$TREE.list"
yaml_list() { find "$TREE" -type f -name '*.yml' -print0 | xargs -0 python3 -m yamllint -d relaxed; }
T_CAT=$(best_of 5 bash -c "xargs -0 cat < '$TREE.list'")
T_DSLINT=$(best_of 5 "$BIN" check "$TREE")
T_DSLINT_YAML=$(best_of 5 bash -c "find '$TREE' -name '*.yml' -print0 | xargs -0 '$BIN' check")
T_YAMLLINT=$(best_of 1 yaml_list)
rm -f "$TREE.list"

echo "cat (all configs)          ${T_CAT}s"
echo "dslint check (all)         ${T_DSLINT}s   = $(echo "scale=1; $T_DSLINT / $T_CAT" | bc -l)x cat"
echo "dslint check (YAML only)   ${T_DSLINT_YAML}s"
echo "yamllint (YAML only)       ${T_YAMLLINT}s   = $(echo "scale=1; $T_YAMLLINT / $T_DSLINT_YAML" | bc -l)x dslint on the same files"
