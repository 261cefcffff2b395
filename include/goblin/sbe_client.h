/*
 * goblin/sbe_client.h — typed client of Goblin Core's SBE binary wire
 * (docs/sbe.md) over TCP, Unix sockets, shared-memory rings and libfabric.
 *
 *   struct goblin_sbe *s;
 *   if (goblin_sbe_connect_tcp("127.0.0.1", 6379, &s) == 0) {
 *       struct goblin_sbe_reply r;
 *       goblin_sbe_set(s, "k", 1, "v", 1, 0, GOBLIN_SBE_EXPIRE_KIND_NONE, 0);
 *       goblin_sbe_get(s, "k", 1);
 *       goblin_sbe_read_reply(s, &r, -1);   // StatusReply "OK"
 *       goblin_sbe_reply_free(&r);
 *       goblin_sbe_read_reply(s, &r, -1);   // BulkReply "v"
 *       goblin_sbe_reply_free(&r);
 *       goblin_sbe_close(s);
 *   }
 *
 * Contracts and hazards:
 *  - TRUST: the server speaks SBE only with --enable-sbe, on rings, Unix
 *    sockets, loopback TCP (other peers only with --sbe-allow-remote) and
 *    libfabric. When it has a password or users, a session must
 *    authenticate first (goblin_sbe_authenticate(), the Auth template):
 *    until then every other request is answered NOAUTH. Transports the
 *    server was told to trust skip this (--no-auth-sbe for sockets,
 *    --no-auth-ring, --no-auth-libfabric); docs/sbe.md.
 *  - Every request call (goblin_sbe_get, goblin_sbe_command, ...) queues one
 *    frame and returns its correlation id (>0) or -errno; requests are sent
 *    when a read needs them (goblin_sbe_flush sends them now), so a batch
 *    of calls is one pipelined write.
 *  - Replies arrive in request order, each echoing its correlation id.
 *    Pushes (Pub/Sub messages, correlation 0) are queued apart:
 *    goblin_sbe_read_reply() returns the next reply, goblin_sbe_read_push()
 *    the next push, each keeping frames of the other kind for later.
 *  - A reply's values are RESP3's, flattened in pre-order (an aggregate's
 *    `integer` is its element count; a MAP's counts pairs). One reply may
 *    hold several top-level values (SUBSCRIBE a b: one ack per channel).
 *  - One thread at a time per connection. Errors are negative errno values:
 *    -ETIMEDOUT, -EPIPE (the server closed), -EPROTO (a malformed frame).
 */
#ifndef GOBLIN_SBE_CLIENT_H
#define GOBLIN_SBE_CLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <goblin/sbe_codec.h>

#ifdef __cplusplus
extern "C" {
#endif

struct goblin_sbe;

/* One value of a reply (kind: enum goblin_sbe_value_kind). data/len are
 * the bytes of STATUS, ERROR ("CODE message"), BULK and VERBATIM values. */
struct goblin_sbe_value {
    uint8_t kind;
    int64_t integer; /* INT, BOOL (0/1), element count of ARRAY/SET/PUSH, pairs of MAP */
    double real;     /* DOUBLE */
    const char *data;
    uint32_t len;
};

struct goblin_sbe_reply {
    uint64_t correlation; /* the request answered; 0 for a Pub/Sub message */
    uint16_t template_id; /* the frame's template (GOBLIN_SBE_*_TEMPLATE_ID) */
    uint8_t push_kind;    /* Push frames: enum goblin_sbe_push_kind */
    size_t count;         /* values, pre-order */
    struct goblin_sbe_value *values;
    void *frame; /* owned: the frame the values point into */
};

/* Connects (a blocking socket) and sends the GOBLINS! handshake. 0 or -errno. */
int goblin_sbe_connect_tcp(const char *host, int port, struct goblin_sbe **out);
int goblin_sbe_connect_unix(const char *path, struct goblin_sbe **out);
/* Claims the ring at path (goblin/ring_client.h) and speaks SBE over it. */
int goblin_sbe_open_ring(const char *path, int timeout_ms, struct goblin_sbe **out);
/* Opens a libfabric session (goblin/fabric_client.h: provider, the
 * server's bootstrap host:port, opt may be NULL) and speaks SBE over it,
 * one frame per message. 0, or -errno with the reason in err. */
struct goblin_fabric_options;
int goblin_sbe_connect_fabric(const char *provider, const char *host, int port,
                              const struct goblin_fabric_options *opt, struct goblin_sbe **out,
                              char *err, size_t err_cap);
/* Closes the connection (releases a ring, ends a libfabric session). Accepts NULL. */
void goblin_sbe_close(struct goblin_sbe *s);

/* Sends the queued requests now. 0 or -errno. */
int goblin_sbe_flush(struct goblin_sbe *s);

/* AUTH [user] password as the Auth template (user NULL or empty: the default
 * user): the one request a server with a password takes before it. Queues
 * the frame; returns its correlation id or -errno. The reply is a
 * StatusReply "OK" or AUTH's error (WRONGPASS ..., the failure throttle's
 * texts), exactly as RESP's AUTH answers. */
int64_t goblin_sbe_auth(struct goblin_sbe *s, const char *user, size_t user_len,
                        const char *password, size_t password_len);
/* goblin_sbe_auth() sent at once and its reply awaited, with no other
 * request outstanding: 0 when accepted; -EACCES with the server's error
 * text ("WRONGPASS invalid username-password pair ...") in err; -ETIMEDOUT,
 * -EPIPE, -EPROTO. The password's bytes are wiped from the send buffer. */
int goblin_sbe_authenticate(struct goblin_sbe *s, const char *user, const char *password,
                            long long timeout_us, char *err, size_t err_cap);

/* Any command: argv[0] is its name (lens may be NULL for C strings). */
int64_t goblin_sbe_command(struct goblin_sbe *s, int argc, const char *const *argv,
                           const size_t *lens);
/* Typed requests of the hot commands (the schema's templates). */
int64_t goblin_sbe_ping(struct goblin_sbe *s);
int64_t goblin_sbe_get(struct goblin_sbe *s, const void *key, size_t key_len);
int64_t goblin_sbe_set(struct goblin_sbe *s, const void *key, size_t key_len, const void *value,
                       size_t value_len, uint8_t flags, uint8_t expire_kind, int64_t expire);
int64_t goblin_sbe_del(struct goblin_sbe *s, int n, const char *const *keys, const size_t *lens);
int64_t goblin_sbe_incr(struct goblin_sbe *s, const void *key, size_t key_len);
int64_t goblin_sbe_incrby(struct goblin_sbe *s, const void *key, size_t key_len, int64_t delta);
int64_t goblin_sbe_hset(struct goblin_sbe *s, const void *key, size_t key_len, const void *field,
                        size_t field_len, const void *value, size_t value_len);
int64_t goblin_sbe_hget(struct goblin_sbe *s, const void *key, size_t key_len, const void *field,
                        size_t field_len);
int64_t goblin_sbe_zadd(struct goblin_sbe *s, const void *key, size_t key_len, uint8_t flags,
                        double score, const void *member, size_t member_len);
int64_t goblin_sbe_zscore(struct goblin_sbe *s, const void *key, size_t key_len, const void *member,
                          size_t member_len);
int64_t goblin_sbe_publish(struct goblin_sbe *s, const void *channel, size_t channel_len,
                           const void *message, size_t message_len);
/* template: GOBLIN_SBE_{SUBSCRIBE,UNSUBSCRIBE,PSUBSCRIBE,PUNSUBSCRIBE}_TEMPLATE_ID. */
int64_t goblin_sbe_subscribe(struct goblin_sbe *s, uint16_t template_id, int n,
                             const char *const *names, const size_t *lens);

/* Queues raw bytes (tests of malformed frames). 0 or -errno. */
int goblin_sbe_send_raw(struct goblin_sbe *s, const void *data, size_t len);

/* The next reply / push, waiting up to timeout_us (-1 = forever): 0, or
 * -ETIMEDOUT, -EPIPE, -EPROTO. Free each with goblin_sbe_reply_free(). */
int goblin_sbe_read_reply(struct goblin_sbe *s, struct goblin_sbe_reply *out, long long timeout_us);
int goblin_sbe_read_push(struct goblin_sbe *s, struct goblin_sbe_reply *out, long long timeout_us);
void goblin_sbe_reply_free(struct goblin_sbe_reply *r);

/* Whether pushes that arrived ahead of a reply are queued (wire order
 * checks: a self-published message precedes its PUBLISH's reply). */
bool goblin_sbe_pushes_queued(const struct goblin_sbe *s);

/* Decodes one frame (its length prefix included) into a reply that points
 * into `frame` (not copied; r->frame stays NULL; an ErrorReply's code and
 * message are joined in place). 0 or -EPROTO. */
int goblin_sbe_reply_decode(void *frame, size_t len, struct goblin_sbe_reply *r);

/* Index of the value after the subtree at values[i] (skips an aggregate
 * with all its elements). */
size_t goblin_sbe_value_skip(const struct goblin_sbe_reply *r, size_t i);

/* Appends values[i] (and its subtree) as the RESP3 bytes Redis would send
 * for it to *out (a malloc'd buffer of *cap bytes holding *len, grown as
 * needed); returns the index after it, or (size_t)-1 when out of memory.
 * A reply and a RESP3 reply agree value for value when these bytes match
 * (the differential tests; goblin-cli --sbe prints through it). */
size_t goblin_sbe_to_resp3(const struct goblin_sbe_reply *r, size_t i, char **out, size_t *len,
                           size_t *cap);

#ifdef __cplusplus
}
#endif

#endif
