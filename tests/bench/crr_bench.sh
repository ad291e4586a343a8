#!/bin/sh
# tests/bench/crr_bench.sh: what one netperf TCP_CRR transaction (connect, 1-byte request,
# 1-byte response, the server's close) costs the sink core, on the host: tests/bench/crr_bench.c
# drives the sink's netserver (apps/sink/netperf.c) over the handoff rings, the zero-copy glue
# and lwIP, all built with the firmware's code generation as for sink_bench.sh. callgrind counts
# the instructions inside the sink_poll calls of the measured transactions (the control
# exchange and the end are not counted), over N; deterministic. Then the functions that spend
# them, per transaction. Numbers, never pass/fail.
#
# Usage: tests/bench/crr_bench.sh   (from anywhere; env: CC, OUT=build/bench, N=5000)
set -eu
cd "$(dirname "$0")/../.."
CC=${CC:-gcc}
OUT=${OUT:-build/bench}
N=${N:-5000}

# shellcheck source=tests/bench/sink_build.sh
. tests/bench/sink_build.sh
sink_build crr_bench tests/bench/crr_bench.c "apps/sink/netperf.c apps/sink/netperf_proto.c"

echo "== sink: one netperf TCP_CRR transaction (SYN, request, response, both FINs)"
"$OUT/crr_bench" --quiet --transactions "$N"
if command -v valgrind >/dev/null 2>&1; then
    cg="$OUT/crr_bench.callgrind"
    valgrind --tool=callgrind --toggle-collect=cb_measured_poll --toggle-collect=iring_tx_burst \
        --callgrind-out-file="$cg" "$OUT/crr_bench" --quiet --transactions "$N" >/dev/null 2>&1
    ir=$(sed -n 's/^summary: //p' "$cg")
    awk -v ir="$ir" -v n="$N" 'BEGIN {
        printf "sink core: %.0f instructions per TCP_CRR transaction (callgrind Ir in sink_poll" \
               " / %d transactions)\n", ir / n, n }'
    callgrind_annotate --auto=no --threshold=100 "$cg" 2>/dev/null >"$cg.txt"
    awk -v n="$N" '/^ *[0-9,]+ \(/ && !/PROGRAM TOTALS/ {
        v = $1; gsub(",", "", v); name = $0;
        sub(/^ *[0-9,]+ \( *[0-9.]+%\) +/, "", name); sub(/ \[.*$/, "", name);
        sub(/^.*\//, "", name);
        if (v / n >= 40) printf "    %7.0f  %s\n", v / n, name }' "$cg.txt"
else
    echo "valgrind not installed: no instruction count"
fi
