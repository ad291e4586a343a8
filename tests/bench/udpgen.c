/*
 * tests/bench/udpgen.c: a minimal 64-byte UDP frame generator for the benchmarks. Sends
 * pre-built Ethernet frames through an AF_PACKET socket with sendmmsg, cycling over `flows`
 * source ports, for `seconds`, then prints "sent N" on stdout. Runs inside a test namespace
 * against the appliance's port only (the frames carry the addresses given on the command line).
 * Usage: udpgen IFNAME DST_MAC SRC_IP DST_IP FLOWS SECONDS
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <netinet/ip.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define FRAME_BYTES 60 /* 64 on the wire with the CRC */
#define BATCH 64
#define MAX_FLOWS 4096

static uint16_t csum16(const uint8_t *p, size_t n)
{
    uint32_t s = 0;
    for (size_t i = 0; i + 1 < n; i += 2) {
        s += (uint32_t)(p[i] << 8 | p[i + 1]);
    }
    while (s >> 16) {
        s = (s & 0xFFFF) + (s >> 16);
    }
    return (uint16_t)~s;
}

static void build_frame(uint8_t *f, const uint8_t dst[6], const uint8_t src[6], uint32_t sip,
                        uint32_t dip, uint16_t sport)
{
    memset(f, 0, FRAME_BYTES);
    memcpy(f, dst, 6);
    memcpy(f + 6, src, 6);
    f[12] = 0x08, f[13] = 0x00;
    uint8_t *ip = f + 14;
    ip[0] = 0x45;             /* IPv4, 20-byte header */
    ip[2] = 0, ip[3] = 46;    /* total length: 20 IP + 8 UDP + 18 payload = 60 - 14 */
    ip[8] = 64, ip[9] = 17;   /* TTL, UDP */
    memcpy(ip + 12, &sip, 4);
    memcpy(ip + 16, &dip, 4);
    uint16_t c = csum16(ip, 20);
    ip[10] = (uint8_t)(c >> 8), ip[11] = (uint8_t)c;
    uint8_t *udp = ip + 20;
    udp[0] = (uint8_t)(sport >> 8), udp[1] = (uint8_t)sport;
    udp[2] = 0, udp[3] = 9; /* discard */
    udp[4] = 0, udp[5] = 26;  /* checksum 0: none (RFC 768) */
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
    if (argc != 7) {
        fprintf(stderr, "usage: udpgen IFNAME DST_MAC SRC_IP DST_IP FLOWS SECONDS\n");
        return 2;
    }
    uint8_t dst[6], src[6];
    unsigned flows = (unsigned)atoi(argv[5]);
    double seconds = atof(argv[6]);
    if (sscanf(argv[2], "%hhx:%hhx:%hhx:%hhx:%hhx:%hhx", &dst[0], &dst[1], &dst[2], &dst[3],
               &dst[4], &dst[5]) != 6 || flows == 0 || flows > MAX_FLOWS || seconds <= 0) {
        fprintf(stderr, "udpgen: bad arguments\n");
        return 2;
    }
    int fd = socket(AF_PACKET, SOCK_RAW, 0);
    struct ifreq ifr = { 0 };
    snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", argv[1]);
    if (fd < 0 || ioctl(fd, SIOCGIFINDEX, &ifr) < 0) {
        perror("udpgen: socket/interface");
        return 1;
    }
    struct sockaddr_ll sll = { .sll_family = AF_PACKET, .sll_ifindex = ifr.ifr_ifindex };
    if (ioctl(fd, SIOCGIFHWADDR, &ifr) < 0 || bind(fd, (struct sockaddr *)&sll, sizeof(sll))) {
        perror("udpgen: bind");
        return 1;
    }
    memcpy(src, ifr.ifr_hwaddr.sa_data, 6);
    static uint8_t frames[MAX_FLOWS][FRAME_BYTES];
    for (unsigned i = 0; i < flows; i++) {
        build_frame(frames[i], dst, src, inet_addr(argv[3]), inet_addr(argv[4]),
                    (uint16_t)(40000 + i));
    }
    struct mmsghdr msgs[BATCH];
    struct iovec iov[BATCH];
    unsigned long long sent = 0;
    double end = now_s() + seconds;
    unsigned next = 0;
    while (now_s() < end) {
        for (int i = 0; i < BATCH; i++) {
            iov[i].iov_base = frames[next];
            iov[i].iov_len = FRAME_BYTES;
            next = (next + 1) % flows;
            memset(&msgs[i], 0, sizeof(msgs[i]));
            msgs[i].msg_hdr.msg_iov = &iov[i];
            msgs[i].msg_hdr.msg_iovlen = 1;
        }
        int n = sendmmsg(fd, msgs, BATCH, 0);
        if (n > 0) {
            sent += (unsigned)n;
        }
    }
    printf("sent %llu\n", sent);
    return 0;
}
