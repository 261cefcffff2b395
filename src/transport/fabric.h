/*
 * fabric.h — the libfabric reliable-datagram transport, server side
 * (--libfabric PROVIDER ADDRESS PORT, --efa ADDRESS PORT; operator notes in
 * docs/libfabric.md, envelope in include/goblin/fabric_envelope.h).
 *
 * Each flag opens one FI_EP_RDM endpoint (caps FI_MSG | FI_SOURCE) of the
 * named provider, with a TX and an RX completion queue and an address
 * vector, and serves many logical clients (sessions) on it. The endpoint is
 * a polled target at its flag's position among --ring/--libfabric flags
 * (strict priority; see event_loop.h for the starvation hazard). A
 * provider that cannot give FI_EP_RDM + FI_MSG is a startup error naming
 * the provider and fi_getinfo's error: never a silent substitution.
 *
 * Bootstrap: ADDRESS:PORT is a TCP listener whose only job is to hand a
 * connecting client the endpoint's name (fi_getname) and close. It is
 * accept()ed from only when epoll reports it readable (seed 000).
 *
 * Sessions: a client's HELLO (random 64-bit session id, its endpoint name,
 * its envelope-version range) opens a session, which is a conn like any
 * other (auth, SBE detection, Pub/Sub). DATA frames are numbered per
 * direction from 1 and restored to order by a bounded reorder window
 * (include/goblin/fabric_reorder.h): overflow ends that session only.
 * Replies carry the request's sequence as correlation (RESP: the last
 * request delivered before the reply was written), Pub/Sub pushes 0.
 *
 * Sending: a frame that fits the provider's inject size goes out with
 * fi_inject (unless --libfabric-force-send); others are copied into one of
 * --libfabric-tx-slots registered buffers and sent with fi_send, the slot
 * reclaimed from the TX completion queue. With every slot in flight the
 * conn waits for writability (back-pressure: nothing is dropped) and the
 * poll resumes it when a TX completion frees a slot. Receives are pre-posted
 * (--libfabric-rx-slots buffers of --libfabric-max-record bytes) and
 * reposted once their message has been consumed (copied when the conn
 * cannot take it all at once).
 *
 * Trust: RESP sessions authenticate like sockets unless
 * --no-auth-libfabric; the SBE wire (no authentication) is trusted-fabric
 * traffic. Liveness: a session silent for --efa-heartbeat-timeout-ms is
 * ended (clients ping after a third of it); 0 disables expiry.
 *
 * Peer-driven state is bounded: the address vector holds one entry per
 * client endpoint name (reused when it says hello again), removed
 * (fi_av_remove) shortly after that endpoint's last session ended — by BYE,
 * expiry or a reorder overflow; one endpoint may hold at most
 * --libfabric-sessions-per-peer sessions (a hello beyond is refused with a
 * clear error), and every session counts against maxclients.
 */
#ifndef GOBLIN_TRANSPORT_FABRIC_H
#define GOBLIN_TRANSPORT_FABRIC_H

#include "util/buf.h"

/* The registry entry is `fabric_transport` (transport/transport.h). Its
 * INFO section, libfabric, is per target: lines
 * "libfabric<i>_<field>:<value>\r\n" (sessions, hellos refused, frames,
 * inject vs send, reorder window, TX back-pressure, AV entries; listed in
 * docs/libfabric.md). */

/* Settings (core/config.h): --libfabric, --efa, libfabric-*. */
struct config_table;
extern const struct config_table fabric_config;

#endif
