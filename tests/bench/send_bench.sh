#!/bin/sh
# tests/bench/send_bench.sh: what one full-sized TCP segment the sink sends costs the sink core,
# on the host: tests/bench/send_bench.c reads a counted netperf TCP_MAERTS from the sink's
# netserver (apps/sink/netperf.c) over the handoff rings, the glue and lwIP, all built with the
# firmware's code generation as for sink_bench.sh. callgrind counts the instructions inside the
# sink_poll calls of the measured stream (the first 4 MiB, the control exchange and the end are
# not counted; nor is the fake TX queue), divided by the data segments sent in it;
# deterministic. Then the functions that spend them, per segment. Numbers, never pass/fail
# (issue 20's target, <= 1,000 instructions per segment sent, printed alongside).
#
# Usage: tests/bench/send_bench.sh   (from anywhere; env: CC, OUT=build/bench, BYTES=67108864)
set -eu
cd "$(dirname "$0")/../.."
CC=${CC:-gcc}
OUT=${OUT:-build/bench}
BYTES=${BYTES:-67108864}

# shellcheck source=tests/bench/sink_build.sh
. tests/bench/sink_build.sh
sink_build send_bench tests/bench/send_bench.c "apps/sink/netperf.c apps/sink/netperf_proto.c"

echo "== sink: one full-sized TCP segment sent (netperf TCP_MAERTS from the constant buffer)"
line=$("$OUT/send_bench" --quiet --bytes "$BYTES")
echo "    $line"
if command -v valgrind >/dev/null 2>&1; then
    cg="$OUT/send_bench.callgrind"
    valgrind --tool=callgrind --toggle-collect=se_measured_poll --toggle-collect=iring_tx_burst \
        --callgrind-out-file="$cg" "$OUT/send_bench" --quiet --bytes "$BYTES" >/dev/null 2>&1
    ir=$(sed -n 's/^summary: //p' "$cg")
    segs=$(echo "$line" | sed -n 's/.* \([0-9]*\) data segments in the measured stream.*/\1/p')
    awk -v ir="$ir" -v n="$segs" 'BEGIN {
        printf "sink core: %.0f instructions per segment sent (callgrind Ir in sink_poll / %d" \
               " segments, their ACKs included; target <= 1000)\n", ir / n, n }'
    callgrind_annotate --auto=no --threshold=100 "$cg" 2>/dev/null >"$cg.txt"
    awk -v n="$segs" '/^ *[0-9,]+ \(/ && !/PROGRAM TOTALS/ {
        v = $1; gsub(",", "", v); name = $0;
        sub(/^ *[0-9,]+ \( *[0-9.]+%\) +/, "", name); sub(/ \[.*$/, "", name);
        sub(/^.*\//, "", name);
        if (v / n >= 2) printf "    %7.1f  %s\n", v / n, name }' "$cg.txt"
else
    echo "valgrind not installed: no instruction count"
fi
