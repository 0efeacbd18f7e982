# Sourced by the benchmarks. `best_of RUNS CMD...` prints the fastest wall
# time of RUNS runs of CMD, in seconds. `make_config_tree DIR N` fills DIR with at
# least N configs made from testdata/ (every rule case and the examples are
# templates; each copy lands in its own folder DIR/pI with the data files it
# references, so references resolve as in the original) and sets
# TREE_FOLDERS to the number of folders made. `config_tree_template I`
# prints the template folder DIR/pI was copied from.

best_of() { # best_of RUNS CMD...: the fastest wall time in seconds
  local runs=$1; shift; local best=
  for _ in $(seq "$runs"); do
    local s e t
    s=$(date +%s.%N); "$@" >/dev/null 2>&1 || true; e=$(date +%s.%N)
    t=$(echo "$e - $s" | bc -l)
    if [ -z "$best" ] || (( $(echo "$t < $best" | bc -l) )); then best=$t; fi
  done
  printf '%.3f' "$best"
}

config_tree_templates() {
  find testdata/rules -mindepth 2 -maxdepth 2 -type d | sort
  echo testdata/examples
}

config_tree_template() {
  local templates
  mapfile -t templates < <(config_tree_templates)
  echo "${templates[$(($1 % ${#templates[@]}))]}"
}

make_config_tree() {
  local dir=$1 n=$2 templates counts made=0 i=0 t
  mapfile -t templates < <(config_tree_templates)
  counts=()
  for t in "${templates[@]}"; do
    counts+=("$(find "$t" -maxdepth 1 -type f \( -name '*.txt' -o -name '*.yml' \) | wc -l)")
  done
  while [ "$made" -lt "$n" ]; do
    mkdir -p "$dir/p$i"
    find "${templates[$((i % ${#templates[@]}))]}" -maxdepth 1 -type f -exec cp -t "$dir/p$i" {} +
    made=$((made + counts[$((i % ${#templates[@]}))]))
    i=$((i + 1))
  done
  TREE_FOLDERS=$i
}
