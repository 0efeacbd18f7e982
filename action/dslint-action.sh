#!/usr/bin/env bash
# dslint's GitHub Action (action.yml), once dslint is installed: check the
# configs and post the findings on the pull request. Kept in a file of its
# own so that a test runs it as the action does.
#
# Inputs, from action.yml:
#   DSLINT_PATHS            files or folders, one per line (default: .)
#   DSLINT_CHANGED_SINCE    a git revision (the pull request's base): check
#                           only the files changed since, with their
#                           pipelines (`--changed-since`); fetched from
#                           origin when the checkout is shallow. Empty:
#                           check the paths whole
#   DSLINT_REPORTER         annotations: workflow commands (`--format github`),
#                           shown on the pull request's files;
#                           reviewdog: review comments on the changed lines,
#                           safe fixes as suggested changes (`--format rdjson`)
#   DSLINT_ARGS             more `dslint check` arguments (split on spaces)
#   DSLINT_FAIL_ON_FINDINGS true: findings at warning or above fail the step
#   REVIEWDOG_REPORTER      reviewdog's -reporter (default github-pr-review)
#   REVIEWDOG_FILTER_MODE   reviewdog's -filter-mode (default added)
# Exit: 0 clean (or findings with DSLINT_FAIL_ON_FINDINGS=false), 1 findings,
# 2 usage or I/O errors (bad input, a path that does not exist).
set -uo pipefail

paths=()
while IFS= read -r line; do
  [[ -n "${line//[[:space:]]/}" ]] && paths+=("$line")
done <<< "${DSLINT_PATHS:-.}"
[[ ${#paths[@]} -eq 0 ]] && paths=(.)
read -ra extra <<< "${DSLINT_ARGS:-}"
fail="${DSLINT_FAIL_ON_FINDINGS:-true}"
case "$fail" in
  true|false) ;;
  *) echo "::error title=dslint::fail-on-findings must be true or false, not '$fail'"; exit 2 ;;
esac

# Pull requests: the files changed since the base, with their pipelines.
since=()
if [[ -n "${DSLINT_CHANGED_SINCE:-}" ]]; then
  base="$DSLINT_CHANGED_SINCE"
  if [[ "$base" == -* ]]; then
    echo "::error title=dslint::changed-since must be a git revision, not '$base'"
    exit 2
  fi
  # actions/checkout fetches one commit: the base is fetched when absent.
  if ! git cat-file -e "$base^{commit}" 2>/dev/null; then
    if ! git fetch --quiet --no-tags --depth=1 origin "$base" >&2; then
      echo "::error title=dslint::cannot fetch the base revision '$base' from origin"
      exit 2
    fi
  fi
  since=(--changed-since "$base")
fi

# The counts per code, for the job summary.
if [[ -n "${GITHUB_STEP_SUMMARY:-}" ]]; then
  {
    echo '### dslint'
    echo '```text'
    dslint check "${paths[@]}" "${since[@]}" "${extra[@]}" --statistics 2>&1
    echo '```'
  } >> "$GITHUB_STEP_SUMMARY"
fi

case "${DSLINT_REPORTER:-annotations}" in
  annotations)
    dslint check "${paths[@]}" "${since[@]}" "${extra[@]}" --format github
    rc=$?
    ;;
  reviewdog)
    out="$(mktemp)"
    trap 'rm -f "$out"' EXIT
    dslint check "${paths[@]}" "${since[@]}" "${extra[@]}" --format rdjson > "$out"
    rc=$?
    if [[ $rc -le 1 ]]; then
      level=none
      [[ "$fail" == true ]] && level=warning
      reviewdog -f=rdjson -name=dslint \
        -reporter="${REVIEWDOG_REPORTER:-github-pr-review}" \
        -filter-mode="${REVIEWDOG_FILTER_MODE:-added}" \
        -fail-level="$level" < "$out"
      rd=$?
      # reviewdog decides what fails: findings on the lines the PR changed.
      [[ $rd -ne 0 ]] && exit "$rd"
      exit 0
    fi
    ;;
  *)
    echo "::error title=dslint::reporter must be annotations or reviewdog, not '${DSLINT_REPORTER}'"
    exit 2
    ;;
esac
if [[ $rc -eq 1 && "$fail" == false ]]; then
  exit 0
fi
exit "$rc"
