#!/bin/sh
# tests/bench/fib_bench.sh: route lookup cost (net/fib.c). Builds tests/bench/fib_bench.c with
# -O2, prints its timings (ns/lookup), then counts instructions with callgrind: each case runs
# N lookups through bench_run (--toggle-collect=bench_run counts only that function, not the
# table build), minus the same harness without lookups (METHOD empty). Numbers, never pass/fail.
#
# Usage: tests/bench/fib_bench.sh    (from anywhere; env: CC, OUT=build/bench, N=102400)
set -eu
cd "$(dirname "$0")/../.."
CC=${CC:-gcc}
OUT=${OUT:-build/bench}
N=${N:-102400} # a multiple of 1024 (bench_run's chunk)
mkdir -p "$OUT"

# -I. only: -Ikernel would let kernel/time.h shadow the C library's <time.h>.
"$CC" -std=gnu11 -O2 -g -Wall -Wextra -Werror -I. tests/bench/fib_bench.c net/fib.c \
    -o "$OUT/fib_bench"
"$OUT/fib_bench"

if ! command -v valgrind >/dev/null 2>&1; then
    echo "valgrind not installed: no instruction counts"
    exit 0
fi

# count TABLE DSTS METHOD: instructions callgrind saw inside bench_run.
count() {
    valgrind --tool=callgrind --toggle-collect=bench_run \
        --callgrind-out-file="$OUT/fib_bench.callgrind" \
        "$OUT/fib_bench" one "$1" "$2" "$3" "$N" >/dev/null 2>&1
    sed -n 's/^summary: //p' "$OUT/fib_bench.callgrind"
}

echo "callgrind, $N lookups per case (harness loop subtracted):"
base=$(count realistic uniform empty)
for c in "random10k inside" "realistic uniform" "realistic hit24" "realistic mixed"; do
    for method in single burst; do
        # shellcheck disable=SC2086 # $c is two words on purpose
        ir=$(count $c "$method")
        awk -v ir="$ir" -v base="$base" -v n="$N" -v c="$c $method" 'BEGIN {
            printf "%-26s instructions per lookup: %.1f (with harness %.1f)\n",
                   c, (ir - base) / n, ir / n }'
    done
done
