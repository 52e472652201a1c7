#!/usr/bin/env bash
# Sets up (dependencies + build) and runs the whole test suite with ctest.
# Tests that read ../shared/models skip with a message when ../shared is absent.
# Usage: scripts/test.sh [--sanitize] [--verbose]
#   --verbose  the tools' whole output (apt-get, the compiler, one line per test) instead of one
#              line per stage with progress; the quiet run keeps it in <build dir>/setup.log and
#              <build dir>/ctest.log and shows the failing tests' output in full
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=build
setup_args=()
verbose=0
for arg in "$@"; do
  case "$arg" in
    --sanitize) build_dir=build-asan; setup_args+=(--sanitize) ;;
    --verbose) verbose=1 ;;
    *) echo "test.sh: unknown option '$arg'" >&2; exit 2 ;;
  esac
done

if [ "$verbose" -eq 1 ]; then
  scripts/setup.sh "${setup_args[@]}"
  exec ctest --test-dir "$build_dir" --output-on-failure -j "$(nproc)"
fi

scripts/setup.sh --quiet "${setup_args[@]}"
total=$(ctest --test-dir "$build_dir" -N | sed -n 's/^Total Tests: *//p')
log="$build_dir/ctest.log"
echo "running $total tests (ctest -j $(nproc); full output in $log)…"
start=$SECONDS
# One progress line (rewritten in place on a terminal, every 10 % otherwise) and each failure as it
# happens; ctest's own output goes to the log.
follow() {
  local line done_count pct shown=0
  : >"$log"
  while IFS= read -r line; do
    printf '%s\n' "$line" >>"$log"
    if [[ $line =~ ^\ *([0-9]+)/([0-9]+)\ Test\ +#[0-9]+:\ ([^ ]+)\ .*(Passed|Failed|Not\ Run|Skipped|Timeout|Exception) ]]; then
      done_count=${BASH_REMATCH[1]}
      if [[ ${BASH_REMATCH[4]} != Passed && ${BASH_REMATCH[4]} != Skipped ]]; then
        if [ -t 1 ]; then printf '\n'; fi
        echo "  FAILED: ${BASH_REMATCH[3]}"
      fi
      pct=$((100 * done_count / (total > 0 ? total : 1)))
      if [ -t 1 ]; then
        printf '\r  %d/%d tests (%d%%, %ds)' "$done_count" "$total" "$pct" $((SECONDS - start))
      elif [ $((pct / 10)) -gt "$shown" ]; then
        shown=$((pct / 10))
        printf '  %d/%d tests (%d%%, %ds)\n' "$done_count" "$total" "$pct" $((SECONDS - start))
      fi
    fi
  done
  if [ -t 1 ]; then printf '\n'; fi
}
set +e
ctest --test-dir "$build_dir" --output-on-failure -j "$(nproc)" 2>&1 | follow
status=${PIPESTATUS[0]}
set -e
# ctest's summary: "N% tests passed, …", the total time and any skipped or failed tests.
sed -n '/tests passed,/,$p' "$log"
if [ "$status" -ne 0 ]; then
  echo "test.sh: failures; their output (from $log):" >&2
  awk '/^[0-9]+\/[0-9]+ Test +#[0-9]+: .*\*\*\*Failed/{p=1} p{print} /^ *[0-9]+\/[0-9]+ Test +#[0-9]+: .*Passed/{p=0}' "$log" \
    | head -n 400 >&2
fi
exit "$status"
