/*
 * resp_encode.h — RESP primitives shared by the RESP2 and RESP3 encoder
 * tables (reply_resp2.c, reply_resp3.c). Internal to src/protocol: command
 * handlers go through reply.h. Each function appends to r->out.
 */
#ifndef GOBLIN_RESP_ENCODE_H
#define GOBLIN_RESP_ENCODE_H

#include "protocol/reply.h"

/* "<prefix><n>\r\n" with n in decimal. */
void resp_header(struct reply *r, char prefix, long long n);
/* The same header inserted at mark m (a deferred length). */
void resp_header_at(struct reply *r, reply_mark m, char prefix, long long n);

/* Rows spelled the same in RESP2 and RESP3. */
void resp_status(struct reply *r, const char *s, size_t n);
void resp_error(struct reply *r, const char *text, size_t n);
void resp_integer(struct reply *r, long long v);
void resp_bulk(struct reply *r, const void *p, size_t n);
void resp_array_len(struct reply *r, long long n);
reply_mark resp_defer(struct reply *r);
void resp_defer_array(struct reply *r, reply_mark m, long long n);

#endif
