/* transport.c — transport registry and reply reading; see transport.h. */
#include "transport.h"

#include <stdio.h>
#include <string.h>

/* Registered transports. A new transport is one line here plus its file. */
static const struct bench_transport *const transports[] = {
    &bench_transport_tcp,
    &bench_transport_unix,
    &bench_transport_ring,
    &bench_transport_fabric,
};

#define TRANSPORT_COUNT (sizeof transports / sizeof transports[0])

const struct bench_transport *bench_transport_find(const char *name)
{
    for (size_t i = 0; i < TRANSPORT_COUNT; i++)
        if (strcmp(transports[i]->name, name) == 0) return transports[i];
    return NULL;
}

const char *bench_transport_names(void)
{
    static char names[128];
    size_t off = 0;
    for (size_t i = 0; i < TRANSPORT_COUNT && off < sizeof names; i++)
        off += (size_t)snprintf(names + off, sizeof names - off, "%s%s", i ? "," : "",
                                transports[i]->name);
    return names;
}

int bench_conn_open(struct bench_conn *conn, const struct bench_transport *transport,
                    const struct bench_target *target)
{
    conn->transport = transport;
    conn->fd = -1;
    conn->state = NULL;
    conn->rx_len = 0;
    conn->error[0] = '\0';
    return transport->open(conn, target);
}

void bench_conn_close(struct bench_conn *conn)
{
    if (conn->transport) conn->transport->close(conn);
    conn->transport = NULL;
}

long long bench_conn_read_reply(struct bench_conn *conn, bench_frame_fn frame)
{
    return bench_conn_read_replies(conn, frame, 1);
}

long long bench_conn_read_replies(struct bench_conn *conn, bench_frame_fn frame, unsigned count)
{
    for (;;) {
        size_t off = 0;
        long long n = 0;
        unsigned framed = 0;
        while (framed < count && (n = frame(conn->rx + off, conn->rx_len - off)) > 0) {
            off += (size_t)n;
            framed++;
        }
        if (framed == count) return (long long)off;
        if (n < 0) {
            snprintf(conn->error, sizeof conn->error, "malformed reply from the server");
            return -1;
        }
        if (conn->rx_len == sizeof conn->rx) {
            snprintf(conn->error, sizeof conn->error,
                     "reply larger than the %zu-byte receive buffer", sizeof conn->rx);
            return -1;
        }
        ssize_t got =
            conn->transport->recv(conn, conn->rx + conn->rx_len, sizeof conn->rx - conn->rx_len);
        if (got == 0) {
            snprintf(conn->error, sizeof conn->error, "server closed the connection");
            return -1;
        }
        if (got < 0) return -1; /* the transport wrote conn->error */
        conn->rx_len += (size_t)got;
    }
}

void bench_conn_consume(struct bench_conn *conn, size_t len)
{
    if (len < conn->rx_len) memmove(conn->rx, conn->rx + len, conn->rx_len - len);
    conn->rx_len -= len;
}
