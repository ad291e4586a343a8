#!/bin/sh
# tests/bench/sink_bench.sh: what one received 1448-byte TCP segment costs the sink core, on the
# host: tests/bench/sink_bench.c streams into the discard service through the handoff rings,
# the zero-copy glue and lwIP (all the firmware's own code, built with its code generation:
# -O2, frame pointers, -ffreestanding, no red zone; lwIP with our warnings, not as errors), the
# rest of the firmware stood in for by tests/fakes/fake_sink_platform.c. Then:
#   1. instructions per segment: callgrind counts only inside the sink_poll calls of the
#      measured stream (--toggle-collect=sb_measured_poll: not the handshake, the 1000-segment
#      warm-up or the close; the fake TX queue, iring_tx_burst, toggled off again inside it),
#      over SEGS segments; deterministic. The functions that spend them, per segment. Then the
#      producing core's share (handoff_to_sink and handoff_reclaim, per frame of the whole
#      run) from a second run;
#   2. TSC cycles per segment around the sink_poll calls of FULL segments: the median pass of
#      a full burst / burst (a pass the host preempts does not count), best of RUNS (not
#      deterministic: the host's clock, caches and neighbours).
# Numbers, never pass/fail (issue 6's target, <= 1,500 cycles per segment, printed alongside).
#
# Usage: tests/bench/sink_bench.sh   (from anywhere; env: CC, OUT=build/bench, SEGS=20000,
#        FULL=500000, RUNS=3, BURST=32)
set -eu
cd "$(dirname "$0")/../.."
CC=${CC:-gcc}
OUT=${OUT:-build/bench}
SEGS=${SEGS:-20000}
FULL=${FULL:-500000}
RUNS=${RUNS:-3}
BURST=${BURST:-32}

# shellcheck source=tests/bench/sink_build.sh
. tests/bench/sink_build.sh
sink_build sink_bench tests/bench/sink_bench.c

target=1500
echo "== sink: one 1448-byte TCP segment into discard (handoff, glue, lwIP), burst $BURST"
if command -v valgrind >/dev/null 2>&1; then
    cg="$OUT/sink_bench.callgrind"
    valgrind --tool=callgrind --toggle-collect=sb_measured_poll --toggle-collect=iring_tx_burst \
        --callgrind-out-file="$cg" "$OUT/sink_bench" --quiet --segments "$SEGS" \
        --burst "$BURST" >/dev/null 2>&1
    ir=$(sed -n 's/^summary: //p' "$cg")
    awk -v ir="$ir" -v n="$SEGS" -v t="$target" 'BEGIN {
        printf "sink core: %.0f instructions/segment (callgrind Ir in sink_poll / %d segments;" \
               " target <= %d cycles)\n", ir / n, n, t }'
    # Where they go: each function's own instructions per segment (code inlined from a header
    # is charged to it).
    callgrind_annotate --auto=no --threshold=100 "$cg" 2>/dev/null >"$cg.txt"
    awk -v n="$SEGS" '/^ *[0-9,]+ \(/ && !/PROGRAM TOTALS/ {
        v = $1; gsub(",", "", v); name = $0;
        sub(/^ *[0-9,]+ \( *[0-9.]+%\) +/, "", name); sub(/ \[.*$/, "", name);
        sub(/^.*\//, "", name);
        if (v / n >= 2) printf "    %7.1f  %s\n", v / n, name }' "$cg.txt"
    cgp="$OUT/sink_bench_producer.callgrind"
    valgrind --tool=callgrind --toggle-collect=handoff_to_sink --toggle-collect=handoff_reclaim \
        --callgrind-out-file="$cgp" "$OUT/sink_bench" --quiet --segments "$SEGS" \
        --burst "$BURST" >/dev/null 2>&1
    irp=$(sed -n 's/^summary: //p' "$cgp")
    # Every frame of the run: SEGS, the warm-up's 1000, SYN, ACK, FIN and the last ACK.
    awk -v ir="$irp" -v n="$((SEGS + 1004))" 'BEGIN {
        printf "producing core: %.1f instructions/segment (handoff_to_sink + handoff_reclaim," \
               " over all %d frames of the run)\n", ir / n, n }'
else
    echo "valgrind not installed: no instruction count"
fi
# The same stream with the NIC's checksum verdict on every frame (what igb and the 82599 give
# the sink on hardware, PKB_F_L4_CSUM_OK): lwIP then skips its software TCP checksum.
if command -v valgrind >/dev/null 2>&1; then
    cgn="$OUT/sink_bench_nic.callgrind"
    valgrind --tool=callgrind --toggle-collect=sb_measured_poll --toggle-collect=iring_tx_burst \
        --callgrind-out-file="$cgn" "$OUT/sink_bench" --quiet --segments "$SEGS" \
        --burst "$BURST" --nic-checked >/dev/null 2>&1
    irn=$(sed -n 's/^summary: //p' "$cgn")
    awk -v ir="$irn" -v n="$SEGS" 'BEGIN {
        printf "sink core, NIC-verified checksums: %.0f instructions/segment\n", ir / n }'
fi
# 64-byte UDP datagrams into discard (netperf's UDP_STREAM -m 64 in miniature): the same
# handoff, glue and lwIP, per datagram, with the NIC's checksum verdict and without.
echo "== sink: one 64-byte UDP datagram into discard, burst $BURST"
if command -v valgrind >/dev/null 2>&1; then
    for how in --nic-checked ""; do
        cgu="$OUT/sink_bench_udp.callgrind"
        valgrind --tool=callgrind --toggle-collect=sb_measured_poll \
            --toggle-collect=iring_tx_burst --callgrind-out-file="$cgu" "$OUT/sink_bench" \
            --quiet --udp 64 --segments "$SEGS" --burst "$BURST" $how >/dev/null 2>&1
        iru=$(sed -n 's/^summary: //p' "$cgu")
        awk -v ir="$iru" -v n="$SEGS" -v how="${how:-software checksum}" 'BEGIN {
            sub(/^--nic-checked$/, "NIC-verified checksums", how)
            printf "sink core, %s: %.0f instructions/datagram\n", how, ir / n }'
    done
fi
echo "    $("$OUT/sink_bench" --quiet --udp 64 --segments "$FULL" --burst "$BURST" --nic-checked)"
echo "== sink: one 1448-byte TCP segment, TSC cycles"
line=$("$OUT/sink_bench" --quiet --segments "$FULL" --burst "$BURST" --nic-checked)
echo "    NIC-verified checksums: $line"
best=""
run=0
while [ "$run" -lt "$RUNS" ]; do
    line=$("$OUT/sink_bench" --quiet --segments "$FULL" --burst "$BURST")
    echo "    $line"
    c=$(echo "$line" | sed -n 's/.*sink core \([0-9.]*\) cycles.*/\1/p')
    best=$(awk -v a="$c" -v b="${best:-$c}" 'BEGIN { print (a < b ? a : b) }')
    run=$((run + 1))
done
echo "sink core: $best cycles/segment (TSC around sink_poll, median pass / burst, -O2, $FULL" \
    "segments, best of $RUNS; varies from run to run; target <= $target)"
