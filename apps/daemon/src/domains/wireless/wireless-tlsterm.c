/*
 * portico-tlsterm: terminates the wireless controller's device TLS (mutual TLS against the
 * device CA) and hands the plaintext of every connection to the daemon over one stream socket
 * (file descriptor 3, the daemon's end of a socketpair), where its WebSocket code runs.
 *
 * Why: Node keeps OpenSSL's read and write buffers for the life of each TLS socket (it never
 * sets SSL_MODE_RELEASE_BUFFERS), about 100 KB per device link with client certificates; with
 * 10,000 APs that is the whole memory budget. Here an idle link holds only its SSL state.
 *
 * The daemon learns which device is on which connection from this process only: a connection
 * is announced once its handshake verified a client certificate chaining to the device CA,
 * with that certificate (DER), and every later frame names the connection by an id this
 * process chose. Devices never choose ids, so one cannot speak on another's connection.
 *
 * Frames both ways: type (1 byte), connection id (4 bytes, big-endian), length (4 bytes,
 * big-endian), payload.
 *   to the daemon:   1 OPEN  remote address, local address (each: 1 byte length, text), DER
 *                    2 DATA  plaintext from the device
 *                    3 CLOSE the connection is gone
 *                    4 ACCEPT a TCP connection arrived (before TLS), id 0, no payload
 *                    5 READY listening; payload: the port (text)
 *   from the daemon: 2 DATA  plaintext to the device
 *                    3 CLOSE send what is queued, then close
 *                    6 CERT  new server key and certificate for new connections:
 *                            key length (4 bytes), key PEM, certificate PEM
 *
 * Usage: portico-tlsterm <host> <port> <ca.pem> <key.pem> <cert.pem>
 * SIGUSR1 writes one line of memory figures to stderr (open connections, malloc'd bytes in use,
 * free bytes the heap holds, the slabs' bytes and bytes in use): where its memory goes, measured
 * (wireless README).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MUX_FD 3
#define T_OPEN 1
#define T_DATA 2
#define T_CLOSE 3
#define T_ACCEPT 4
#define T_READY 5
#define T_CERT 6
#define HEADER 9
/* A TLS handshake must finish within this (the daemon times the WebSocket upgrade after it). */
#define HANDSHAKE_SECONDS 10
/* TCP keep-alive finds devices that vanished without closing. */
#define KEEPALIVE_IDLE 60
/* Above this much unsent to the daemon, devices are not read until it drains below LOW: what
   waits stays in each connection's socket buffer, so one device's answer does not queue behind
   megabytes of other devices' reports (the stream to the daemon is first in, first out). */
#define MUX_HIGH (256u << 10)
#define MUX_LOW (64u << 10)
/* A device that does not read what the daemon sends it is cut past this. */
#define CONN_OUT_MAX (4u << 20)
/* Largest frame the daemon sends (a WebSocket message and its framing, or a certificate). */
#define FRAME_MAX (2u << 20)
#define READ_CHUNK 16384

struct buf {
  unsigned char *data;
  size_t start, len, cap;
};

struct conn {
  int fd;
  uint32_t id;
  SSL *ssl;
  int open;          /* handshake done and announced */
  int closing;       /* the daemon asked to close once the queue is sent */
  int blocked;       /* readable, but the daemon's stream was full */
  int dead;          /* closed; freed once the current batch of events is handled */
  time_t deadline;   /* handshake deadline */
  struct buf out;    /* plaintext queued for the device */
  struct conn *next_blocked;
  struct conn *prev, *next; /* all connections */
};

static int epfd;
static int listen_fd;
static int spare_fd;
static SSL_CTX *ctx;
static struct buf mux_out, mux_in;
static int mux_writable = 1;
static uint32_t next_id = 1;
static struct conn *conns;
static struct conn *blocked, *blocked_tail; /* waiting to be read, in the order they waited */
/* Closed connections whose memory waits for the end of the event batch that may still name them. */
static struct conn *graveyard;
/* Connections by id: the daemon names them so. Open addressing on id; ids are never reused. */
static struct conn **table;
static size_t table_cap, table_used;
/* Set by SIGUSR1; the line is written from the loop (stdio is not for signal handlers). */
static volatile sig_atomic_t stats_wanted;

/*
 * OpenSSL's memory (CRYPTO_set_mem_functions): size classes 8 bytes apart up to SLAB_LARGEST,
 * each carved from 64 KB slabs of one class out of one reserved region, larger blocks from
 * malloc. An idle connection holds about 150 small OpenSSL blocks (measured, wireless README);
 * glibc adds an 8-byte header to each and rounds to 16 bytes, at least 32, while a block here
 * costs its size rounded to 8. A block's class is its slab's, found from its address, so
 * nothing is stored beside it. This process has one thread: no locks.
 */
#define SLAB_SHIFT 16
#define SLAB_BYTES ((size_t)1 << SLAB_SHIFT)
#define SLAB_LARGEST 1024
#define SLAB_CLASSES (SLAB_LARGEST / 8)
/* Address space reserved, not memory: pages count only once touched. */
#define SLAB_REGION ((size_t)2 << 30)

static unsigned char *slab_base;
static size_t slab_next;                        /* slabs handed out so far */
static unsigned char *slab_class;               /* per slab: its class (index + 1), 0 if none */
static void *slab_free[SLAB_CLASSES];           /* freed blocks of each class, linked through themselves */
static unsigned char *slab_bump[SLAB_CLASSES];  /* the unused end of each class's newest slab */
static unsigned char *slab_end[SLAB_CLASSES];
static size_t slab_in_use;                      /* bytes in blocks handed out */

static int slab_owns(const void *p) {
  return slab_base && (const unsigned char *)p >= slab_base && (const unsigned char *)p < slab_base + SLAB_REGION;
}

static void *slab_alloc(size_t n) {
  if (n == 0) n = 1;
  if (n > SLAB_LARGEST || !slab_base) return malloc(n);
  size_t k = (n + 7) / 8 - 1, size = (k + 1) * 8;
  void *p = slab_free[k];
  if (p) {
    slab_free[k] = *(void **)p;
  } else {
    if (!slab_bump[k] || (size_t)(slab_end[k] - slab_bump[k]) < size) {
      if ((slab_next + 1) << SLAB_SHIFT > SLAB_REGION) return malloc(n);
      slab_class[slab_next] = (unsigned char)(k + 1);
      slab_bump[k] = slab_base + (slab_next << SLAB_SHIFT);
      slab_end[k] = slab_bump[k] + SLAB_BYTES;
      slab_next++;
    }
    p = slab_bump[k];
    slab_bump[k] += size;
  }
  slab_in_use += size;
  return p;
}

static size_t slab_size(const void *p) {
  return (size_t)slab_class[(size_t)((const unsigned char *)p - slab_base) >> SLAB_SHIFT] * 8;
}

static void slab_release(void *p) {
  if (!p) return;
  if (!slab_owns(p)) return free(p);
  size_t size = slab_size(p);
  *(void **)p = slab_free[size / 8 - 1];
  slab_free[size / 8 - 1] = p;
  slab_in_use -= size;
}

static void *ossl_malloc(size_t n, const char *file, int line) {
  (void)file;
  (void)line;
  return slab_alloc(n);
}

static void ossl_free(void *p, const char *file, int line) {
  (void)file;
  (void)line;
  slab_release(p);
}

static void *ossl_realloc(void *p, size_t n, const char *file, int line) {
  (void)file;
  (void)line;
  if (!p) return slab_alloc(n);
  if (n == 0) {
    slab_release(p);
    return NULL;
  }
  /* A block from malloc stays malloc's: its old size is malloc's to know. */
  if (!slab_owns(p)) return realloc(p, n);
  size_t size = slab_size(p);
  if (n <= size && n > size - 8) return p;
  void *fresh = slab_alloc(n);
  if (!fresh) return NULL;
  memcpy(fresh, p, n < size ? n : size);
  slab_release(p);
  return fresh;
}

/* Before any other OpenSSL call; without the region OpenSSL keeps malloc. */
static void slab_init(void) {
  void *region = mmap(NULL, SLAB_REGION, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  slab_class = calloc(SLAB_REGION >> SLAB_SHIFT, 1);
  if (region == MAP_FAILED || !slab_class) return;
  /* A block's slab is its offset in the region shifted; slabs start on pages, so a class that is
     a multiple of 16 bytes gives 16-byte aligned blocks, and one of 8 mod 16 (the size of no
     object that needs 16) gives 8. */
  slab_base = region;
  if (!CRYPTO_set_mem_functions(ossl_malloc, ossl_realloc, ossl_free)) slab_base = NULL;
}

static void want_stats(int sig) {
  (void)sig;
  stats_wanted = 1;
}

/* Where the heap goes: malloc'd bytes in use against what the heap holds (the rest is free space
   glibc has not given back), per open connection. */
static void print_stats(void) {
  struct mallinfo2 m = mallinfo2();
  size_t n = 0;
  for (struct conn *c = conns; c; c = c->next) n++;
  fprintf(stderr, "portico-tlsterm: connections %zu in_use %zu free_in_heap %zu mmapped %zu arena %zu slabs %zu slab_in_use %zu\n", n, m.uordblks, m.fordblks, m.hblkhd, m.arena, slab_next * SLAB_BYTES, slab_in_use);
}

static void die(const char *what) {
  fprintf(stderr, "portico-tlsterm: %s\n", what);
  ERR_print_errors_fp(stderr);
  exit(1);
}

static void buf_reserve(struct buf *b, size_t more) {
  if (b->start > 0 && b->start + b->len + more > b->cap) {
    memmove(b->data, b->data + b->start, b->len);
    b->start = 0;
  }
  if (b->len + more <= b->cap) return;
  size_t cap = b->cap ? b->cap : 4096;
  while (cap < b->len + more) cap *= 2;
  b->data = realloc(b->data, cap);
  if (!b->data) die("out of memory");
  b->cap = cap;
}

static void buf_append(struct buf *b, const void *data, size_t n) {
  buf_reserve(b, n);
  memcpy(b->data + b->start + b->len, data, n);
  b->len += n;
}

static void buf_consume(struct buf *b, size_t n) {
  b->start += n;
  b->len -= n;
  if (b->len == 0) {
    b->start = 0;
    /* An idle connection keeps no buffer, and the stream to the daemon no big one. */
    if (b->cap > 131072 || (b != &mux_out && b != &mux_in)) {
      free(b->data);
      b->data = NULL;
      b->cap = 0;
    }
  }
}

static void put32(unsigned char *p, uint32_t v) {
  p[0] = v >> 24;
  p[1] = v >> 16;
  p[2] = v >> 8;
  p[3] = v;
}

static uint32_t get32(const unsigned char *p) {
  return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void mux_flush(void);

static void mux_frame(int type, uint32_t id, const void *a, size_t alen, const void *b, size_t blen) {
  unsigned char header[HEADER];
  header[0] = type;
  put32(header + 1, id);
  put32(header + 5, alen + blen);
  buf_append(&mux_out, header, HEADER);
  if (alen) buf_append(&mux_out, a, alen);
  if (blen) buf_append(&mux_out, b, blen);
}

static void mux_flush(void) {
  while (mux_out.len && mux_writable) {
    ssize_t n = write(MUX_FD, mux_out.data + mux_out.start, mux_out.len);
    if (n > 0) {
      buf_consume(&mux_out, n);
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      mux_writable = 0;
    } else {
      exit(0); /* the daemon is gone */
    }
  }
}

static size_t slot_of(uint32_t id, size_t cap) {
  return (id * 2654435761u) & (cap - 1);
}

static void table_put(struct conn *c) {
  if ((table_used + 1) * 2 > table_cap) {
    size_t cap = table_cap ? table_cap * 2 : 1024;
    struct conn **fresh = calloc(cap, sizeof *fresh);
    if (!fresh) die("out of memory");
    for (size_t i = 0; i < table_cap; i++) {
      if (!table[i]) continue;
      size_t s = slot_of(table[i]->id, cap);
      while (fresh[s]) s = (s + 1) & (cap - 1);
      fresh[s] = table[i];
    }
    free(table);
    table = fresh;
    table_cap = cap;
  }
  size_t s = slot_of(c->id, table_cap);
  while (table[s]) s = (s + 1) & (table_cap - 1);
  table[s] = c;
  table_used++;
}

static struct conn *table_get(uint32_t id) {
  if (!table_cap) return NULL;
  for (size_t s = slot_of(id, table_cap); table[s]; s = (s + 1) & (table_cap - 1))
    if (table[s]->id == id) return table[s];
  return NULL;
}

static void table_remove(uint32_t id) {
  size_t s = slot_of(id, table_cap);
  while (table[s] && table[s]->id != id) s = (s + 1) & (table_cap - 1);
  if (!table[s]) return;
  table[s] = NULL;
  table_used--;
  /* Re-seat the rest of the cluster so lookups never stop at the hole. */
  for (size_t t = (s + 1) & (table_cap - 1); table[t]; t = (t + 1) & (table_cap - 1)) {
    struct conn *c = table[t];
    table[t] = NULL;
    size_t u = slot_of(c->id, table_cap);
    while (table[u]) u = (u + 1) & (table_cap - 1);
    table[u] = c;
  }
}

static void unblock(struct conn *c) {
  if (!c->blocked) return;
  struct conn *before = NULL;
  for (struct conn *p = blocked; p; before = p, p = p->next_blocked) {
    if (p != c) continue;
    if (before) before->next_blocked = c->next_blocked;
    else blocked = c->next_blocked;
    if (blocked_tail == c) blocked_tail = before;
    break;
  }
  c->blocked = 0;
}

static void conn_free(struct conn *c, int tell) {
  if (c->dead) return;
  if (c->open && tell) mux_frame(T_CLOSE, c->id, NULL, 0, NULL, 0);
  if (c->open) table_remove(c->id);
  unblock(c);
  if (c->prev) c->prev->next = c->next;
  else conns = c->next;
  if (c->next) c->next->prev = c->prev;
  SSL_free(c->ssl);
  close(c->fd);
  free(c->out.data);
  c->dead = 1;
  c->next = graveyard;
  graveyard = c;
}

static void address_text(const struct sockaddr_storage *sa, char *out, size_t size) {
  if (sa->ss_family == AF_INET) inet_ntop(AF_INET, &((const struct sockaddr_in *)sa)->sin_addr, out, size);
  else if (sa->ss_family == AF_INET6) inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)sa)->sin6_addr, out, size);
  else snprintf(out, size, "unknown");
}

static int port_of(const struct sockaddr_storage *sa) {
  return ntohs(sa->ss_family == AF_INET ? ((const struct sockaddr_in *)sa)->sin_port : ((const struct sockaddr_in6 *)sa)->sin6_port);
}


/* Stands in for every device's public key in the certificates OpenSSL keeps (forget_peer). */
static EVP_PKEY *stand_in_key;
static X509_NAME *empty_name;
static ASN1_INTEGER *serial_one;

/*
 * OpenSSL keeps the client certificate it verified for the connection's life (its session's
 * peer) and has no call to let go of it. Once the connection is announced with that
 * certificate's DER, nothing here reads it again: no renegotiation (refused), no post-handshake
 * authentication (never asked), no session cache or tickets to resume from. So its bulk goes:
 * its decoded public key (a P-256 key and its curve, about 2 KB) for one shared key, its names,
 * extensions and serial for empty ones, about 2.8 KB a connection in all (measured, wireless
 * README).
 */
static void forget_peer(X509 *peer) {
  if (!stand_in_key) return;
  X509_set_pubkey(peer, stand_in_key);
  X509_set_subject_name(peer, empty_name);
  X509_set_issuer_name(peer, empty_name);
  while (X509_get_ext_count(peer) > 0) X509_EXTENSION_free(X509_delete_ext(peer, 0));
  X509_set_serialNumber(peer, serial_one);
  ERR_clear_error();
}

/* Announces a verified connection: its addresses (as Node writes them) and its certificate. */
static int announce(struct conn *c) {
  X509 *peer = SSL_get1_peer_certificate(c->ssl);
  if (!peer || SSL_get_verify_result(c->ssl) != X509_V_OK) {
    X509_free(peer);
    return -1;
  }
  unsigned char *der = NULL;
  int der_len = i2d_X509(peer, &der);
  if (der_len <= 0) {
    X509_free(peer);
    return -1;
  }
  forget_peer(peer);
  X509_free(peer);
  struct sockaddr_storage remote, local;
  socklen_t rl = sizeof remote, ll = sizeof local;
  char rhost[INET6_ADDRSTRLEN], lhost[INET6_ADDRSTRLEN];
  if (getpeername(c->fd, (struct sockaddr *)&remote, &rl) < 0 || getsockname(c->fd, (struct sockaddr *)&local, &ll) < 0) {
    OPENSSL_free(der);
    return -1;
  }
  address_text(&remote, rhost, sizeof rhost);
  address_text(&local, lhost, sizeof lhost);
  char addresses[2 * (INET6_ADDRSTRLEN + 8)];
  int rlen = snprintf((char *)addresses + 1, INET6_ADDRSTRLEN + 7, "%s %d", rhost, port_of(&remote));
  addresses[0] = (char)rlen;
  int llen = (int)strlen(lhost);
  addresses[1 + rlen] = (char)llen;
  memcpy(addresses + 2 + rlen, lhost, llen);
  c->id = next_id++;
  if (next_id == 0) next_id = 1;
  c->open = 1;
  table_put(c);
  mux_frame(T_OPEN, c->id, addresses, 2 + rlen + llen, der, der_len);
  OPENSSL_free(der);
  return 0;
}

/* Sends what is queued for the device; -1 when the connection is to be dropped. */
static int conn_write(struct conn *c) {
  while (c->out.len) {
    ERR_clear_error();
    int n = SSL_write(c->ssl, c->out.data + c->out.start, c->out.len > 1 << 30 ? 1 << 30 : (int)c->out.len);
    if (n > 0) {
      buf_consume(&c->out, n);
      continue;
    }
    int e = SSL_get_error(c->ssl, n);
    if (e == SSL_ERROR_WANT_WRITE || e == SSL_ERROR_WANT_READ) return 0;
    return -1;
  }
  if (c->closing) {
    SSL_shutdown(c->ssl);
    return -1;
  }
  return 0;
}

/* Reads what the device sent, onto the stream to the daemon; -1 when the connection ended. */
static int conn_read(struct conn *c) {
  unsigned char chunk[READ_CHUNK];
  for (;;) {
    if (mux_out.len >= MUX_HIGH) {
      if (!c->blocked) {
        c->blocked = 1;
        c->next_blocked = NULL;
        if (blocked_tail) blocked_tail->next_blocked = c;
        else blocked = c;
        blocked_tail = c;
      }
      return 0;
    }
    ERR_clear_error();
    int n = SSL_read(c->ssl, chunk, sizeof chunk);
    if (n > 0) {
      if (!c->closing) mux_frame(T_DATA, c->id, chunk, n, NULL, 0);
      continue;
    }
    int e = SSL_get_error(c->ssl, n);
    if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE) return 0;
    return -1;
  }
}

static void conn_event(struct conn *c) {
  if (c->dead) return;
  if (!c->open) {
    ERR_clear_error();
    int r = SSL_accept(c->ssl);
    if (r != 1) {
      int e = SSL_get_error(c->ssl, r);
      if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE) return;
      conn_free(c, 0);
      return;
    }
    if (announce(c) < 0) {
      conn_free(c, 0);
      return;
    }
  }
  if (conn_read(c) < 0 || conn_write(c) < 0) conn_free(c, 1);
}

static void set_keepalive(int fd) {
  int on = 1, idle = KEEPALIVE_IDLE, interval = 10, count = 6;
  setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &on, sizeof on);
  setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof idle);
  setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &interval, sizeof interval);
  setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &count, sizeof count);
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
}

static void accept_all(void) {
  for (;;) {
    int fd = accept4(listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      if (errno == EMFILE || errno == ENFILE) {
        /* Out of descriptors: take the waiting connection with the spare one and drop it, so the
           listener does not stay readable forever. */
        close(spare_fd);
        fd = accept(listen_fd, NULL, NULL);
        if (fd >= 0) close(fd);
        spare_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
        continue;
      }
      return;
    }
    mux_frame(T_ACCEPT, 0, NULL, 0, NULL, 0);
    set_keepalive(fd);
    struct conn *c = calloc(1, sizeof *c);
    SSL *ssl = c ? SSL_new(ctx) : NULL;
    if (!ssl) {
      free(c);
      close(fd);
      ERR_clear_error();
      continue;
    }
    c->fd = fd;
    c->ssl = ssl;
    c->deadline = time(NULL) + HANDSHAKE_SECONDS;
    SSL_set_fd(ssl, fd);
    c->next = conns;
    if (conns) conns->prev = c;
    conns = c;
    struct epoll_event ev = {.events = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET, .data.ptr = c};
    if (epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev) < 0) conn_free(c, 0);
  }
}

static SSL_CTX *context_from(const char *ca_file, const void *key_pem, size_t key_len, const void *cert_pem, size_t cert_len) {
  SSL_CTX *fresh = SSL_CTX_new(TLS_server_method());
  if (!fresh) return NULL;
  SSL_CTX_set_min_proto_version(fresh, TLS1_2_VERSION);
  /* Buffers are freed while a connection is idle: the point of this helper. */
  SSL_CTX_set_mode(fresh, SSL_MODE_RELEASE_BUFFERS | SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
  /* Devices keep one long connection: no session cache or tickets to hold per connection. */
  SSL_CTX_set_session_cache_mode(fresh, SSL_SESS_CACHE_OFF);
  SSL_CTX_set_num_tickets(fresh, 0);
  SSL_CTX_set_options(fresh, SSL_OP_NO_TICKET | SSL_OP_NO_RENEGOTIATION | SSL_OP_CIPHER_SERVER_PREFERENCE);
  SSL_CTX_set_verify(fresh, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, NULL);
  int ok = SSL_CTX_load_verify_locations(fresh, ca_file, NULL) == 1;
  BIO *kb = BIO_new_mem_buf(key_pem, (int)key_len), *cb = BIO_new_mem_buf(cert_pem, (int)cert_len);
  EVP_PKEY *key = kb ? PEM_read_bio_PrivateKey(kb, NULL, NULL, NULL) : NULL;
  X509 *cert = cb ? PEM_read_bio_X509(cb, NULL, NULL, NULL) : NULL;
  ok = ok && key && cert && SSL_CTX_use_certificate(fresh, cert) == 1 && SSL_CTX_use_PrivateKey(fresh, key) == 1 && SSL_CTX_check_private_key(fresh) == 1;
  /* Only the device CA is named as acceptable to clients. */
  STACK_OF(X509_NAME) *names = SSL_load_client_CA_file(ca_file);
  if (names) SSL_CTX_set_client_CA_list(fresh, names);
  else ok = 0;
  EVP_PKEY_free(key);
  X509_free(cert);
  BIO_free(kb);
  BIO_free(cb);
  if (!ok) {
    SSL_CTX_free(fresh);
    return NULL;
  }
  return fresh;
}

static char *read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  size_t cap = 8192, n = 0;
  char *data = malloc(cap);
  for (size_t got; data && (got = fread(data + n, 1, cap - n, f)) > 0;) {
    n += got;
    if (n == cap) data = realloc(data, cap *= 2);
  }
  fclose(f);
  *len = n;
  return data;
}

static const char *ca_path;

/* Frames from the daemon. */
static void mux_receive(void) {
  for (;;) {
    buf_reserve(&mux_in, 65536);
    ssize_t n = read(MUX_FD, mux_in.data + mux_in.start + mux_in.len, mux_in.cap - mux_in.start - mux_in.len);
    if (n == 0) exit(0); /* the daemon closed its end */
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) break;
      exit(0);
    }
    mux_in.len += n;
    while (mux_in.len >= HEADER) {
      const unsigned char *h = mux_in.data + mux_in.start;
      uint32_t id = get32(h + 1), len = get32(h + 5);
      if (len > FRAME_MAX) die("frame from the daemon too large");
      if (mux_in.len < HEADER + len) break;
      const unsigned char *payload = h + HEADER;
      struct conn *c = h[0] == T_DATA || h[0] == T_CLOSE ? table_get(id) : NULL;
      if (h[0] == T_DATA && c && !c->closing) {
        buf_append(&c->out, payload, len);
        if (c->out.len > CONN_OUT_MAX || conn_write(c) < 0) conn_free(c, 1);
      } else if (h[0] == T_CLOSE && c) {
        c->closing = 1;
        if (conn_write(c) < 0) conn_free(c, 0);
      } else if (h[0] == T_CERT && len >= 4) {
        uint32_t key_len = get32(payload);
        SSL_CTX *fresh = key_len <= len - 4 ? context_from(ca_path, payload + 4, key_len, payload + 4 + key_len, len - 4 - key_len) : NULL;
        if (fresh) {
          /* Open connections keep the context they were made with (reference counted). */
          SSL_CTX_free(ctx);
          ctx = fresh;
        } else {
          fprintf(stderr, "portico-tlsterm: the new server certificate was not usable; keeping the old one\n");
          ERR_clear_error();
        }
      }
      buf_consume(&mux_in, HEADER + len);
    }
  }
}

static void expire_handshakes(void) {
  time_t now = time(NULL);
  for (struct conn *c = conns, *next; c; c = next) {
    next = c->next;
    if (!c->open && now >= c->deadline) conn_free(c, 0);
  }
}

static void resume_blocked(void) {
  while (blocked && mux_out.len < MUX_LOW) {
    struct conn *c = blocked;
    blocked = c->next_blocked;
    if (!blocked) blocked_tail = NULL;
    c->blocked = 0;
    if (conn_read(c) < 0) conn_free(c, 1);
  }
}

int main(int argc, char **argv) {
  if (argc != 6) {
    fprintf(stderr, "usage: portico-tlsterm <host> <port> <ca.pem> <key.pem> <cert.pem>\n");
    return 2;
  }
  slab_init();
  prctl(PR_SET_PDEATHSIG, SIGTERM);
  /* One descriptor per device: the soft limit (1024 under systemd) goes up to the hard one. */
  struct rlimit files;
  if (getrlimit(RLIMIT_NOFILE, &files) == 0 && files.rlim_cur < files.rlim_max) {
    files.rlim_cur = files.rlim_max;
    setrlimit(RLIMIT_NOFILE, &files);
  }
  signal(SIGPIPE, SIG_IGN);
  /* SA_RESTART: only epoll_wait, which is never restarted, returns early for it. */
  struct sigaction usr1 = {.sa_handler = want_stats, .sa_flags = SA_RESTART};
  sigaction(SIGUSR1, &usr1, NULL);
  ca_path = argv[3];
  size_t key_len = 0, cert_len = 0;
  char *key = read_file(argv[4], &key_len), *cert = read_file(argv[5], &cert_len);
  if (!key || !cert) die("cannot read the server key or certificate");
  ctx = context_from(ca_path, key, key_len, cert, cert_len);
  OPENSSL_cleanse(key, key_len);
  free(key);
  free(cert);
  if (!ctx) die("cannot load the device CA, server key or certificate");
  stand_in_key = X509_get_pubkey(SSL_CTX_get0_certificate(ctx));
  empty_name = X509_NAME_new();
  serial_one = ASN1_INTEGER_new();
  if (!stand_in_key || !empty_name || !serial_one || !ASN1_INTEGER_set(serial_one, 1)) die("out of memory");

  struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM, .ai_flags = AI_PASSIVE}, *found;
  if (getaddrinfo(argv[1][0] ? argv[1] : NULL, argv[2], &hints, &found) != 0) die("cannot resolve the listen address");
  listen_fd = socket(found->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  int on = 1, off = 0;
  setsockopt(listen_fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
  /* '::' takes IPv4 too, as Node's listener does. */
  if (found->ai_family == AF_INET6) setsockopt(listen_fd, IPPROTO_IPV6, IPV6_V6ONLY, &off, sizeof off);
  if (listen_fd < 0 || bind(listen_fd, found->ai_addr, found->ai_addrlen) < 0 || listen(listen_fd, 4096) < 0) {
    fprintf(stderr, "portico-tlsterm: cannot listen on %s port %s: %s\n", argv[1], argv[2], strerror(errno));
    return 1;
  }
  freeaddrinfo(found);
  struct sockaddr_storage bound;
  socklen_t bl = sizeof bound;
  getsockname(listen_fd, (struct sockaddr *)&bound, &bl);
  char port_text[8];
  int port_len = snprintf(port_text, sizeof port_text, "%d", port_of(&bound));
  spare_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);

  if (fcntl(MUX_FD, F_SETFL, fcntl(MUX_FD, F_GETFL) | O_NONBLOCK) < 0) die("no stream to the daemon on descriptor 3");
  epfd = epoll_create1(EPOLL_CLOEXEC);
  struct epoll_event lev = {.events = EPOLLIN, .data.ptr = &listen_fd};
  struct epoll_event mev = {.events = EPOLLIN | EPOLLOUT | EPOLLET, .data.ptr = &mux_in};
  if (epoll_ctl(epfd, EPOLL_CTL_ADD, listen_fd, &lev) < 0 || epoll_ctl(epfd, EPOLL_CTL_ADD, MUX_FD, &mev) < 0) die("epoll");
  mux_frame(T_READY, 0, port_text, port_len, NULL, 0);
  mux_flush();

  struct epoll_event events[256];
  time_t swept = time(NULL);
  for (;;) {
    int n = epoll_wait(epfd, events, 256, 1000);
    if (n < 0 && errno != EINTR) die("epoll_wait");
    if (stats_wanted) {
      stats_wanted = 0;
      print_stats();
    }
    for (int i = 0; i < n; i++) {
      void *p = events[i].data.ptr;
      if (p == &listen_fd) {
        accept_all();
      } else if (p == &mux_in) {
        if (events[i].events & EPOLLOUT) mux_writable = 1;
        if (events[i].events & (EPOLLIN | EPOLLHUP | EPOLLERR)) mux_receive();
      } else {
        conn_event(p);
      }
    }
    /* Read the devices that waited for as long as the daemon takes their bytes. */
    for (;;) {
      mux_flush();
      if (!blocked || !mux_writable || mux_out.len >= MUX_LOW) break;
      resume_blocked();
    }
    while (graveyard) {
      struct conn *c = graveyard;
      graveyard = c->next;
      free(c);
    }
    if (time(NULL) != swept) {
      swept = time(NULL);
      expire_handshakes();
    }
  }
}
