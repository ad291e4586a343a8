#!/usr/bin/env bash
# tests/fuzz/run.sh: build the libFuzzer harnesses into build/fuzz/, replay every regression
# input (tests/fuzz/regressions/<harness>/), then fuzz each harness for a while.
#
#   tests/fuzz/run.sh [seconds] [harness...]    seconds per harness (default 10); all harnesses
#                                               unless some are named (e.g. fuzz_route)
#   FUZZ_BUILD_ONLY=1 tests/fuzz/run.sh         build and replay regressions, no fuzzing
#
# Each harness fuzzes a working copy of its seed corpus, build/fuzz/corpus-work/<harness>/
# (seeded from tests/fuzz/corpus/<harness>/, kept between runs so coverage accumulates; the
# committed corpus is never written). One line per harness: executions, rate, result. A crash
# (or leak, timeout, out-of-memory) is saved under build/fuzz/crashes/<harness>/ with the
# commands to reproduce it and to keep it as a regression input; the script then goes on with
# the other harnesses and exits 1 at the end. Needs clang with libFuzzer (Debian:
# clang-14 + libclang-rt-14-dev).
set -uo pipefail

cd "$(dirname "$0")/../.."
secs=${1:-10}
shift || true
if ! [[ $secs =~ ^[0-9]+$ ]]; then
    echo "usage: tests/fuzz/run.sh [seconds] [harness...]" >&2
    exit 2
fi

CC=${FUZZ_CC:-clang}
OUT=build/fuzz
CFLAGS=(-std=gnu11 -g -O1 -Wall -Wextra -Werror -fsanitize=fuzzer,address,undefined
    -fno-sanitize-recover=all -fno-omit-frame-pointer -I. -iquote kernel -Iconfig)

# Each harness and the firmware sources it runs (all but the harness shared with the firmware
# build or the host tests, unchanged).
declare -A SRCS=(
    [fuzz_net_local]="net/local.c net/neigh.c net/inet.c"
    [fuzz_route]="net/route.c net/inet.c"
    [fuzz_route6]="net/route6.c net/inet6.c net/inet.c"
    [fuzz_net_local6]="net/local6.c net/inet6.c net/inet.c"
    [fuzz_vlan]=""
    [fuzz_fib]="net/fib.c"
    [fuzz_fib6]="net/fib6.c"
    [fuzz_console]="kernel/console_line.c"
    [fuzz_acpi]="kernel/acpi.c kernel/aml.c kernel/err.c"
    [fuzz_aml]="kernel/aml.c"
    [fuzz_config]="config/confparse.c config/confkeys.c config/confvalue.c config/confemit.c"
    [fuzz_rx_ring]="drivers/nic/intel_ring.c kernel/pkb.c"
    [fuzz_tx_ring]="drivers/nic/intel_ring.c kernel/pkb.c"
    [fuzz_tx_multi]="drivers/nic/intel_ring.c kernel/pkb.c tests/fakes/fake_intel_nic.c tests/fakes/fake_tso.c"
    [fuzz_iperf3]="apps/sink/iperf3_proto.c build/src/cjson-1.7.15/cJSON.c"
    [fuzz_netperf_proto]="apps/sink/netperf_proto.c"
    [fuzz_lwip]="net/handoff.c drivers/nic/nic_tx.c net/iface.c apps/sink/sink.c apps/sink/basic.c net/lwip-port/sink_netif.c net/gro.c
        net/lwip-port/isn.c net/lwip-port/sys_arch.c net/lwip-port/tcp_hooks.c net/lwip-port/siphash.c kernel/pkb.c net/local.c net/neigh.c net/inet.c net/inet6.c
        kernel/err.c tests/fakes/fake_sink_platform.c tests/fakes/fake_tso.c tests/hostsim/sink_peer.c
        $OUT/lwip/liblwip.a"
    [fuzz_ixgbe_model]="tests/hostsim/ixgbe_platform.c tests/hostsim/ixgbe_appliance.c
        tests/hostsim/sim_frames.c
        drivers/nic/ixgbe.c drivers/nic/ixgbe_nvm.c drivers/nic/ixgbe_sfp.c drivers/nic/nic_hw.c drivers/nic/nic.c drivers/nic/nic_tx.c net/iface.c drivers/nic/intel_ring.c
        drivers/pci/msix.c apps/fwd/fwd.c net/handoff.c net/nexthop.c kernel/pkb.c net/fib.c net/route.c net/local.c
        net/neigh.c net/inet.c net/inet6.c net/fib6.c net/route6.c net/local6.c net/nexthop6.c net/dad6.c net/ra6.c net/nd_relay.c
        drivers/nic/rss.c kernel/err.c tests/model/ixgbe_model.c
        tests/model/ixgbe_model_queue.c tests/model/ixgbe_model_irq.c tests/model/ixgbe_model_rx.c
        tests/model/ixgbe_model_tx.c tests/model/ixgbe_model_sfp.c tests/model/ixgbe_model_fc.c"
)
# Extra flags: smaller tables than the firmware's, so the fuzzer can fill them and reach the
# eviction and out-of-memory paths (see the harnesses): the same code, other sizes. fuzz_tx_ring
# takes the ring's register writes itself (kernel/mmio.h's host build) to count the tail writes.
# fuzz_lwip: lwIP's checksum checks off (LWIP_FUZZ_FLAGS), the default config's header.
# fuzz_ixgbe_model: the MMIO seam to the 82599 model (as ixgbe_sim), the default config's header.
LWIP_DIR=build/src/lwip-2.1.3/src
LWIP_FUZZ_FLAGS="-DCHECKSUM_CHECK_TCP=0 -DCHECKSUM_CHECK_UDP=0 -DCHECKSUM_CHECK_ICMP=0 \
-Inet/lwip-port -I$LWIP_DIR/include"
declare -A EXTRA=([fuzz_fib]="-DFIB_MAX_ROUTES=64" [fuzz_net_local]="-DNEIGH_TABLE_BITS=4"
    [fuzz_iperf3]="-Ibuild/src/cjson-1.7.15" [fuzz_tx_ring]="-DWS_HOST_MMIO"
    [fuzz_lwip]="$LWIP_FUZZ_FLAGS -iquote $OUT/gen"
    [fuzz_ixgbe_model]="-DWS_HOST_MMIO -Itests/hostsim/hostinc -iquote $OUT/gen")
ALL=(fuzz_net_local fuzz_route fuzz_net_local6 fuzz_route6 fuzz_vlan fuzz_fib fuzz_fib6 fuzz_console fuzz_acpi fuzz_aml fuzz_config fuzz_rx_ring fuzz_tx_ring fuzz_tx_multi
    fuzz_iperf3 fuzz_netperf_proto fuzz_lwip fuzz_ixgbe_model)
# Harnesses that include config.h: the default config's, generated into $OUT/gen.
NEEDS_CONFIG=(fuzz_lwip fuzz_ixgbe_model)
# fuzz_sink_services: the sink's services on lwIP (the same lwIP archive and flags as
# fuzz_lwip), cJSON for iperf3's JSON, and hostinc's <reent.h> for kernel/percpu.h (netperf
# reads the sink core's cycle counters).
SRCS[fuzz_sink_services]="net/handoff.c drivers/nic/nic_tx.c net/iface.c net/inet.c net/inet6.c apps/sink/sink.c apps/sink/basic.c
    apps/sink/iperf3.c apps/sink/iperf3_data.c apps/sink/iperf3_proto.c apps/sink/netperf.c apps/sink/netperf_proto.c
    net/lwip-port/sink_netif.c net/gro.c net/lwip-port/isn.c net/lwip-port/sys_arch.c net/lwip-port/tcp_hooks.c net/lwip-port/siphash.c kernel/pkb.c kernel/err.c
    tests/fakes/fake_sink_platform.c tests/fakes/fake_tso.c tests/hostsim/sink_peer.c build/src/cjson-1.7.15/cJSON.c
    $OUT/lwip/liblwip.a"
EXTRA[fuzz_sink_services]="$LWIP_FUZZ_FLAGS -iquote $OUT/gen -Ibuild/src/cjson-1.7.15
    -Itests/hostsim/hostinc"
ALL+=(fuzz_sink_services)
NEEDS_CONFIG+=(fuzz_sink_services)

harnesses=("$@")
if [[ ${#harnesses[@]} -eq 0 ]]; then
    harnesses=("${ALL[@]}")
fi
for h in "${harnesses[@]}"; do
    if [[ -z ${SRCS[$h]+x} ]]; then
        echo "run.sh: unknown harness '$h' (known: ${ALL[*]})" >&2
        exit 2
    fi
done

mkdir -p "$OUT/logs" "$OUT/crashes" "$OUT/corpus-work"
failed=0

# --- build -----------------------------------------------------------------------------------

# config.h of config/default.conf, for the harnesses that run code reading it.
gen_config() {
    make --no-print-directory sources build/host/genconfig > /dev/null || return 1
    mkdir -p "$OUT/gen"
    build/host/genconfig config/default.conf "$OUT/gen/config.h" > /dev/null
}
for h in "${harnesses[@]}"; do
    if [[ " ${NEEDS_CONFIG[*]} " == *" $h "* ]]; then
        if ! gen_config 2> "$OUT/logs/config.build.log"; then
            cat "$OUT/logs/config.build.log" >&2
            echo "run.sh: generating config.h failed" >&2
            exit 1
        fi
        break
    fi
done

# lwIP for fuzz_lwip: its own archive, built with the harnesses' flags but warnings not as
# errors (third-party code, as in the image), rebuilt only when the port's headers, this script
# or the fetched sources (their stamp) change.
build_lwip() {
    local lib=$OUT/lwip/liblwip.a
    if [[ -f $lib && ! $0 -nt $lib && ! build/src/.stamp-lwip -nt $lib &&
        -z $(find net/lwip-port -name '*.h' -newer "$lib") ]]; then
        return 0
    fi
    local objs=() flags=() f o
    mkdir -p "$OUT/lwip"
    for f in "${CFLAGS[@]}"; do
        [[ $f == -Werror ]] || flags+=("$f")
    done
    for f in init def inet_chksum ip mem memp netif pbuf stats tcp tcp_in tcp_out timeouts udp \
            ipv4/icmp ipv4/ip4 ipv4/ip4_addr ipv4/ip4_frag \
            ipv6/icmp6 ipv6/inet6 ipv6/ip6 ipv6/ip6_addr ipv6/ip6_frag ipv6/nd6 ipv6/mld6; do
        o=$OUT/lwip/${f//\//_}.o
        # shellcheck disable=SC2086
        "$CC" "${flags[@]}" $LWIP_FUZZ_FLAGS -c "$LWIP_DIR/core/$f.c" -o "$o" || return 1
        objs+=("$o")
    done
    rm -f "$lib" && ar rcs "$lib" "${objs[@]}"
}
for h in "${harnesses[@]}"; do
    if [[ ${SRCS[$h]} == *liblwip.a* ]] && ! build_lwip 2> "$OUT/logs/lwip.build.log"; then
        cat "$OUT/logs/lwip.build.log" >&2
        echo "run.sh: building lwIP for $h failed" >&2
        exit 1
    fi
done
for h in "${harnesses[@]}"; do
    # shellcheck disable=SC2086 # word splitting of the source lists is intended
    if ! "$CC" "${CFLAGS[@]}" ${EXTRA[$h]:-} "tests/fuzz/$h.c" ${SRCS[$h]} -o "$OUT/$h" \
            2> "$OUT/logs/$h.build.log"; then
        cat "$OUT/logs/$h.build.log" >&2
        echo "run.sh: building $h failed" >&2
        if grep -q "libclang_rt.fuzzer" "$OUT/logs/$h.build.log"; then
            echo "run.sh: libFuzzer runtime missing: apt-get install libclang-rt-14-dev" >&2
        fi
        exit 1
    fi
done

# --- regression inputs: each must run clean ---------------------------------------------------
for h in "${harnesses[@]}"; do
    dir=tests/fuzz/regressions/$h
    [[ -d $dir ]] || continue
    mapfile -t inputs < <(find "$dir" -type f ! -name '*.md' ! -name '.*' | sort)
    [[ ${#inputs[@]} -gt 0 ]] || continue
    if "$OUT/$h" -runs=1 "${inputs[@]}" > "$OUT/logs/$h.regressions.log" 2>&1; then
        printf '%-18s regressions: %d inputs ok\n' "$h" "${#inputs[@]}"
    else
        printf '%-18s regressions: FAILED (log: %s)\n' "$h" "$OUT/logs/$h.regressions.log"
        grep -E "invariant broken|ERROR: |SUMMARY: |Running: " "$OUT/logs/$h.regressions.log" |
            head -n 8 | sed 's/^/    /'
        failed=1
    fi
done

if [[ ${FUZZ_BUILD_ONLY:-0} == 1 || $secs -eq 0 ]]; then
    exit $failed
fi

# --- fuzzing -----------------------------------------------------------------------------------
stat() { sed -n "s/^stat::$1: *//p" "$2" | tail -n 1; }

for h in "${harnesses[@]}"; do
    work=$OUT/corpus-work/$h
    crashes=$OUT/crashes/$h
    mkdir -p "$work" "$crashes"
    cp -n tests/fuzz/corpus/"$h"/* "$work"/ 2> /dev/null
    opts=(-max_total_time="$secs" -max_len=4096 -timeout=10 -rss_limit_mb=2048
        -print_final_stats=1 -artifact_prefix="$crashes/")
    [[ -f tests/fuzz/$h.dict ]] && opts+=(-dict="tests/fuzz/$h.dict")
    before=$(find "$crashes" -type f | wc -l)
    "$OUT/$h" "${opts[@]}" "$work" > "$OUT/logs/$h.log" 2>&1
    rc=$?
    execs=$(stat number_of_executed_units "$OUT/logs/$h.log")
    rate=$(stat average_exec_per_sec "$OUT/logs/$h.log")
    if [[ $rc -eq 0 ]]; then
        printf '%-18s %12s execs %8s exec/s  %ss  ok\n' "$h" "${execs:-?}" "${rate:-?}" "$secs"
        continue
    fi
    failed=1
    artifact=$(find "$crashes" -type f -newer "$OUT/$h" -printf '%T@ %p\n' | sort -n |
        tail -n 1 | cut -d' ' -f2-)
    printf '%-18s %12s execs %8s exec/s  FAILED (exit %d)\n' "$h" "${execs:-?}" "${rate:-?}" $rc
    grep -E "invariant broken|ERROR: |SUMMARY: " "$OUT/logs/$h.log" | head -n 4 | sed 's/^/    /'
    if [[ -n $artifact && $(find "$crashes" -type f | wc -l) -gt $before ]]; then
        cat <<EOF
    input:      $artifact (log: $OUT/logs/$h.log)
    reproduce:  $OUT/$h $artifact
    minimize:   $OUT/$h -minimize_crash=1 -runs=100000 -exact_artifact_path=$artifact.min $artifact
    once fixed, keep it as a regression input (replayed by every run of this script):
                mkdir -p tests/fuzz/regressions/$h
                cp $artifact tests/fuzz/regressions/$h/<what-it-was>
EOF
    else
        echo "    no input saved (log: $OUT/logs/$h.log)"
    fi
done
exit $failed
