/*
 * portico-l2probe: sends Ethernet frames out of one interface and prints the frames that
 * arrive on any interface of the network namespace for a while. The health monitor builds the
 * frames (DHCPDISCOVER, PADI, ARP probe, loop probe) and parses every answer itself
 * (health-packets.ts); this helper only does what Node cannot: AF_PACKET.
 *
 * usage: portico-l2probe <ifname> <listen-ms> <frame-hex[,frame-hex...] | -> [<ethertype-hex> | udp:<port> ...]
 * output: one line per received frame: <ifname> <pkttype> <hex of at most 1518 bytes>
 * `-` sends nothing and only listens; a comma-separated list sends up to 1024 frames one after
 * the other (an ARP probe per address in the neighbour table), and <listen-ms> counts from the
 * last. Frames we sent ourselves (PACKET_OUTGOING) are not printed; at most 4096 frames are.
 * What is listened for is filtered in the kernel (a socket filter): an ethertype, or
 * `udp:<port>`, IPv4 UDP to that port (unfragmented), so neither a busy router's own traffic
 * nor a storm on a looped LAN crowds the answers out of the queue.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/filter.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAX_FRAME 1518
#define MAX_FRAMES 4096
#define MAX_SEND 1024
#define MAX_TYPES 8

static int hexval(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

static long long now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int fail(const char *what) {
  fprintf(stderr, "portico-l2probe: %s: %s\n", what, errno ? strerror(errno) : "invalid");
  return 2;
}

int main(int argc, char **argv) {
  unsigned char frame[MAX_FRAME], buf[2048];
  unsigned short types[MAX_TYPES], ports[MAX_TYPES];
  int ntypes = 0;
  if (argc < 4 || argc > 4 + MAX_TYPES) { errno = 0; return fail("usage: <ifname> <listen-ms> <frame-hex | -> [<ethertype-hex> | udp:<port> ...]"); }
  unsigned ifindex = if_nametoindex(argv[1]);
  if (!ifindex) return fail("interface");
  char *end;
  long listen_ms = strtol(argv[2], &end, 10);
  if (*end || listen_ms < 1 || listen_ms > 10000) { errno = 0; return fail("listen-ms"); }
  int send_frame = strcmp(argv[3], "-") != 0;
  /* The frames to send, each checked before any leaves: a bad list sends nothing. */
  const char *list = argv[3];
  size_t nsend = 0, starts_at[MAX_SEND], lens[MAX_SEND];
  for (size_t at = 0; send_frame;) {
    size_t hexlen = strcspn(list + at, ",");
    if (nsend == MAX_SEND || hexlen % 2 || hexlen / 2 < 14 || hexlen / 2 > MAX_FRAME) { errno = 0; return fail("frame"); }
    for (size_t i = 0; i < hexlen; i++)
      if (hexval(list[at + i]) < 0) { errno = 0; return fail("frame"); }
    starts_at[nsend] = at;
    lens[nsend++] = hexlen / 2;
    at += hexlen;
    if (list[at] == '\0') break;
    at++;
  }
  for (int i = 4; i < argc; i++) {
    if (strncmp(argv[i], "udp:", 4) == 0) {
      long port = strtol(argv[i] + 4, &end, 10);
      if (*end || argv[i][4] == '\0' || port < 1 || port > 65535) { errno = 0; return fail("udp port"); }
      types[ntypes] = ETH_P_IP;
      ports[ntypes++] = (unsigned short)port;
      continue;
    }
    long type = strtol(argv[i], &end, 16);
    if (*end || type < 0x0600 || type > 0xffff) { errno = 0; return fail("ethertype"); }
    types[ntypes] = (unsigned short)type;
    ports[ntypes++] = 0;
  }

  /* Listening starts before the frame leaves, so a fast answer is not missed. */
  int rx = socket(AF_PACKET, SOCK_RAW, htons(ETH_P_ALL));
  if (rx < 0) return fail("capture socket");
  if (ntypes > 0) {
    /*
     * One block per filter, each falling through to the next when it does not match, then
     * "reject" and "accept". An ethertype: ldh [12]; jeq type -> accept. A UDP port: the
     * ethertype IPv4, protocol 17, no fragment offset, then the destination port after the
     * IPv4 header (its length from the header) -> accept.
     */
    struct sock_filter code[MAX_TYPES * 9 + 2];
    int starts[MAX_TYPES + 1], at = 0;
    for (int i = 0; i < ntypes; i++) { starts[i] = at; at += ports[i] ? 9 : 2; }
    starts[ntypes] = at;
    int reject = at, accept = at + 1;
#define OFF(from, to) ((unsigned char)((to) - (from) - 1))
    for (int i = 0; i < ntypes; i++) {
      int b = starts[i], next = starts[i + 1];
      code[b] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_H | BPF_ABS, 12);
      if (!ports[i]) {
        code[b + 1] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, types[i], OFF(b + 1, accept), 0);
        continue;
      }
      code[b + 1] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ETH_P_IP, 0, OFF(b + 1, next));
      code[b + 2] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_B | BPF_ABS, 23);
      code[b + 3] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 17, 0, OFF(b + 3, next));
      code[b + 4] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_H | BPF_ABS, 20);
      code[b + 5] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, 0x1fff, OFF(b + 5, next), 0);
      code[b + 6] = (struct sock_filter)BPF_STMT(BPF_LDX | BPF_B | BPF_MSH, 14);
      code[b + 7] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_H | BPF_IND, 16);
      code[b + 8] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ports[i], OFF(b + 8, accept), 0);
    }
#undef OFF
    code[reject] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, 0);
    code[accept] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, 0xffff);
    struct sock_fprog prog = { .len = (unsigned short)(accept + 1), .filter = code };
    if (setsockopt(rx, SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof prog) < 0) return fail("socket filter");
    /* Frames queued before the filter was attached are read and dropped below by type. */
  }
  if (send_frame) {
    int tx = socket(AF_PACKET, SOCK_RAW, 0);
    if (tx < 0) return fail("send socket");
    for (size_t f = 0; f < nsend; f++) {
      for (size_t i = 0; i < lens[f]; i++) frame[i] = (unsigned char)(hexval(list[starts_at[f] + 2 * i]) << 4 | hexval(list[starts_at[f] + 2 * i + 1]));
      struct sockaddr_ll to = { .sll_family = AF_PACKET, .sll_ifindex = (int)ifindex, .sll_halen = ETH_ALEN };
      memcpy(to.sll_addr, frame, ETH_ALEN);
      if (sendto(tx, frame, lens[f], 0, (struct sockaddr *)&to, sizeof to) != (ssize_t)lens[f]) return fail("send");
    }
  }

  long long deadline = now_ms() + listen_ms;
  int printed = 0;
  for (;;) {
    long long left = deadline - now_ms();
    if (left <= 0 || printed >= MAX_FRAMES) break;
    struct pollfd p = { .fd = rx, .events = POLLIN };
    int ready = poll(&p, 1, (int)left);
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) break;
    struct sockaddr_ll from;
    socklen_t fromlen = sizeof from;
    ssize_t n = recvfrom(rx, buf, sizeof buf, MSG_TRUNC, (struct sockaddr *)&from, &fromlen);
    if (n < 14 || from.sll_pkttype == PACKET_OUTGOING) continue;
    if (n > MAX_FRAME) n = MAX_FRAME;
    unsigned short type = (unsigned short)(buf[12] << 8 | buf[13]);
    int wanted = ntypes == 0;
    for (int i = 0; i < ntypes; i++) wanted |= types[i] == type;
    if (!wanted) continue;
    char name[IF_NAMESIZE] = "?";
    if (!if_indextoname((unsigned)from.sll_ifindex, name)) strcpy(name, "?");
    printf("%s %u ", name, (unsigned)from.sll_pkttype);
    for (ssize_t i = 0; i < n; i++) printf("%02x", buf[i]);
    putchar('\n');
    printed++;
  }
  fflush(stdout);
  return 0;
}
