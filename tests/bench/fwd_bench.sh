#!/bin/sh
# tests/bench/fwd_bench.sh: what forwarding one packet costs the appliance, on the host, in wire
# and router mode (64-byte frames), the router on VLAN sub-interfaces (router_vlan: the tags
# moved in software; router_vlan_nic: by the NICs, vlan.offload, the fake NIC stripping and
# inserting) and the
# router forwarding IPv6 (router6: 80-byte frames, IPv6's shortest with the same UDP payload;
# next hops by neighbour discovery). Builds tests/hostsim/fwd_sim per mode with the firmware's code
# generation (-O2, frame pointers, -ffreestanding, no red zone) for the appliance's files and
# then, per mode:
#   1. the full checked run (FULL frames, 4 cores, malformed frames mixed in): its summary line;
#   2. instructions per forwarded packet: callgrind counts only inside fwd_poll_core
#      (--toggle-collect), which holds the ring RX/TX and the forwarding; the fake NIC and the
#      checks run between the calls. --bench: 1 core, exactly one 32-frame burst per pass, so the
#      count is the steady state at burst 32 (setup ARP or ND and final drain: < 0.01%).
#      Deterministic. router_vlan's and router6's are also printed as what they add to router's;
#   3. TSC cycles per packet around the fwd_poll_core calls of the same --bench run at FULL
#      frames, best of RUNS (not deterministic: the host's clock, caches and neighbours).
# Numbers, never pass/fail (the README's targets are printed alongside for reference).
#
# Usage: tests/bench/fwd_bench.sh   (from anywhere; env: CC, OUT=build/bench, N=1048576,
#        FULL=10000000, RUNS=3)
set -eu
cd "$(dirname "$0")/../.."
CC=${CC:-gcc}
OUT=${OUT:-build/bench}
N=${N:-1048576}
FULL=${FULL:-10000000}
RUNS=${RUNS:-3}

# The appliance's files (what runs inside fwd_poll_core, and its bring-up), compiled like the
# firmware (KCFLAGS in the Makefile, less newlib's headers and -nostdinc); the harness, the fake
# NIC and the platform stand-ins are ordinary host code.
FW_SRCS="apps/fwd/fwd.c net/handoff.c net/nexthop.c drivers/nic/nic.c drivers/nic/nic_tx.c net/iface.c drivers/nic/intel_ring.c kernel/pkb.c net/fib.c \
net/route.c net/local.c net/neigh.c net/inet.c kernel/err.c net/inet6.c net/fib6.c net/route6.c net/local6.c net/nexthop6.c net/dad6.c net/ra6.c \
net/nd_relay.c"
SIM_SRCS="tests/hostsim/fwd_sim.c tests/hostsim/sim_frames.c tests/hostsim/sim_frames6.c \
tests/hostsim/sim_books.c tests/hostsim/sim_platform.c tests/fakes/fake_intel_nic.c tests/fakes/fake_tso.c"
FW_CFLAGS="-std=gnu11 -O2 -g -Wall -Wextra -Werror -ffreestanding -fno-common -mno-red-zone \
-mcmodel=small -fno-pic -fno-pie -fno-stack-protector -fno-omit-frame-pointer \
-mno-omit-leaf-frame-pointer -fno-asynchronous-unwind-tables"
SIM_CFLAGS="-std=gnu11 -O2 -g -Wall -Wextra -Werror -fno-pie -fno-omit-frame-pointer"

make --no-print-directory build/host/genconfig >/dev/null

# build MODE CONF [SIM_FLAGS]: $OUT/fwd_sim_MODE against CONF's generated header.
build() {
    dir="$OUT/fwd_sim_$1.d"
    mkdir -p "$dir/gen"
    build/host/genconfig "$2" "$dir/gen/config.h" >/dev/null
    objs=""
    for src in $FW_SRCS; do
        obj="$dir/$(echo "$src" | tr / _ | sed 's/\.c$/.o/')"
        # -iquote, not -I, for kernel/: its time.h must not shadow the C library's <time.h>.
        # shellcheck disable=SC2086 # word splitting of the flag lists is wanted
        "$CC" $FW_CFLAGS -I. -iquote kernel -iquote "$dir/gen" -c "$src" -o "$obj"
        objs="$objs $obj"
    done
    # shellcheck disable=SC2086
    "$CC" $SIM_CFLAGS ${3:-} -I. -iquote kernel -iquote "$dir/gen" $SIM_SRCS $objs -no-pie \
        -o "$OUT/fwd_sim_$1"
}

# sim MODE: the binary and flags that run MODE (router_vlan_nic: router_vlan's, --nic-vlan).
sim() {
    if [ "$1" = router_vlan_nic ]; then
        echo "$OUT/fwd_sim_router_vlan --nic-vlan"
    else
        echo "$OUT/fwd_sim_$1"
    fi
}

# field NAME LINE: the number after NAME in the sim's "bench:" line.
field() {
    echo "$2" | sed -n "s/.* $1 \([0-9.]*\).*/\1/p"
}

mkdir -p "$OUT"
build wire config/wire.conf
build router config/default.conf
# router_vlan: the same router with its addresses on VLAN sub-interfaces (tagged VLAN 10 in on
# port0, VLAN 20 out on port1; tests/hostsim/fwd_sim.h SIM_VLAN): what a VLAN adds per packet.
sed -e '/^port[01]\.address =/d' config/default.conf > "$OUT/router_vlan.conf"
printf 'vlan = port0.10 198.18.0.1/24\nvlan = port1.20 198.19.0.1/24\n' >> "$OUT/router_vlan.conf"
build router_vlan "$OUT/router_vlan.conf" -DSIM_VLAN
# router6: the same router and config forwarding IPv6 (tests/hostsim/fwd_sim.h SIM_IPV6): host A
# 2001:db8:18::2 to host B 2001:db8:19::2 and the route6 behind it, B resolved by ND.
build router6 config/default.conf -DSIM_IPV6

echo "== checked runs ($FULL frames, 4 cores, malformed frames mixed in)"
for mode in wire router router_vlan router_vlan_nic router6; do
    # shellcheck disable=SC2046 # the binary and its flags
    $(sim "$mode") --quiet --frames "$FULL"
done

have_valgrind=1
command -v valgrind >/dev/null 2>&1 || have_valgrind=0
router_ir=""
for mode in wire router router_vlan router_vlan_nic router6; do
    target=60
    [ "$mode" != wire ] && target=100
    echo "== $mode"
    if [ "$have_valgrind" = 1 ]; then
        cg="$OUT/fwd_bench_$mode.callgrind"
        line=$(valgrind --tool=callgrind --toggle-collect=fwd_poll_core \
            --callgrind-out-file="$cg" $(sim "$mode") --bench --cores 1 --quiet \
            --frames "$N" 2>/dev/null | grep ' bench: ')
        fwd=$(field forwarded "$line")
        ir=$(sed -n 's/^summary: //p' "$cg")
        awk -v m="$mode" -v ir="$ir" -v n="$fwd" -v t="$target" 'BEGIN {
            printf "%s: %.1f instructions/packet (callgrind Ir in fwd_poll_core / %d forwarded, " \
                   "burst 32; target <= %d)\n", m, ir / n, n, t }'
        if [ "$mode" = router ]; then
            router_ir=$(awk -v ir="$ir" -v n="$fwd" 'BEGIN { printf "%.1f", ir / n }')
        elif [ "$mode" = router_vlan ] && [ -n "$router_ir" ]; then
            awk -v ir="$ir" -v n="$fwd" -v r="$router_ir" 'BEGIN {
                printf "router_vlan: a VLAN tag off on the way in and one on on the way out " \
                       "adds %.1f instructions/packet to the router'"'"'s %.1f\n", ir / n - r, r }'
        elif [ "$mode" = router_vlan_nic ] && [ -n "$router_ir" ]; then
            awk -v ir="$ir" -v n="$fwd" -v r="$router_ir" 'BEGIN {
                printf "router_vlan_nic: the same with the NICs taking the tag off and putting " \
                       "it on adds %.1f instructions/packet to the router'"'"'s %.1f\n",
                       ir / n - r, r }'
        elif [ "$mode" = router6 ] && [ -n "$router_ir" ]; then
            awk -v ir="$ir" -v n="$fwd" -v r="$router_ir" 'BEGIN {
                printf "router6: routing IPv6 instead of IPv4 costs %+.1f instructions/packet " \
                       "on the router'"'"'s %.1f (%.2fx)\n", ir / n - r, r, ir / n / r }'
        fi
        # Where they go: each function's own instructions per packet (code inlined from a
        # header is charged to it, e.g. ./net/inet.h:route_ipv4_check_and_decrement); then a
        # check that nothing of the fake NIC or the harness was counted.
        callgrind_annotate --auto=no --threshold=100 "$cg" 2>/dev/null >"$cg.txt"
        awk -v n="$fwd" '/^ *[0-9,]+ \(/ && !/PROGRAM TOTALS/ {
            v = $1; gsub(",", "", v); name = $0;
            sub(/^ *[0-9,]+ \( *[0-9.]+%\) +/, "", name); sub(/ \[.*$/, "", name);
            sub(/^.*\//, "", name);
            if (v / n >= 0.5) printf "    %6.1f  %s\n", v / n, name }' "$cg.txt"
        foreign=$(awk '/^ *[0-9,]+ \(/ && /fake_inic|tests\/fakes|fwd_sim\.c/ {
            v = $1; gsub(",", "", v); s += v } END { print s + 0 }' "$cg.txt")
        tns=$(awk '/^ *[0-9,]+ \(/ && /:time_ns / { v = $1; gsub(",", "", v); print v; exit }' \
            "$cg.txt")
        awk -v f="$foreign" -v t="${tns:-0}" -v n="$fwd" 'BEGIN {
            printf "    (fake NIC and harness instructions among them: %d; the time_ns stub: " \
                   "%.2f/packet)\n", f, t / n }'
    else
        echo "$mode: valgrind not installed: no instruction count"
    fi
    best=""
    run=0
    while [ "$run" -lt "$RUNS" ]; do
        line=$($(sim "$mode") --bench --cores 1 --quiet --frames "$FULL" | grep ' bench: ')
        c=$(field tsc_per_packet "$line")
        best=$(awk -v a="$c" -v b="${best:-$c}" 'BEGIN { print (a < b ? a : b) }')
        run=$((run + 1))
    done
    echo "$mode: $best cycles/packet (TSC around fwd_poll_core, -O2, $FULL packets, burst 32," \
        "best of $RUNS; varies from run to run)"
done
