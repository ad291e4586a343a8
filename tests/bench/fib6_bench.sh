#!/bin/sh
# tests/bench/fib6_bench.sh: IPv6 route lookup cost (net/fib6.c) for DFZ-shaped tables of 1,000
# and 100,000 routes and a 200-route edge table. Builds tests/bench/fib6_bench.c with -O2,
# prints its timings (ns/lookup, lookups/s), then counts instructions with callgrind: each case
# runs N lookups through bench_run (--toggle-collect=bench_run counts only that function, not
# the table build), minus the same harness without lookups (METHOD empty). Ends with one line
# per table size: instructions and ns per lookup of its "inside" case. Numbers, never
# pass/fail.
#
# Usage: tests/bench/fib6_bench.sh    (from anywhere; env: CC, OUT=build/bench, N=102400)
set -eu
cd "$(dirname "$0")/../.."
CC=${CC:-gcc}
OUT=${OUT:-build/bench}
N=${N:-102400} # a multiple of 1024 (bench_run's chunk)
mkdir -p "$OUT"

# -I. only: -Ikernel would let kernel/time.h shadow the C library's <time.h>.
"$CC" -std=gnu11 -O2 -g -Wall -Wextra -Werror -I. tests/bench/fib6_bench.c net/fib6.c \
    -o "$OUT/fib6_bench"
"$OUT/fib6_bench" >"$OUT/fib6_bench.txt"
cat "$OUT/fib6_bench.txt"

# ns TABLE DSTS: the timed ns/lookup of one case, from the output above.
ns() {
    awk -v t="$1" -v k="$2" '$1 == t && $2 == k { print $3 }' "$OUT/fib6_bench.txt"
}

# summary WHAT TABLE PER_LOOKUP: the closing line for one table size.
summary() {
    echo "fib6 $1: $3 instructions/lookup (inside), $(ns "$2" inside) ns"
}

if ! command -v valgrind >/dev/null 2>&1; then
    echo "valgrind not installed: no instruction counts"
    summary "1000 routes" dfz1k "?"
    summary "100000 routes" dfz100k "?"
    summary "200 routes (edge)" edge "?"
    exit 0
fi

# count TABLE DSTS METHOD: instructions callgrind saw inside bench_run.
count() {
    valgrind --tool=callgrind --toggle-collect=bench_run \
        --callgrind-out-file="$OUT/fib6_bench.callgrind" \
        "$OUT/fib6_bench" one "$1" "$2" "$3" "$N" >/dev/null 2>&1
    sed -n 's/^summary: //p' "$OUT/fib6_bench.callgrind"
}

echo "callgrind, $N lookups per case (harness loop subtracted):"
base=$(count edge uniform empty)
ins_1k="?" ins_100k="?" ins_edge="?"
for c in "dfz1k inside" "dfz1k hit48" "dfz1k hit32" "dfz1k in16" "dfz1k uniform" \
    "dfz100k inside" "dfz100k hit48" "dfz100k hit32" "dfz100k in16" "dfz100k uniform" \
    "edge inside" "edge hit48" "edge uniform"; do
    # shellcheck disable=SC2086 # $c is two words on purpose
    ir=$(count $c single)
    per=$(awk -v ir="$ir" -v base="$base" -v n="$N" 'BEGIN { printf "%.1f", (ir - base) / n }')
    awk -v ir="$ir" -v per="$per" -v n="$N" -v c="$c" 'BEGIN {
        printf "%-16s instructions per lookup: %s (with harness %.1f)\n", c, per, ir / n }'
    case $c in
    "dfz1k inside") ins_1k=$per ;;
    "dfz100k inside") ins_100k=$per ;;
    "edge inside") ins_edge=$per ;;
    esac
done
summary "1000 routes" dfz1k "$ins_1k"
summary "100000 routes" dfz100k "$ins_100k"
summary "200 routes (edge)" edge "$ins_edge"
