# tests/bench/sink_build.sh: sourced by sink_bench.sh and crr_bench.sh. sink_build NAME SIMSRC
# [EXTRA_FW_SRCS]: builds $OUT/NAME from the host program SIMSRC and the sink's receive path
# (handoff, glue, lwIP, plus EXTRA_FW_SRCS) compiled with the firmware's code generation (-O2,
# frame pointers, -ffreestanding, no red zone; lwIP with our warnings, not as errors), the rest
# of the firmware stood in for by tests/fakes/fake_sink_platform.c. Expects CC and OUT.
sink_build() {
    name=$1
    fw_srcs="net/handoff.c drivers/nic/nic_tx.c net/iface.c net/inet.c net/inet6.c apps/sink/sink.c \
apps/sink/basic.c net/lwip-port/sink_netif.c net/gro.c net/lwip-port/isn.c net/lwip-port/sys_arch.c \
net/lwip-port/tcp_hooks.c net/lwip-port/siphash.c kernel/pkb.c kernel/err.c ${3:-}"
    lwip_dir=build/src/lwip-2.1.3/src
    lwip_srcs="init def inet_chksum ip mem memp netif pbuf stats tcp tcp_in tcp_out timeouts udp \
ipv4/icmp ipv4/ip4 ipv4/ip4_addr ipv4/ip4_frag ipv6/icmp6 ipv6/inet6 ipv6/ip6 ipv6/ip6_addr \
ipv6/ip6_frag ipv6/nd6 ipv6/mld6"
    sim_srcs="$2 tests/fakes/fake_sink_platform.c tests/fakes/fake_tso.c tests/hostsim/sink_peer.c"
    fw_cflags="-std=gnu11 -O2 -g -Wall -Wextra -Werror -ffreestanding -fno-common -mno-red-zone \
-mcmodel=small -fno-pic -fno-pie -fno-stack-protector -fno-omit-frame-pointer \
-mno-omit-leaf-frame-pointer -fno-asynchronous-unwind-tables"
    lwip_cflags=$(echo "$fw_cflags" | sed 's/ -Wextra -Werror//')
    sim_cflags="-std=gnu11 -O2 -g -Wall -Wextra -Werror -fno-pie -fno-omit-frame-pointer"
    # tests/hostsim/hostinc: <reent.h> for kernel/percpu.h (netperf reads the core's counters)
    inc="-I. -iquote kernel -Inet/lwip-port -I$lwip_dir/include -Itests/hostsim/hostinc"

    make --no-print-directory build/host/genconfig sources >/dev/null
    dir="$OUT/$name.d"
    mkdir -p "$dir/gen"
    build/host/genconfig config/default.conf "$dir/gen/config.h" >/dev/null
    objs=""
    for src in $fw_srcs; do
        obj="$dir/$(echo "$src" | tr / _ | sed 's/\.c$/.o/')"
        # shellcheck disable=SC2086 # word splitting of the flag lists is wanted
        "$CC" $fw_cflags $inc -iquote "$dir/gen" -c "$src" -o "$obj"
        objs="$objs $obj"
    done
    for src in $lwip_srcs; do
        obj="$dir/lwip_$(echo "$src" | tr / _).o"
        # shellcheck disable=SC2086
        "$CC" $lwip_cflags $inc -c "$lwip_dir/core/$src.c" -o "$obj"
        objs="$objs $obj"
    done
    # shellcheck disable=SC2086
    "$CC" $sim_cflags $inc -iquote "$dir/gen" $sim_srcs $objs -no-pie -o "$OUT/$name"
}
