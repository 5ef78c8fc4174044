#!/usr/bin/env bash
# Seeds the fuzz corpora from testdata/ and, when present, ../shared/corpus/real-world: every YAML
# or JSON file under 64 KiB. The corpora go to DIR/<target> (default: fuzz/corpus, not
# committed); existing corpora there are added to, not replaced.
#   fuzz/seed.sh [DIR]
set -euo pipefail
cd "$(dirname "$0")"
dir=${1:-corpus}
for target in load_yaml check_file; do
  mkdir -p "$dir/$target"
  for root in ../testdata ../../shared/corpus/real-world; do
    [ -d "$root" ] || continue
    find "$root" -type f \( -name '*.yaml' -o -name '*.yml' -o -name '*.json' \) -size -64k -print0 |
      while IFS= read -r -d '' file; do
        cp "$file" "$dir/$target/$(sha1sum "$file" | cut -c1-16)"
      done
  done
done
# check_file splits its input into files at "#%% file" lines: directories of testdata/ with
# several files become one multi-file input each.
find ../testdata -type d -print0 |
  while IFS= read -r -d '' repo; do
    files=$(find "$repo" -maxdepth 1 -type f \( -name '*.yaml' -o -name '*.yml' \) | sort)
    [ "$(printf '%s\n' "$files" | grep -c .)" -ge 2 ] || continue
    joined=$(mktemp)
    first=1
    for file in $files; do
      [ $first = 1 ] || printf '\n#%%%% file\n' >> "$joined"
      first=0
      cat "$file" >> "$joined"
    done
    mv "$joined" "$dir/check_file/repo-$(sha1sum "$joined" | cut -c1-16)"
  done
mkdir -p "$dir/render_vm"
# git_tree reads `git ls-tree -r -z -l` output: the listing of this repository, when it is one.
mkdir -p "$dir/git_tree"
if git -C .. rev-parse --verify --quiet HEAD > /dev/null; then
  listing=$(mktemp)
  git -C .. ls-tree -r -z -l --full-tree HEAD > "$listing"
  mv "$listing" "$dir/git_tree/listing-$(sha1sum "$listing" | cut -c1-16)"
fi
for target in load_yaml check_file render_vm git_tree; do
  echo "$target: $(find "$dir/$target" -type f | wc -l) inputs"
done
