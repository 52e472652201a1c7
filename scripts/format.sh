#!/usr/bin/env bash
# Formats every C++ source of the project with clang-format-14 and the root .clang-format.
# Usage: scripts/format.sh [--check]   (--check: change nothing, list unformatted files, exit 1 if any)
set -euo pipefail
cd "$(dirname "$0")/.."
tool=clang-format-14
command -v "$tool" >/dev/null || { echo "format.sh: $tool not found (apt-get install clang-format-14)" >&2; exit 2; }
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  mapfile -t files < <(git ls-files --cached --others --exclude-standard '*.cpp' '*.hpp')
else
  mapfile -t files < <(find include src apps tests bench -name '*.cpp' -o -name '*.hpp')
fi
if [ "${1:-}" = "--check" ]; then
  bad=()
  for f in "${files[@]}"; do
    if ! "$tool" --style=file "$f" | cmp -s - "$f"; then bad+=("$f"); fi
  done
  if [ ${#bad[@]} -gt 0 ]; then
    echo "format.sh: ${#bad[@]} file(s) not formatted (run scripts/format.sh):" >&2
    printf '  %s\n' "${bad[@]}" >&2
    exit 1
  fi
  echo "format.sh: ${#files[@]} files formatted"
else
  "$tool" --style=file -i "${files[@]}"
fi
