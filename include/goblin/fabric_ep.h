/*
 * goblin/fabric_ep.h — one libfabric FI_EP_RDM endpoint with its slot
 * pools: the part the server transport (src/transport/fabric.c), the client
 * library (client/fabric_client.c) and the raw ping-pong floor
 * (bench/fabric_floor.c) share. Source: src/transport/fabric_ep.c, linked
 * into the server and into libgoblin_client; it uses only libc and
 * libfabric (no server utilities), and reports failures as text in
 * ep->error.
 *
 * Opening: fi_getinfo for FI_EP_RDM with FI_MSG | FI_SOURCE of one provider
 * (bound to `address` when given; a provider whose names are not IP
 * addresses, shm, chooses its own unique name), then fabric, domain, a TX
 * and an RX completion queue, an AV table, the endpoint; a TX pool and an
 * RX pool of `record`-byte slots (registered when the provider wants local
 * registration); every RX slot posted.
 *
 * Sending: a frame that fits the inject size (0 with force_send) goes by
 * fi_inject, others by fi_send from a free TX slot, reclaimed from the TX
 * completion queue by goblin_fabric_ep_reap_tx. Nothing here waits: a full
 * pool or provider queue is reported to the caller, who decides how to
 * wait (the server parks the conn, the client spins with a deadline).
 *
 * One thread at a time (FI_THREAD_DOMAIN).
 */
#ifndef GOBLIN_FABRIC_EP_H
#define GOBLIN_FABRIC_EP_H

#include <goblin/fabric_envelope.h>
#include <rdma/fabric.h>
#include <rdma/fi_domain.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* A buffer of the TX or RX pool; its fi_context2 is the operation context a
 * completion hands back. */
struct goblin_fabric_slot {
    struct fi_context2 ctx; /* first: completions return its address */
    char *buf;
    struct goblin_fabric_slot *next_free;
};

struct goblin_fabric_ep_options {
    const char *provider; /* "tcp;ofi_rxm", "shm", "efa", ... */
    const char *address;  /* the endpoint's own address; NULL: provider default */
    unsigned tx_slots, rx_slots;
    size_t record;   /* bytes of one message, envelope included */
    bool force_send; /* never fi_inject */
    bool wait_fd;    /* completion queues with wait fds, where the provider has them */
};

struct goblin_fabric_ep {
    struct fi_info *info;
    struct fid_fabric *fabric;
    struct fid_domain *domain;
    struct fid_av *av;
    struct fid_cq *txcq, *rxcq;
    struct fid_ep *ep;
    struct fid_mr *tx_mr, *rx_mr;
    void *tx_desc, *rx_desc;
    char *tx_pool, *rx_pool;
    struct goblin_fabric_slot *tx_slots, *rx_slots, *tx_free;
    unsigned tx_count, rx_count, tx_in_flight;
    size_t record;      /* bytes of one message, envelope included */
    size_t inject_size; /* 0: never inject */
    char *inject_buf;   /* envelope + payload for fi_inject (the provider copies it) */
    /* Counters (frames handed to the provider). */
    uint64_t injected, sent, tx_full, tx_errors, rx_errors;
    char error[256]; /* the last failure */
    /* Opened with wait_fd and the provider gave both queues a wait fd
     * (FI_WAIT_FD, fi_control FI_GETWAIT): the fds are readable when a
     * completion may be waiting, once goblin_fabric_ep_trywait said so. */
    bool can_wait;
    int tx_wait_fd, rx_wait_fd;
};

/* Opens ep (zeroed by the caller) as described above. 0, or -ENODEV when
 * the provider offers no such endpoint (ep->error names the provider and
 * fi_getinfo's error), -ENOMEM, -EIO for a later step (ep->error: which
 * call and its error). On failure the caller still calls
 * goblin_fabric_ep_close. */
int goblin_fabric_ep_open(struct goblin_fabric_ep *ep, const struct goblin_fabric_ep_options *o);

/* Before sleeping on the wait fds: true when nothing is pending and the
 * fds will signal the next completion (fi_trywait); false when the caller
 * must poll again first, or the queues have no wait fds. */
bool goblin_fabric_ep_trywait(struct goblin_fabric_ep *ep);

/* Closes every fid and frees the pools; accepts a partly opened ep. */
void goblin_fabric_ep_close(struct goblin_fabric_ep *ep);

/* Moves TX completions back to the free list; returns how many slots came
 * back. A failed send counts in tx_errors with its text in ep->error. */
int goblin_fabric_ep_reap_tx(struct goblin_fabric_ep *ep);

/* Sends one envelope (header h, payload) to addr: fi_inject when it fits,
 * else fi_send from a TX slot. 1 when handed to the provider, 0 when no
 * slot or provider room is free now (completions were reaped: retry), -1
 * on a provider error (ep->error). */
int goblin_fabric_ep_send(struct goblin_fabric_ep *ep, fi_addr_t addr,
                          const struct goblin_fabric_header *h, const void *payload);

/* Reads up to count RX completions (with their source addresses when src
 * is not NULL). Returns how many (0: none), or -1 after a failed receive
 * (rx_errors, ep->error; its slot is posted again). The caller consumes
 * each slot (done[i].op_context) and posts it again. */
ssize_t goblin_fabric_ep_read_rx(struct goblin_fabric_ep *ep, struct fi_cq_msg_entry *done,
                                 fi_addr_t *src, size_t count);

/* Posts one RX slot (progressing the queue while the provider is full). */
int goblin_fabric_ep_post_recv(struct goblin_fabric_ep *ep, struct goblin_fabric_slot *slot);

#endif
