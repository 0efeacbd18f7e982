#!/usr/bin/env bash
# What the pipeline context of a named file costs: `dslint check` of one
# nvinfer config in a tree of 10,000 configs, where dslint walks the tree,
# reads every candidate file and indexes its references to find the app
# that loads the named config. Side by side in one run with `cat` of the
# same files and with the same check where the project root is the named
# file's own folder (the index covers its two files: a plain check of the
# one file). Not a test: prints wall time (best of 5) and peak memory.
#
#   bash bench/context_index.sh [N_FILES] [BIN]    (default 10000, a fresh release build)
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-10000}
BIN=${2:-}
if [ -z "$BIN" ]; then
  cargo build --release --quiet
  BIN=$PWD/target/release/dslint
fi
BIN=$(realpath "$BIN")
TREE=$(mktemp -d)
trap 'rm -rf "$TREE" "$TREE.list"' EXIT
touch "$TREE/dslint.toml" # the project root

source bench/common.sh
make_config_tree "$TREE" "$N"
# The copy of the DS701 case: an app at batch 4 and the nvinfer config it
# loads, at batch 2.
k=0
while [ "$(config_tree_template "$k")" != testdata/rules/DS701/fires ]; do k=$((k + 1)); done
NAMED=$TREE/p$k/pgie.txt
find "$TREE" -type f \( -name '*.txt' -o -name '*.yml' -o -name '*.yaml' -o -name '*.cfg' -o -name '*.conf' \) -print0 > "$TREE.list"
FILES=$(tr -cd '\0' < "$TREE.list" | wc -c)
KEYED=$(xargs -0 grep -l -E 'config-file|labelfile-path|msg-conv-config|msg-broker-config|onnx-file|model-file|proto-file|uff-file|tlt-encoded-model|custom-lib-path|mean-file' < "$TREE.list" | wc -l)
BYTES=$(xargs -0 cat < "$TREE.list" | wc -c)
echo "tree: $FILES candidate files ($((BYTES / 1024)) KiB) in $TREE_FOLDERS folders; $KEYED hold a reference key"

peak_kib() { # peak resident memory of one run, KiB
  { /usr/bin/time -f '%M' "$@" 2>&1 >/dev/null || true; } | tail -n1
}

# The context run must find the app (DS701, moved to the named file).
FOUND=$("$BIN" check "$NAMED" --root "$TREE" --select DS701 --format concise || true)
grep -q "DS701" <<<"$FOUND" || { echo "the context run did not report DS701:" >&2; echo "$FOUND" >&2; exit 1; }
echo "context run: $(grep -c DS701 <<<"$FOUND") DS701 finding at $(grep -o '^[^ ]*' <<<"$FOUND" | head -n1)"

cat_all() { xargs -0 cat < "$TREE.list"; }
T_CAT=$(best_of 5 cat_all)
M_CAT=$(peak_kib bash -c "xargs -0 cat < '$TREE.list'")
T_ONE=$(best_of 5 "$BIN" check "$NAMED" --root "$TREE/p$k")
M_ONE=$(peak_kib "$BIN" check "$NAMED" --root "$TREE/p$k")
T_CTX=$(best_of 5 "$BIN" check "$NAMED" --root "$TREE")
M_CTX=$(peak_kib "$BIN" check "$NAMED" --root "$TREE")
T_ALL=$(best_of 5 "$BIN" check "$TREE")
M_ALL=$(peak_kib "$BIN" check "$TREE")

printf '%-52s %8s %10s\n' "" "time" "peak RSS"
printf '%-52s %7ss %7s MiB\n' "cat of every candidate file" "$T_CAT" "$((M_CAT / 1024))"
printf '%-52s %7ss %7s MiB\n' "check one nvinfer config, root its folder (plain)" "$T_ONE" "$((M_ONE / 1024))"
printf '%-52s %7ss %7s MiB   = %sx cat, +%ss over plain\n' "check one nvinfer config, root the tree (context)" "$T_CTX" "$((M_CTX / 1024))" \
  "$(echo "scale=1; $T_CTX / $T_CAT" | bc -l)" "$(echo "$T_CTX - $T_ONE" | bc -l)"
printf '%-52s %7ss %7s MiB\n' "check the whole tree" "$T_ALL" "$((M_ALL / 1024))"
