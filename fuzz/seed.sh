#!/usr/bin/env bash
# Seeds the fuzz corpora (fuzz/corpus/<target>, not committed) from testdata/ and, when present,
# ../shared/corpus/real-world: every YAML or JSON file under 64 KiB.
set -euo pipefail
cd "$(dirname "$0")"
for target in load_yaml check_file; do
  mkdir -p "corpus/$target"
  for root in ../testdata ../../shared/corpus/real-world; do
    [ -d "$root" ] || continue
    find "$root" -type f \( -name '*.yaml' -o -name '*.yml' -o -name '*.json' \) -size -64k -print0 |
      while IFS= read -r -d '' file; do
        cp "$file" "corpus/$target/$(sha1sum "$file" | cut -c1-16)"
      done
  done
done
mkdir -p corpus/render_vm
ls corpus/*/ | wc -l
