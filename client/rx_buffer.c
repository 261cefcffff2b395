/* rx_buffer.c — the message transports' receive buffer; see rx_buffer.h. */
#include "rx_buffer.h"

#include <errno.h>
#include <goblin/resp_reader.h>
#include <stdlib.h>
#include <string.h>

int rx_buffer_append(struct rx_buffer *b, const void *data, size_t len)
{
    if (b->start == b->end) b->start = b->end = 0; /* nothing held: a held reply is inside */
    if (b->cap - b->end < len) {
        if (b->start > 0 && b->reply_len == 0) {
            memmove(b->data, b->data + b->start, b->end - b->start);
            b->end -= b->start;
            b->start = 0;
        }
        size_t cap = b->cap ? b->cap : 65536;
        while (cap - b->end < len) cap *= 2;
        if (cap != b->cap) {
            char *p = realloc(b->data, cap);
            if (!p) return -ENOMEM;
            b->data = p;
            b->cap = cap;
        }
    }
    memcpy(b->data + b->end, data, len);
    b->end += len;
    return 0;
}

void rx_buffer_release(struct rx_buffer *b)
{
    b->start += b->reply_len;
    b->reply_len = 0;
}

ssize_t rx_buffer_read_reply(struct rx_buffer *b, rx_wait_fn wait, void *conn, const char **reply,
                             long long timeout_us)
{
    rx_buffer_release(b);
    for (;;) {
        long long n = resp_reply_length(b->data + b->start, b->end - b->start);
        if (n < 0) return -EPROTO;
        if (n > 0) {
            *reply = b->data + b->start;
            b->reply_len = (size_t)n;
            return (ssize_t)n;
        }
        int rc = wait(conn, b->end - b->start, timeout_us);
        if (rc <= 0) return rc;
    }
}

ssize_t rx_buffer_recv(struct rx_buffer *b, rx_wait_fn wait, void *conn, void *buf, size_t cap,
                       long long timeout_us)
{
    rx_buffer_release(b);
    if (b->end == b->start) {
        int rc = wait(conn, 0, timeout_us);
        if (rc <= 0) return rc;
    }
    size_t n = b->end - b->start;
    if (n > cap) n = cap;
    memcpy(buf, b->data + b->start, n);
    b->start += n;
    return (ssize_t)n;
}

void rx_buffer_free(struct rx_buffer *b)
{
    free(b->data);
    *b = (struct rx_buffer){0};
}
