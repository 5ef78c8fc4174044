#!/usr/bin/env bash
# Runs kvlint and the bare-parse floor (../shared/bench/parsefloor, serde_yaml on 2 threads)
# alternately on generated repositories and prints CPU seconds (user+sys), wall time, peak RSS
# and the median CPU ratio. The machine is shared and noisy: compare CPU seconds and medians.
#
#   benches/compare.sh [RUNS] [SIZES...]      e.g. benches/compare.sh 3 1000 10000 100000
#
# Repositories are generated once under $BENCH_DIR (default /tmp/bench), never in the project.
set -euo pipefail
cd "$(dirname "$0")/.."
runs="${1:-3}"; shift || true
sizes=("${@:-1000 10000}")
read -r -a sizes <<< "${sizes[*]}"
bench="${BENCH_DIR:-/tmp/bench}"
shared="../shared/bench"
mkdir -p "$bench"

[ -x "$bench/parsefloor/target/release/parsefloor" ] || {
  rm -rf "$bench/parsefloor" && cp -r "$shared/parsefloor" "$bench/"
  (cd "$bench/parsefloor" && cargo build --release --quiet)
}
cargo build --release --locked --quiet

measure() { # command... -> "cpu wall rss"
  /usr/bin/time -o "$bench/time.out" -f "%U %S %e %M" "$@" > /dev/null 2> /dev/null || true
  awk '{ printf "%.2f %.2f %d\n", $1 + $2, $3, $4 }' < <(tail -n 1 "$bench/time.out")
}
median() { sort -n | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }

printf "%-8s %-7s %8s %8s %8s %8s %10s\n" repo program cpu_med cpu_min cpu_max wall_med rss_max_kb
for n in "${sizes[@]}"; do
  repo="$bench/r$n"
  [ -d "$repo" ] || python3 "$shared/gen_repo.py" "$repo" --vms "$n" --seed 1 --quiet
  : > "$bench/floor.$n"; : > "$bench/kvlint.$n"
  for _ in $(seq "$runs"); do
    measure "$bench/parsefloor/target/release/parsefloor" serde_yaml "$repo" 2 >> "$bench/floor.$n"
    measure target/release/kvlint check "$repo" --format json --fail-on none --units off >> "$bench/kvlint.$n"
  done
  for program in floor kvlint; do
    f="$bench/$program.$n"
    printf "%-8s %-7s %8s %8s %8s %8s %10s\n" "r$n" "$program" \
      "$(cut -d' ' -f1 "$f" | median)" "$(cut -d' ' -f1 "$f" | sort -n | head -1)" \
      "$(cut -d' ' -f1 "$f" | sort -n | tail -1)" "$(cut -d' ' -f2 "$f" | median)" \
      "$(cut -d' ' -f3 "$f" | sort -n | tail -1)"
  done
  echo "r$n CPU ratio (median kvlint / median floor): $(awk -v k="$(cut -d' ' -f1 "$bench/kvlint.$n" | median)" \
    -v f="$(cut -d' ' -f1 "$bench/floor.$n" | median)" 'BEGIN { printf "%.2f", k / f }')"
done
