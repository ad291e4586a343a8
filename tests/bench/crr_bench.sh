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

FW_SRCS="net/handoff.c drivers/nic/nic_tx.c net/iface.c net/inet.c apps/sink/sink.c apps/sink/basic.c \
apps/sink/netperf.c apps/sink/netperf_proto.c net/lwip-port/sink_netif.c net/gro.c net/lwip-port/isn.c \
net/lwip-port/sys_arch.c net/lwip-port/tcp_hooks.c net/lwip-port/siphash.c kernel/pkb.c kernel/err.c"
LWIP_DIR=build/src/lwip-2.1.3/src
LWIP_SRCS="init def inet_chksum ip mem memp netif pbuf stats tcp tcp_in tcp_out timeouts udp \
ipv4/icmp ipv4/ip4 ipv4/ip4_addr ipv4/ip4_frag"
SIM_SRCS="tests/bench/crr_bench.c tests/fakes/fake_sink_platform.c tests/hostsim/sink_peer.c"
FW_CFLAGS="-std=gnu11 -O2 -g -Wall -Wextra -Werror -ffreestanding -fno-common -mno-red-zone \
-mcmodel=small -fno-pic -fno-pie -fno-stack-protector -fno-omit-frame-pointer \
-mno-omit-leaf-frame-pointer -fno-asynchronous-unwind-tables"
LWIP_CFLAGS=$(echo "$FW_CFLAGS" | sed 's/ -Wextra -Werror//')
SIM_CFLAGS="-std=gnu11 -O2 -g -Wall -Wextra -Werror -fno-pie -fno-omit-frame-pointer"
# tests/hostsim/hostinc: <reent.h> for kernel/percpu.h (netperf reads the core's cycle counters)
INC="-I. -iquote kernel -Inet/lwip-port -I$LWIP_DIR/include -Itests/hostsim/hostinc"

make --no-print-directory build/host/genconfig sources >/dev/null

dir="$OUT/crr_bench.d"
mkdir -p "$dir/gen"
build/host/genconfig config/default.conf "$dir/gen/config.h" >/dev/null
objs=""
for src in $FW_SRCS; do
    obj="$dir/$(echo "$src" | tr / _ | sed 's/\.c$/.o/')"
    # shellcheck disable=SC2086 # word splitting of the flag lists is wanted
    "$CC" $FW_CFLAGS $INC -iquote "$dir/gen" -c "$src" -o "$obj"
    objs="$objs $obj"
done
for src in $LWIP_SRCS; do
    obj="$dir/lwip_$(echo "$src" | tr / _).o"
    # shellcheck disable=SC2086
    "$CC" $LWIP_CFLAGS $INC -c "$LWIP_DIR/core/$src.c" -o "$obj"
    objs="$objs $obj"
done
# shellcheck disable=SC2086
"$CC" $SIM_CFLAGS $INC -iquote "$dir/gen" $SIM_SRCS $objs -no-pie -o "$OUT/crr_bench"

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
