/*
 * rx_buffer.h — the receive buffer of the client library's message
 * transports (ring_client.c, fabric_client.c; internal, not installed):
 * in-order RESP bytes taken from the transport, handed to the caller as
 * whole replies (read_reply) or as raw bytes (recv). The transport brings
 * bytes in with rx_buffer_append() and waits for them through an
 * rx_wait_fn; the reply last returned stays valid, unmoved, until the next
 * read_reply or recv call (the buffer is compacted only when no reply is
 * held; growing it may still move it, as realloc does).
 */
#ifndef GOBLIN_CLIENT_RX_BUFFER_H
#define GOBLIN_CLIENT_RX_BUFFER_H

#include <stddef.h>
#include <sys/types.h>

struct rx_buffer {
    char *data;
    size_t start, end, cap;
    size_t reply_len; /* the reply last returned by read_reply, released by the next call */
};

/* Waits until the buffer of `conn` holds more than `have` bytes: 1, 0 on
 * timeout (timeout_us < 0: none), or a negative errno. */
typedef int (*rx_wait_fn)(void *conn, size_t have, long long timeout_us);

static inline size_t rx_buffer_len(const struct rx_buffer *b)
{
    return b->end - b->start;
}

/* Appends len bytes: 0, or -ENOMEM. */
int rx_buffer_append(struct rx_buffer *b, const void *data, size_t len);

/* Releases the reply read_reply returned last (its bytes are consumed). */
void rx_buffer_release(struct rx_buffer *b);

/* The next whole RESP reply (*reply points into the buffer): its length,
 * 0 on timeout, -EPROTO for a malformed reply, or wait's error. */
ssize_t rx_buffer_read_reply(struct rx_buffer *b, rx_wait_fn wait, void *conn, const char **reply,
                             long long timeout_us);

/* Up to cap buffered bytes into buf, waiting for some when there are none:
 * bytes copied, 0 on timeout, or wait's error. */
ssize_t rx_buffer_recv(struct rx_buffer *b, rx_wait_fn wait, void *conn, void *buf, size_t cap,
                       long long timeout_us);

void rx_buffer_free(struct rx_buffer *b);

#endif
