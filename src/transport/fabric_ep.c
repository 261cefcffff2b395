/* fabric_ep.c — one FI_EP_RDM endpoint and its slot pools, shared by the
 * server transport, the client library and the ping-pong floor; see
 * include/goblin/fabric_ep.h. libc and libfabric only. */
#include <goblin/fabric_ep.h>

#include <errno.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_eq.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FABRIC_API_VERSION FI_VERSION(1, 9)
#define CQ_BATCH 16

static void close_fid(struct fid *fid)
{
    fi_close(fid);
}

static int ep_fail(struct goblin_fabric_ep *ep, const char *what, int rc)
{
    snprintf(ep->error, sizeof ep->error, "%s failed: %s (%d)", what, fi_strerror(-rc), rc);
    return -EIO;
}

/* Allocates (prefaulted) and, when the provider wants local registration,
 * registers a pool of count slots of ep->record bytes. */
static int pool_create(struct goblin_fabric_ep *ep, unsigned count, uint64_t access, char **pool,
                       struct goblin_fabric_slot **slots, struct fid_mr **mr, void **desc)
{
    size_t bytes = ep->record * count;
    *pool = calloc(1, bytes);
    *slots = calloc(count, sizeof **slots);
    if (!*pool || !*slots) {
        snprintf(ep->error, sizeof ep->error, "out of memory for %u slots", count);
        return -ENOMEM;
    }
    memset(*pool, 0, bytes); /* prefault */
    for (unsigned i = 0; i < count; i++) (*slots)[i].buf = *pool + ep->record * i;
    *desc = NULL;
    if (!(ep->info->domain_attr->mr_mode & FI_MR_LOCAL)) return 0;
    int rc = fi_mr_reg(ep->domain, *pool, bytes, access, 0, 0, 0, mr, NULL);
    if (rc) return ep_fail(ep, "fi_mr_reg", rc);
    *desc = fi_mr_desc(*mr);
    return 0;
}

static int ep_getinfo(struct goblin_fabric_ep *ep, const struct goblin_fabric_ep_options *o)
{
    struct fi_info *hints = fi_allocinfo();
    if (!hints) { /* out of memory, or no libfabric to load (fabric_load.c) */
        snprintf(ep->error, sizeof ep->error, "fi_allocinfo: %s", fi_strerror(FI_ENOMEM));
        return -ENOMEM;
    }
    hints->ep_attr->type = FI_EP_RDM;
    hints->caps = FI_MSG | FI_SOURCE;
    hints->mode = FI_CONTEXT | FI_CONTEXT2;
    hints->domain_attr->mr_mode = FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY;
    hints->domain_attr->threading = FI_THREAD_DOMAIN;
    /* fi_freeinfo frees prov_name with free(): hence strdup. */
    hints->fabric_attr->prov_name = strdup(o->provider);
    int rc = fi_getinfo(FABRIC_API_VERSION, o->address, NULL, o->address ? FI_SOURCE : 0, hints,
                        &ep->info);
    if (rc == 0 && o->address && ep->info->addr_format == FI_ADDR_STR) {
        /* Names that are not IP addresses (shm: a shared-memory region):
         * the address would become the name itself, shared by every
         * endpoint on it; let the provider choose a unique one. */
        fi_freeinfo(ep->info);
        ep->info = NULL;
        rc = fi_getinfo(FABRIC_API_VERSION, NULL, NULL, 0, hints, &ep->info);
    }
    fi_freeinfo(hints);
    if (rc) {
        snprintf(ep->error, sizeof ep->error,
                 "provider '%s' offers no FI_EP_RDM endpoint with FI_MSG | FI_SOURCE: "
                 "fi_getinfo: %s (%d)",
                 o->provider, fi_strerror(-rc), rc);
        return -ENODEV;
    }
    return 0;
}

/* The TX and RX completion queues; with `wait_fd`, each with a wait fd
 * when the provider offers one (else none: the caller keeps polling). */
static int cqs_open(struct goblin_fabric_ep *ep, bool wait_fd)
{
    struct fi_cq_attr cq = {.format = FI_CQ_FORMAT_MSG,
                            .wait_obj = wait_fd ? FI_WAIT_FD : FI_WAIT_NONE};
    for (;;) {
        int rc;
        cq.size = (size_t)ep->tx_count * 2;
        if ((rc = fi_cq_open(ep->domain, &cq, &ep->txcq, NULL)) == 0) {
            cq.size = (size_t)ep->rx_count * 2;
            rc = fi_cq_open(ep->domain, &cq, &ep->rxcq, NULL);
        }
        if (rc == 0) break;
        if (cq.wait_obj == FI_WAIT_NONE)
            return ep_fail(ep, ep->txcq ? "fi_cq_open (RX)" : "fi_cq_open (TX)", rc);
        if (ep->txcq) close_fid(&ep->txcq->fid);
        ep->txcq = NULL;
        cq.wait_obj = FI_WAIT_NONE; /* no wait fd from this provider */
    }
    ep->can_wait = cq.wait_obj == FI_WAIT_FD &&
                   fi_control(&ep->txcq->fid, FI_GETWAIT, &ep->tx_wait_fd) == 0 &&
                   fi_control(&ep->rxcq->fid, FI_GETWAIT, &ep->rx_wait_fd) == 0;
    return 0;
}

bool goblin_fabric_ep_trywait(struct goblin_fabric_ep *ep)
{
    struct fid *fids[2] = {&ep->rxcq->fid, &ep->txcq->fid};
    return ep->can_wait && fi_trywait(ep->fabric, fids, 2) == FI_SUCCESS;
}

int goblin_fabric_ep_open(struct goblin_fabric_ep *ep, const struct goblin_fabric_ep_options *o)
{
    ep->tx_count = o->tx_slots;
    ep->rx_count = o->rx_slots;
    ep->record = o->record;
    int rc = ep_getinfo(ep, o);
    if (rc) return rc;
    struct fi_info *info = ep->info;
    if ((rc = fi_fabric(info->fabric_attr, &ep->fabric, NULL))) return ep_fail(ep, "fi_fabric", rc);
    if ((rc = fi_domain(ep->fabric, info, &ep->domain, NULL))) return ep_fail(ep, "fi_domain", rc);
    if ((rc = cqs_open(ep, o->wait_fd))) return rc;
    struct fi_av_attr av = {.type = FI_AV_TABLE};
    if ((rc = fi_av_open(ep->domain, &av, &ep->av, NULL))) return ep_fail(ep, "fi_av_open", rc);
    if ((rc = fi_endpoint(ep->domain, info, &ep->ep, NULL))) return ep_fail(ep, "fi_endpoint", rc);
    if ((rc = fi_ep_bind(ep->ep, &ep->av->fid, 0)) ||
        (rc = fi_ep_bind(ep->ep, &ep->txcq->fid, FI_TRANSMIT)) ||
        (rc = fi_ep_bind(ep->ep, &ep->rxcq->fid, FI_RECV)))
        return ep_fail(ep, "fi_ep_bind", rc);
    if ((rc = fi_enable(ep->ep))) return ep_fail(ep, "fi_enable", rc);

    ep->inject_size = o->force_send ? 0 : info->tx_attr->inject_size;
    if (ep->inject_size > ep->record) ep->inject_size = ep->record;
    ep->inject_buf = malloc(ep->inject_size ? ep->inject_size : 1);
    if (!ep->inject_buf) return -ENOMEM;
    if ((rc = pool_create(ep, ep->tx_count, FI_SEND, &ep->tx_pool, &ep->tx_slots, &ep->tx_mr,
                          &ep->tx_desc)) ||
        (rc = pool_create(ep, ep->rx_count, FI_RECV, &ep->rx_pool, &ep->rx_slots, &ep->rx_mr,
                          &ep->rx_desc)))
        return rc;
    for (unsigned i = ep->tx_count; i-- > 0;) {
        ep->tx_slots[i].next_free = ep->tx_free;
        ep->tx_free = &ep->tx_slots[i];
    }
    for (unsigned i = 0; i < ep->rx_count; i++) {
        if ((rc = goblin_fabric_ep_post_recv(ep, &ep->rx_slots[i]))) return rc;
    }
    return 0;
}

void goblin_fabric_ep_close(struct goblin_fabric_ep *ep)
{
    if (ep->ep) close_fid(&ep->ep->fid);
    if (ep->tx_mr) close_fid(&ep->tx_mr->fid);
    if (ep->rx_mr) close_fid(&ep->rx_mr->fid);
    if (ep->av) close_fid(&ep->av->fid);
    if (ep->txcq) close_fid(&ep->txcq->fid);
    if (ep->rxcq) close_fid(&ep->rxcq->fid);
    if (ep->domain) close_fid(&ep->domain->fid);
    if (ep->fabric) close_fid(&ep->fabric->fid);
    if (ep->info) fi_freeinfo(ep->info);
    free(ep->tx_pool);
    free(ep->rx_pool);
    free(ep->tx_slots);
    free(ep->rx_slots);
    free(ep->inject_buf);
    ep->ep = NULL;
    ep->tx_mr = ep->rx_mr = NULL;
    ep->av = NULL;
    ep->txcq = ep->rxcq = NULL;
    ep->domain = NULL;
    ep->fabric = NULL;
    ep->info = NULL;
    ep->tx_pool = ep->rx_pool = ep->inject_buf = NULL;
    ep->tx_slots = ep->rx_slots = ep->tx_free = NULL;
}

static void slot_free(struct goblin_fabric_ep *ep, struct goblin_fabric_slot *s)
{
    s->next_free = ep->tx_free;
    ep->tx_free = s;
    ep->tx_in_flight--;
}

int goblin_fabric_ep_reap_tx(struct goblin_fabric_ep *ep)
{
    struct fi_cq_msg_entry done[CQ_BATCH];
    ssize_t n = fi_cq_read(ep->txcq, done, CQ_BATCH);
    if (n == -FI_EAVAIL) {
        struct fi_cq_err_entry err = {0};
        if (fi_cq_readerr(ep->txcq, &err, 0) != 1) return 0;
        ep->tx_errors++;
        snprintf(ep->error, sizeof ep->error, "send failed: %s", fi_strerror(err.err));
        if (!err.op_context) return 0;
        slot_free(ep, err.op_context);
        return 1;
    }
    if (n <= 0) return 0;
    for (ssize_t i = 0; i < n; i++) slot_free(ep, done[i].op_context);
    return (int)n;
}

int goblin_fabric_ep_send(struct goblin_fabric_ep *ep, fi_addr_t addr,
                          const struct goblin_fabric_header *h, const void *payload)
{
    size_t total = GOBLIN_FABRIC_HEADER_BYTES + h->payload_len;
    ssize_t rc;
    if (total <= ep->inject_size) {
        goblin_fabric_encode((unsigned char *)ep->inject_buf, h);
        if (h->payload_len)
            memcpy(ep->inject_buf + GOBLIN_FABRIC_HEADER_BYTES, payload, h->payload_len);
        rc = fi_inject(ep->ep, ep->inject_buf, total, addr);
        if (rc == 0) {
            ep->injected++;
            return 1;
        }
        if (rc != -FI_EAGAIN) goto failed;
    } else {
        struct goblin_fabric_slot *s = ep->tx_free;
        if (!s) {
            ep->tx_full++;
            goblin_fabric_ep_reap_tx(ep);
            return 0;
        }
        goblin_fabric_encode((unsigned char *)s->buf, h);
        if (h->payload_len) memcpy(s->buf + GOBLIN_FABRIC_HEADER_BYTES, payload, h->payload_len);
        rc = fi_send(ep->ep, s->buf, total, ep->tx_desc, addr, &s->ctx);
        if (rc == 0) {
            ep->tx_free = s->next_free;
            ep->tx_in_flight++;
            ep->sent++;
            return 1;
        }
        if (rc != -FI_EAGAIN) goto failed;
    }
    goblin_fabric_ep_reap_tx(ep); /* -FI_EAGAIN: progress, the caller retries */
    return 0;

failed:
    snprintf(ep->error, sizeof ep->error, "%s of a %zu-byte frame failed: %s",
             total <= ep->inject_size ? "fi_inject" : "fi_send", total, fi_strerror((int)-rc));
    return -1;
}

ssize_t goblin_fabric_ep_read_rx(struct goblin_fabric_ep *ep, struct fi_cq_msg_entry *done,
                                 fi_addr_t *src, size_t count)
{
    ssize_t n =
        src ? fi_cq_readfrom(ep->rxcq, done, count, src) : fi_cq_read(ep->rxcq, done, count);
    if (n == -FI_EAVAIL) {
        struct fi_cq_err_entry err = {0};
        if (fi_cq_readerr(ep->rxcq, &err, 0) != 1) return 0;
        ep->rx_errors++;
        snprintf(ep->error, sizeof ep->error, "receive failed: %s", fi_strerror(err.err));
        if (err.op_context) goblin_fabric_ep_post_recv(ep, err.op_context);
        return -1;
    }
    return n > 0 ? n : 0;
}

int goblin_fabric_ep_post_recv(struct goblin_fabric_ep *ep, struct goblin_fabric_slot *slot)
{
    ssize_t rc;
    while ((rc = fi_recv(ep->ep, slot->buf, ep->record, ep->rx_desc, FI_ADDR_UNSPEC, &slot->ctx)) ==
           -FI_EAGAIN)
        fi_cq_read(ep->rxcq, NULL, 0); /* progress */
    if (rc != 0) {
        ep->rx_errors++;
        return ep_fail(ep, "fi_recv", (int)rc);
    }
    return 0;
}
