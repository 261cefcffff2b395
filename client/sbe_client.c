/* sbe_client.c — client of the SBE wire over sockets and rings; contract in
 * include/goblin/sbe_client.h, frames in include/goblin/sbe_codec.h. */
#include <goblin/sbe_client.h>

#include <errno.h>
#include <goblin/fabric_client.h>
#include <goblin/ring_client.h>
#include <math.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define SBE_HANDSHAKE "GOBLINS!"

/* A byte queue (requests to send, bytes received, queued frames). */
struct bytes {
    uint8_t *data;
    size_t start, end, cap;
};

static int bytes_reserve(struct bytes *b, size_t n)
{
    if (b->cap - b->end >= n) return 0;
    if (b->start > 0) {
        memmove(b->data, b->data + b->start, b->end - b->start);
        b->end -= b->start;
        b->start = 0;
        if (b->cap - b->end >= n) return 0;
    }
    size_t cap = b->cap ? b->cap : 4096;
    while (cap - b->end < n) cap *= 2;
    uint8_t *d = realloc(b->data, cap);
    if (!d) return -ENOMEM;
    b->data = d;
    b->cap = cap;
    return 0;
}

static size_t bytes_len(const struct bytes *b)
{
    return b->end - b->start;
}

static void bytes_consume(struct bytes *b, size_t n)
{
    b->start += n;
    if (b->start == b->end) b->start = b->end = 0;
}

struct goblin_sbe {
    int fd;                       /* sockets; -1 for a ring */
    struct goblin_ring *ring;     /* rings */
    struct goblin_fabric *fabric; /* libfabric sessions */
    uint64_t next_correlation;
    struct bytes tx, rx;
    struct bytes replies, pushes; /* whole frames read ahead of their reader */
    bool closed;
};

static int sbe_new(int fd, struct goblin_ring *ring, struct goblin_sbe **out)
{
    struct goblin_sbe *s = calloc(1, sizeof *s);
    if (!s) return -ENOMEM;
    s->fd = fd;
    s->ring = ring;
    s->next_correlation = 1;
    int rc = goblin_sbe_send_raw(s, SBE_HANDSHAKE, 8);
    if (rc == 0) rc = goblin_sbe_flush(s);
    if (rc != 0) {
        goblin_sbe_close(s);
        return rc;
    }
    *out = s;
    return 0;
}

int goblin_sbe_connect_tcp(const char *host, int port, struct goblin_sbe **out)
{
    char service[16];
    snprintf(service, sizeof service, "%d", port);
    struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *res;
    if (getaddrinfo(host, service, &hints, &res) != 0) return -EHOSTUNREACH;
    int fd = -1, err = ECONNREFUSED;
    for (struct addrinfo *a = res; a; a = a->ai_next) {
        fd = socket(a->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd >= 0 && connect(fd, a->ai_addr, a->ai_addrlen) == 0) break;
        err = errno;
        if (fd >= 0) close(fd);
        fd = -1;
    }
    freeaddrinfo(res);
    if (fd < 0) return -err;
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    return sbe_new(fd, NULL, out);
}

int goblin_sbe_connect_unix(const char *path, struct goblin_sbe **out)
{
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    if (strlen(path) >= sizeof a.sun_path) return -ENAMETOOLONG;
    strcpy(a.sun_path, path);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return -errno;
    if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
        int err = errno;
        close(fd);
        return -err;
    }
    return sbe_new(fd, NULL, out);
}

int goblin_sbe_open_ring(const char *path, int timeout_ms, struct goblin_sbe **out)
{
    struct goblin_ring *ring;
    int rc = goblin_ring_open(path, timeout_ms, &ring);
    if (rc != 0) return rc;
    return sbe_new(-1, ring, out);
}

int goblin_sbe_connect_fabric(const char *provider, const char *host, int port,
                              const struct goblin_fabric_options *opt, struct goblin_sbe **out,
                              char *err, size_t err_cap)
{
    struct goblin_fabric *f;
    int rc = goblin_fabric_connect(provider, host, port, opt, &f, err, err_cap);
    if (rc != 0) return rc;
    struct goblin_sbe *s = calloc(1, sizeof *s);
    if (!s) {
        goblin_fabric_close(f);
        return -ENOMEM;
    }
    s->fd = -1;
    s->fabric = f;
    s->next_correlation = 1;
    rc = goblin_sbe_send_raw(s, SBE_HANDSHAKE, 8);
    if (rc == 0) rc = goblin_sbe_flush(s);
    if (rc != 0) {
        goblin_sbe_close(s);
        return rc;
    }
    *out = s;
    return 0;
}

void goblin_sbe_close(struct goblin_sbe *s)
{
    if (!s) return;
    if (s->fd >= 0) close(s->fd);
    goblin_ring_close(s->ring);
    goblin_fabric_close(s->fabric);
    free(s->tx.data);
    free(s->rx.data);
    free(s->replies.data);
    free(s->pushes.data);
    free(s);
}

int goblin_sbe_send_raw(struct goblin_sbe *s, const void *data, size_t len)
{
    if (bytes_reserve(&s->tx, len) != 0) return -ENOMEM;
    memcpy(s->tx.data + s->tx.end, data, len);
    s->tx.end += len;
    return 0;
}

int goblin_sbe_flush(struct goblin_sbe *s)
{
    if (s->closed) return -EPIPE;
    if (s->ring || s->fabric) {
        /* One frame per send, so each lands in a record (message) of its own
         * when it fits. */
        while (bytes_len(&s->tx) > 0) {
            const uint8_t *p = s->tx.data + s->tx.start;
            size_t n = bytes_len(&s->tx);
            if (n >= GOBLIN_SBE_FRAME_PREFIX && memcmp(p, SBE_HANDSHAKE, 8) != 0) {
                size_t f = GOBLIN_SBE_FRAME_PREFIX + goblin_sbe_get_u32(p);
                if (f < n) n = f;
            }
            int rc =
                s->ring ? goblin_ring_send(s->ring, p, n) : goblin_fabric_send(s->fabric, p, n);
            if (rc != 0) return rc;
            bytes_consume(&s->tx, n);
        }
        return 0;
    }
    while (bytes_len(&s->tx) > 0) {
        ssize_t n = send(s->fd, s->tx.data + s->tx.start, bytes_len(&s->tx), MSG_NOSIGNAL);
        if (n < 0) {
            if (errno == EINTR) continue;
            s->closed = true;
            return -EPIPE;
        }
        bytes_consume(&s->tx, (size_t)n);
    }
    return 0;
}

/* --- requests ------------------------------------------------------------ */

/* The writer of one request appended to tx: header, zeroed block with the
 * correlation id set; finish with request_end(). */
struct request {
    struct goblin_sbe_writer w;
    size_t frame;
    uint8_t *block;
    int64_t correlation;
};

static int request_begin(struct goblin_sbe *s, struct request *q, uint16_t template_id,
                         uint16_t block_length, size_t payload)
{
    size_t need = GOBLIN_SBE_FRAME_PREFIX + GOBLIN_SBE_HEADER_LENGTH + block_length + payload;
    if (bytes_reserve(&s->tx, need) != 0) return -ENOMEM;
    q->w = (struct goblin_sbe_writer){.buf = s->tx.data + s->tx.end, .cap = need};
    q->frame = goblin_sbe_frame_begin(&q->w);
    q->block = goblin_sbe_message_begin(&q->w, block_length, template_id, GOBLIN_SBE_SCHEMA_ID,
                                        GOBLIN_SBE_SCHEMA_VERSION);
    q->correlation = (int64_t)s->next_correlation++;
    goblin_sbe_put_u64(q->block, (uint64_t)q->correlation);
    return 0;
}

static int64_t request_end(struct goblin_sbe *s, struct request *q)
{
    goblin_sbe_frame_end(&q->w, q->frame);
    if (q->w.overflow) return -EMSGSIZE;
    s->tx.end += q->w.pos;
    if (bytes_len(&s->tx) >= 64 * 1024) {
        int rc = goblin_sbe_flush(s);
        if (rc != 0) return rc;
    }
    return q->correlation;
}

static size_t data_size(size_t n)
{
    return GOBLIN_SBE_DATA_HEADER_LENGTH + n;
}

/* A template of a correlation id and up to three var-data fields. */
static int64_t request_datas(struct goblin_sbe *s, uint16_t id, uint16_t block, int n,
                             const void *const *p, const size_t *len)
{
    struct request q;
    size_t payload = 0;
    for (int i = 0; i < n; i++) payload += data_size(len[i]);
    int rc = request_begin(s, &q, id, block, payload);
    if (rc != 0) return rc;
    for (int i = 0; i < n; i++) goblin_sbe_put_data(&q.w, p[i], len[i]);
    return request_end(s, &q);
}

/* A template whose only group lists names (Command, Del, Subscribe...). */
static int64_t request_names(struct goblin_sbe *s, uint16_t id, int n, const char *const *names,
                             const size_t *lens)
{
    if (n < 0 || (unsigned)n > GOBLIN_SBE_GROUP_MAX_COUNT) return -E2BIG;
    size_t payload = GOBLIN_SBE_GROUP_HEADER_LENGTH;
    for (int i = 0; i < n; i++) payload += data_size(lens ? lens[i] : strlen(names[i]));
    struct request q;
    int rc = request_begin(s, &q, id, GOBLIN_SBE_COMMAND_BLOCK_LENGTH, payload);
    if (rc != 0) return rc;
    goblin_sbe_group_begin(&q.w, GOBLIN_SBE_COMMAND_ARGS_BLOCK_LENGTH, (uint16_t)n);
    for (int i = 0; i < n; i++) {
        goblin_sbe_command_args_entry(&q.w);
        goblin_sbe_put_data(&q.w, names[i], lens ? lens[i] : strlen(names[i]));
    }
    return request_end(s, &q);
}

int64_t goblin_sbe_command(struct goblin_sbe *s, int argc, const char *const *argv,
                           const size_t *lens)
{
    return request_names(s, GOBLIN_SBE_COMMAND_TEMPLATE_ID, argc, argv, lens);
}

int64_t goblin_sbe_auth(struct goblin_sbe *s, const char *user, size_t user_len,
                        const char *password, size_t password_len)
{
    const void *p[] = {user ? user : "", password};
    size_t n[] = {user ? user_len : 0, password_len};
    return request_datas(s, GOBLIN_SBE_AUTH_TEMPLATE_ID, GOBLIN_SBE_AUTH_BLOCK_LENGTH, 2, p, n);
}

int goblin_sbe_authenticate(struct goblin_sbe *s, const char *user, const char *password,
                            long long timeout_us, char *err, size_t err_cap)
{
    if (err_cap) err[0] = '\0';
    int64_t id = goblin_sbe_auth(s, user, user ? strlen(user) : 0, password, strlen(password));
    int rc = id < 0 ? (int)id : goblin_sbe_flush(s);
    /* The password is not left in the send buffer (sent or not). */
    if (s->tx.data) memset(s->tx.data, 0, s->tx.cap);
    s->tx.start = s->tx.end = 0;
    if (rc != 0) return rc;
    struct goblin_sbe_reply r;
    rc = goblin_sbe_read_reply(s, &r, timeout_us);
    if (rc != 0) return rc;
    if (r.correlation != (uint64_t)id || r.count != 1) {
        rc = -EPROTO;
    } else if (r.template_id == GOBLIN_SBE_ERROR_REPLY_TEMPLATE_ID) {
        if (err_cap) snprintf(err, err_cap, "%.*s", (int)r.values[0].len, r.values[0].data);
        rc = -EACCES;
    } else if (r.template_id != GOBLIN_SBE_STATUS_REPLY_TEMPLATE_ID) {
        rc = -EPROTO;
    }
    goblin_sbe_reply_free(&r);
    return rc;
}

int64_t goblin_sbe_ping(struct goblin_sbe *s)
{
    return request_datas(s, GOBLIN_SBE_PING_TEMPLATE_ID, GOBLIN_SBE_PING_BLOCK_LENGTH, 0, NULL,
                         NULL);
}

int64_t goblin_sbe_get(struct goblin_sbe *s, const void *key, size_t key_len)
{
    const void *p[] = {key};
    size_t n[] = {key_len};
    return request_datas(s, GOBLIN_SBE_GET_TEMPLATE_ID, GOBLIN_SBE_GET_BLOCK_LENGTH, 1, p, n);
}

int64_t goblin_sbe_set(struct goblin_sbe *s, const void *key, size_t key_len, const void *value,
                       size_t value_len, uint8_t flags, uint8_t expire_kind, int64_t expire)
{
    struct request q;
    int rc = request_begin(s, &q, GOBLIN_SBE_SET_TEMPLATE_ID, GOBLIN_SBE_SET_BLOCK_LENGTH,
                           data_size(key_len) + data_size(value_len));
    if (rc != 0) return rc;
    goblin_sbe_set_put_flags(q.block, flags);
    goblin_sbe_set_put_expire_kind(q.block, expire_kind);
    goblin_sbe_set_put_expire(q.block, expire);
    goblin_sbe_put_data(&q.w, key, key_len);
    goblin_sbe_put_data(&q.w, value, value_len);
    return request_end(s, &q);
}

int64_t goblin_sbe_del(struct goblin_sbe *s, int n, const char *const *keys, const size_t *lens)
{
    return request_names(s, GOBLIN_SBE_DEL_TEMPLATE_ID, n, keys, lens);
}

int64_t goblin_sbe_incr(struct goblin_sbe *s, const void *key, size_t key_len)
{
    const void *p[] = {key};
    size_t n[] = {key_len};
    return request_datas(s, GOBLIN_SBE_INCR_TEMPLATE_ID, GOBLIN_SBE_INCR_BLOCK_LENGTH, 1, p, n);
}

int64_t goblin_sbe_incrby(struct goblin_sbe *s, const void *key, size_t key_len, int64_t delta)
{
    struct request q;
    int rc = request_begin(s, &q, GOBLIN_SBE_INCR_BY_TEMPLATE_ID, GOBLIN_SBE_INCR_BY_BLOCK_LENGTH,
                           data_size(key_len));
    if (rc != 0) return rc;
    goblin_sbe_incr_by_put_delta(q.block, delta);
    goblin_sbe_put_data(&q.w, key, key_len);
    return request_end(s, &q);
}

int64_t goblin_sbe_hset(struct goblin_sbe *s, const void *key, size_t key_len, const void *field,
                        size_t field_len, const void *value, size_t value_len)
{
    const void *p[] = {key, field, value};
    size_t n[] = {key_len, field_len, value_len};
    return request_datas(s, GOBLIN_SBE_HSET_TEMPLATE_ID, GOBLIN_SBE_HSET_BLOCK_LENGTH, 3, p, n);
}

int64_t goblin_sbe_hget(struct goblin_sbe *s, const void *key, size_t key_len, const void *field,
                        size_t field_len)
{
    const void *p[] = {key, field};
    size_t n[] = {key_len, field_len};
    return request_datas(s, GOBLIN_SBE_HGET_TEMPLATE_ID, GOBLIN_SBE_HGET_BLOCK_LENGTH, 2, p, n);
}

int64_t goblin_sbe_zadd(struct goblin_sbe *s, const void *key, size_t key_len, uint8_t flags,
                        double score, const void *member, size_t member_len)
{
    struct request q;
    int rc = request_begin(s, &q, GOBLIN_SBE_ZADD_TEMPLATE_ID, GOBLIN_SBE_ZADD_BLOCK_LENGTH,
                           data_size(key_len) + data_size(member_len));
    if (rc != 0) return rc;
    goblin_sbe_zadd_put_flags(q.block, flags);
    goblin_sbe_zadd_put_score(q.block, score);
    goblin_sbe_put_data(&q.w, key, key_len);
    goblin_sbe_put_data(&q.w, member, member_len);
    return request_end(s, &q);
}

int64_t goblin_sbe_zscore(struct goblin_sbe *s, const void *key, size_t key_len, const void *member,
                          size_t member_len)
{
    const void *p[] = {key, member};
    size_t n[] = {key_len, member_len};
    return request_datas(s, GOBLIN_SBE_ZSCORE_TEMPLATE_ID, GOBLIN_SBE_ZSCORE_BLOCK_LENGTH, 2, p, n);
}

int64_t goblin_sbe_publish(struct goblin_sbe *s, const void *channel, size_t channel_len,
                           const void *message, size_t message_len)
{
    const void *p[] = {channel, message};
    size_t n[] = {channel_len, message_len};
    return request_datas(s, GOBLIN_SBE_PUBLISH_TEMPLATE_ID, GOBLIN_SBE_PUBLISH_BLOCK_LENGTH, 2, p,
                         n);
}

int64_t goblin_sbe_subscribe(struct goblin_sbe *s, uint16_t template_id, int n,
                             const char *const *names, const size_t *lens)
{
    if (template_id < GOBLIN_SBE_SUBSCRIBE_TEMPLATE_ID ||
        template_id > GOBLIN_SBE_PUNSUBSCRIBE_TEMPLATE_ID)
        return -EINVAL;
    return request_names(s, template_id, n, names, lens);
}

/* --- replies ------------------------------------------------------------- */

static long long now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* Reads what arrives into rx, waiting up to until_us (-1: forever). */
static int sbe_receive(struct goblin_sbe *s, long long until_us)
{
    if (bytes_reserve(&s->rx, 16384) != 0) return -ENOMEM;
    uint8_t *dst = s->rx.data + s->rx.end;
    size_t cap = s->rx.cap - s->rx.end;
    long long left = until_us < 0 ? -1 : until_us - now_us();
    if (until_us >= 0 && left < 0) left = 0;
    if (s->ring || s->fabric) {
        ssize_t n = s->ring ? goblin_ring_recv(s->ring, dst, cap, left)
                            : goblin_fabric_recv(s->fabric, dst, cap, left);
        if (n < 0) return (int)n;
        if (n == 0) return -ETIMEDOUT;
        s->rx.end += (size_t)n;
        return 0;
    }
    struct pollfd p = {.fd = s->fd, .events = POLLIN};
    int r = poll(&p, 1, left < 0 ? -1 : (int)((left + 999) / 1000));
    if (r < 0) return errno == EINTR ? 0 : -errno;
    if (r == 0) return -ETIMEDOUT;
    ssize_t n = recv(s->fd, dst, cap, 0);
    if (n == 0) {
        s->closed = true;
        return -EPIPE;
    }
    if (n < 0) return errno == EINTR || errno == EAGAIN ? 0 : -errno;
    s->rx.end += (size_t)n;
    return 0;
}

static int queue_frame(struct bytes *q, const uint8_t *frame, size_t len)
{
    if (bytes_reserve(q, len) != 0) return -ENOMEM;
    memcpy(q->data + q->end, frame, len);
    q->end += len;
    return 0;
}

/* Takes the first frame of q (whole frames only) into a reply it owns. */
static int take_frame(struct bytes *q, struct goblin_sbe_reply *out)
{
    const uint8_t *p = q->data + q->start;
    size_t len = GOBLIN_SBE_FRAME_PREFIX + goblin_sbe_get_u32(p);
    void *copy = malloc(len);
    if (!copy) return -ENOMEM;
    memcpy(copy, p, len);
    bytes_consume(q, len);
    int rc = goblin_sbe_reply_decode(copy, len, out);
    if (rc != 0) {
        free(copy);
        return rc;
    }
    out->frame = copy;
    return 0;
}

static bool frame_is_push(const uint8_t *frame)
{
    return goblin_sbe_get_u16(frame + GOBLIN_SBE_FRAME_PREFIX + 2) == GOBLIN_SBE_PUSH_TEMPLATE_ID &&
           goblin_sbe_get_u64(frame + GOBLIN_SBE_FRAME_PREFIX + GOBLIN_SBE_HEADER_LENGTH) == 0;
}

/* The next frame of the wanted kind (push or not), queuing the others. */
static int sbe_read(struct goblin_sbe *s, bool push, struct goblin_sbe_reply *out,
                    long long timeout_us)
{
    struct bytes *mine = push ? &s->pushes : &s->replies, *other = push ? &s->replies : &s->pushes;
    if (bytes_len(mine) > 0) return take_frame(mine, out);
    int rc = goblin_sbe_flush(s);
    if (rc != 0) return rc;
    long long until = timeout_us < 0 ? -1 : now_us() + timeout_us;
    for (;;) {
        while (bytes_len(&s->rx) >= GOBLIN_SBE_FRAME_PREFIX) {
            const uint8_t *p = s->rx.data + s->rx.start;
            uint32_t n = goblin_sbe_get_u32(p);
            if (n < GOBLIN_SBE_HEADER_LENGTH + 8 || n > (1u << 30) + 65536) return -EPROTO;
            size_t len = GOBLIN_SBE_FRAME_PREFIX + (size_t)n;
            if (bytes_len(&s->rx) < len) break;
            bool is_push = frame_is_push(p);
            if (is_push == push) {
                if ((rc = queue_frame(mine, p, len)) != 0) return rc;
                bytes_consume(&s->rx, len);
                return take_frame(mine, out);
            }
            if ((rc = queue_frame(other, p, len)) != 0) return rc;
            bytes_consume(&s->rx, len);
        }
        rc = sbe_receive(s, until);
        if (rc != 0) return rc;
    }
}

int goblin_sbe_read_reply(struct goblin_sbe *s, struct goblin_sbe_reply *out, long long timeout_us)
{
    return sbe_read(s, false, out, timeout_us);
}

int goblin_sbe_read_push(struct goblin_sbe *s, struct goblin_sbe_reply *out, long long timeout_us)
{
    return sbe_read(s, true, out, timeout_us);
}

bool goblin_sbe_pushes_queued(const struct goblin_sbe *s)
{
    return bytes_len(&s->pushes) > 0;
}

void goblin_sbe_reply_free(struct goblin_sbe_reply *r)
{
    free(r->values);
    free(r->frame);
    memset(r, 0, sizeof *r);
}

static int reply_one(struct goblin_sbe_reply *r, struct goblin_sbe_value v)
{
    struct goblin_sbe_value *values = malloc(sizeof *values);
    if (!values) return -ENOMEM;
    values[0] = v;
    r->values = values;
    r->count = 1;
    return 0;
}

/* The values of a ValuesReply or Push group. */
static int reply_values(struct goblin_sbe_reply *r, const struct goblin_sbe_group *g)
{
    r->values = calloc(g->count ? g->count : 1, sizeof *r->values);
    if (!r->values) return -ENOMEM;
    struct goblin_sbe_cursor c = goblin_sbe_group_cursor(g);
    struct goblin_sbe_values_reply_values_entry e;
    while (goblin_sbe_values_reply_values_next(&c, &e)) {
        struct goblin_sbe_value *v = &r->values[r->count++];
        v->kind = goblin_sbe_values_reply_values_kind(e.block);
        v->integer = goblin_sbe_values_reply_values_integer(e.block);
        v->real = goblin_sbe_values_reply_values_real(e.block);
        v->data = (const char *)e.bytes.data;
        v->len = e.bytes.len;
        if (v->kind > GOBLIN_SBE_VALUE_KIND_VERBATIM) return -EPROTO;
        if (v->kind >= GOBLIN_SBE_VALUE_KIND_ARRAY && v->kind <= GOBLIN_SBE_VALUE_KIND_PUSH &&
            v->integer < 0)
            return -EPROTO;
    }
    return 0;
}

int goblin_sbe_reply_decode(void *frame, size_t len, struct goblin_sbe_reply *r)
{
    memset(r, 0, sizeof *r);
    const uint8_t *p = frame;
    if (len < GOBLIN_SBE_FRAME_PREFIX + GOBLIN_SBE_HEADER_LENGTH) return -EPROTO;
    struct goblin_sbe_header h;
    goblin_sbe_header_decode(p + GOBLIN_SBE_FRAME_PREFIX, len - GOBLIN_SBE_FRAME_PREFIX, &h);
    if (h.schema_id != GOBLIN_SBE_SCHEMA_ID) return -EPROTO;
    const uint8_t *body = p + GOBLIN_SBE_FRAME_PREFIX + GOBLIN_SBE_HEADER_LENGTH;
    size_t n = len - GOBLIN_SBE_FRAME_PREFIX - GOBLIN_SBE_HEADER_LENGTH;
    if (n < 8 || h.block_length < 8) return -EPROTO;
    r->template_id = h.template_id;
    r->correlation = goblin_sbe_get_u64(body);
    struct goblin_sbe_value v = {0};
    int rc = -EPROTO;
    switch (h.template_id) {
    case GOBLIN_SBE_STATUS_REPLY_TEMPLATE_ID:
    case GOBLIN_SBE_BULK_REPLY_TEMPLATE_ID: {
        struct goblin_sbe_bulk_reply m; /* one layout for both */
        if (goblin_sbe_bulk_reply_decode(body, n, h.block_length, &m) != 0) break;
        v.kind = h.template_id == GOBLIN_SBE_BULK_REPLY_TEMPLATE_ID ? GOBLIN_SBE_VALUE_KIND_BULK
                                                                    : GOBLIN_SBE_VALUE_KIND_STATUS;
        v.data = (const char *)m.value.data;
        v.len = m.value.len;
        rc = reply_one(r, v);
        break;
    }
    case GOBLIN_SBE_ERROR_REPLY_TEMPLATE_ID: {
        struct goblin_sbe_error_reply m;
        if (goblin_sbe_error_reply_decode(body, n, h.block_length, &m) != 0) break;
        /* "CODE message" is contiguous but for the message's length word:
         * the value points at the code and the caller sees both through
         * goblin_sbe_to_resp3; keep the code alone in data when split. */
        v.kind = GOBLIN_SBE_VALUE_KIND_ERROR;
        v.data = (const char *)m.code.data;
        v.len = m.code.len;
        /* Join code and message in place: the 4-byte length before the
         * message is overwritten by " " and the message moved up. */
        if (m.message.len) {
            uint8_t *join = (uint8_t *)m.code.data + m.code.len;
            join[0] = ' ';
            memmove(join + 1, m.message.data, m.message.len);
            v.len = m.code.len + 1 + m.message.len;
        }
        rc = reply_one(r, v);
        break;
    }
    case GOBLIN_SBE_NULL_REPLY_TEMPLATE_ID:
        v.kind = GOBLIN_SBE_VALUE_KIND_NULL;
        rc = reply_one(r, v);
        break;
    case GOBLIN_SBE_INT_REPLY_TEMPLATE_ID:
    case GOBLIN_SBE_DOUBLE_REPLY_TEMPLATE_ID:
    case GOBLIN_SBE_BOOL_REPLY_TEMPLATE_ID:
        if (h.block_length < 16 && !(h.template_id == GOBLIN_SBE_BOOL_REPLY_TEMPLATE_ID &&
                                     h.block_length >= GOBLIN_SBE_BOOL_REPLY_BLOCK_LENGTH))
            break;
        if (n < h.block_length) break;
        if (h.template_id == GOBLIN_SBE_INT_REPLY_TEMPLATE_ID) {
            v.kind = GOBLIN_SBE_VALUE_KIND_INT;
            v.integer = goblin_sbe_int_reply_value(body);
        } else if (h.template_id == GOBLIN_SBE_DOUBLE_REPLY_TEMPLATE_ID) {
            v.kind = GOBLIN_SBE_VALUE_KIND_DOUBLE;
            v.real = goblin_sbe_double_reply_value(body);
        } else {
            v.kind = GOBLIN_SBE_VALUE_KIND_BOOL;
            v.integer = goblin_sbe_bool_reply_value(body) != 0;
        }
        rc = reply_one(r, v);
        break;
    case GOBLIN_SBE_VALUES_REPLY_TEMPLATE_ID: {
        struct goblin_sbe_values_reply m;
        if (goblin_sbe_values_reply_decode(body, n, h.block_length, &m) != 0) break;
        rc = reply_values(r, &m.values);
        break;
    }
    case GOBLIN_SBE_PUSH_TEMPLATE_ID: {
        struct goblin_sbe_push m;
        if (goblin_sbe_push_decode(body, n, h.block_length, &m) != 0) break;
        r->push_kind = goblin_sbe_push_push_kind(m.block);
        rc = reply_values(r, &m.values);
        break;
    }
    }
    if (rc != 0) {
        free(r->values);
        r->values = NULL;
        r->count = 0;
        return rc == -ENOMEM ? rc : -EPROTO;
    }
    return 0;
}

size_t goblin_sbe_value_skip(const struct goblin_sbe_reply *r, size_t i)
{
    if (i >= r->count) return r->count;
    const struct goblin_sbe_value *v = &r->values[i++];
    if (v->kind < GOBLIN_SBE_VALUE_KIND_ARRAY || v->kind > GOBLIN_SBE_VALUE_KIND_PUSH) return i;
    long long children = v->kind == GOBLIN_SBE_VALUE_KIND_MAP ? 2 * v->integer : v->integer;
    for (long long c = 0; c < children && i < r->count; c++) i = goblin_sbe_value_skip(r, i);
    return i;
}

static int out_append(char **out, size_t *len, size_t *cap, const void *p, size_t n)
{
    if (*cap - *len < n + 1) {
        size_t c = *cap ? *cap : 256;
        while (c - *len < n + 1) c *= 2;
        char *d = realloc(*out, c);
        if (!d) return -1;
        *out = d;
        *cap = c;
    }
    memcpy(*out + *len, p, n);
    *len += n;
    (*out)[*len] = '\0';
    return 0;
}

size_t goblin_sbe_to_resp3(const struct goblin_sbe_reply *r, size_t i, char **out, size_t *len,
                           size_t *cap)
{
    if (i >= r->count) return r->count;
    const struct goblin_sbe_value *v = &r->values[i];
    char head[64];
    int n = 0;
    int rc = 0;
    switch (v->kind) {
    case GOBLIN_SBE_VALUE_KIND_NULL:
        rc = out_append(out, len, cap, "_\r\n", 3);
        break;
    case GOBLIN_SBE_VALUE_KIND_STATUS:
    case GOBLIN_SBE_VALUE_KIND_ERROR:
        rc = out_append(out, len, cap, v->kind == GOBLIN_SBE_VALUE_KIND_STATUS ? "+" : "-", 1);
        if (!rc) rc = out_append(out, len, cap, v->data, v->len);
        if (!rc) rc = out_append(out, len, cap, "\r\n", 2);
        break;
    case GOBLIN_SBE_VALUE_KIND_INT:
        n = snprintf(head, sizeof head, ":%lld\r\n", (long long)v->integer);
        rc = out_append(out, len, cap, head, (size_t)n);
        break;
    case GOBLIN_SBE_VALUE_KIND_DOUBLE:
        if (isnan(v->real))
            n = snprintf(head, sizeof head, ",nan\r\n");
        else if (isinf(v->real))
            n = snprintf(head, sizeof head, ",%s\r\n", v->real > 0 ? "inf" : "-inf");
        else
            n = snprintf(head, sizeof head, ",%.17g\r\n", v->real);
        rc = out_append(out, len, cap, head, (size_t)n);
        break;
    case GOBLIN_SBE_VALUE_KIND_BOOL:
        rc = out_append(out, len, cap, v->integer ? "#t\r\n" : "#f\r\n", 4);
        break;
    case GOBLIN_SBE_VALUE_KIND_BULK:
    case GOBLIN_SBE_VALUE_KIND_VERBATIM: {
        bool verbatim = v->kind == GOBLIN_SBE_VALUE_KIND_VERBATIM;
        n = snprintf(head, sizeof head, "%c%u\r\n", verbatim ? '=' : '$',
                     v->len + (verbatim ? 4u : 0u));
        rc = out_append(out, len, cap, head, (size_t)n);
        if (!rc && verbatim) {
            char format[4] = {(char)(v->integer & 0xff), (char)(v->integer >> 8 & 0xff),
                              (char)(v->integer >> 16 & 0xff), ':'};
            rc = out_append(out, len, cap, format, 4);
        }
        if (!rc) rc = out_append(out, len, cap, v->data, v->len);
        if (!rc) rc = out_append(out, len, cap, "\r\n", 2);
        break;
    }
    default: {
        static const char prefix[] = {'*', '%', '~', '>'};
        n = snprintf(head, sizeof head, "%c%lld\r\n", prefix[v->kind - GOBLIN_SBE_VALUE_KIND_ARRAY],
                     (long long)v->integer);
        rc = out_append(out, len, cap, head, (size_t)n);
        long long children = v->kind == GOBLIN_SBE_VALUE_KIND_MAP ? 2 * v->integer : v->integer;
        size_t j = i + 1;
        for (long long c = 0; c < children && j < r->count && !rc; c++) {
            j = goblin_sbe_to_resp3(r, j, out, len, cap);
            if (j == (size_t)-1) return j;
        }
        return rc ? (size_t)-1 : j;
    }
    }
    return rc ? (size_t)-1 : i + 1;
}
