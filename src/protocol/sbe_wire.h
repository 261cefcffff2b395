/*
 * sbe_wire.h — the SBE wire's parser state (docs/sbe.md; the wire's table
 * is `sbe_wire` in wire.h).
 *
 * Trust: a conn speaks SBE only with --enable-sbe, on rings, Unix sockets,
 * loopback TCP (other TCP peers only with --sbe-allow-remote) and
 * libfabric (connection/conn.c). When a password or users are set, a
 * session that its transport does not trust (conn_starts_authenticated)
 * must send the Auth template first: until AUTH succeeds every other
 * frame is answered NOAUTH, and a frame longer than SBE_UNAUTH_MAX_FRAME
 * ends the connection (what a stranger may make the server hold).
 *
 * Framing: a uint32 little-endian length, then one SBE message (standard
 * header, block, groups, var-data; include/goblin/sbe_codec.h). Frames
 * accumulate in the conn's input like RESP (a ring delivers one per
 * record). A frame whose length is trustworthy but whose content is not
 * (unknown template or schema, short block, var-data or a group past the
 * frame) is answered with an error and skipped (WIRE_REJECTED); a length
 * that is not (shorter than a header, longer than SBE_MAX_FRAME) ends the
 * connection after an error (WIRE_ERROR).
 */
#ifndef GOBLIN_SBE_WIRE_H
#define GOBLIN_SBE_WIRE_H

#include <stddef.h>
#include <stdint.h>

#include "protocol/typed_call.h"

/* The longest frame accepted: var-data is at most 1 GiB by the schema,
 * and the query-buffer limit bounds what a conn may hold anyway. */
#define SBE_MAX_FRAME (1024u * 1024u * 1024u + 64u * 1024u)

/* The longest frame a session that has not authenticated may send: an Auth
 * frame whose username and password are each as long as RESP lets an
 * unauthenticated client's arguments be (RESP_UNAUTH_MAX_BULK, 16 KiB). */
#define SBE_UNAUTH_MAX_FRAME (2u * 16384u + 64u)

struct sbe_parser {
    const char **argv; /* arguments of the current request, into the input */
    size_t *argv_len;
    size_t argv_cap;
    size_t pending_frame;          /* bytes of the incomplete frame at the head (0: none) */
    struct typed_call typed;       /* the current typed call (typed templates) */
    char number[TYPED_NUMBER_CAP]; /* its number lowered to text (inside MULTI) */
    char error[192];
};

#endif
