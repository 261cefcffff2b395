/*
 * cmd_stream.h — what the stream command files share (cmd_stream.c:
 * entries and the table; cmd_stream_read.c: XREAD, XREADGROUP and their
 * blocking; cmd_stream_group.c: XGROUP, XACK, XPENDING, XCLAIM,
 * XAUTOCLAIM; cmd_stream_info.c: XINFO): ID arguments with Redis's errors,
 * replies of entries, and the stream's writes to the append-only file in
 * Redis 7.0's rewritten forms.
 */
#ifndef GOBLIN_CMD_STREAM_H
#define GOBLIN_CMD_STREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "commands/command.h"
#include "store/stream.h"
#include "store/stream_cgroup.h"

/* The stream at argv[i] for reading / writing: NULL when absent, or of
 * another type (WRONGTYPE replied, *replied set). */
struct kv *stream_lookup_read(struct cmd_ctx *ctx, int i, bool *replied);
struct kv *stream_lookup_write(struct cmd_ctx *ctx, int i, bool *replied);

static inline struct stream *stream_of(struct kv *kv)
{
    return kv->v.ptr;
}

/* An ID argument (stream_id_parse's flags); replies Redis's "Invalid
 * stream ID" error and returns false when it is not one. */
bool stream_arg_id(struct cmd_ctx *ctx, int i, uint64_t missing_seq, unsigned flags,
                   struct stream_id *out, bool *seq_given);

/* The strict IDs argv[first..argc), into `small` when they fit (small_n),
 * else a new array the caller frees; NULL having replied the "Invalid
 * stream ID" error when one is not an ID (all parsed before any is used,
 * so a bad one changes nothing). */
struct stream_id *stream_arg_ids(struct cmd_ctx *ctx, int first, struct stream_id *small,
                                 size_t small_n);

/* A range bound: an ID, "-"/"+", or "(" and a strict ID (exclusive: the
 * next ID for a start, the previous for an end, with Redis's "invalid
 * start/end ID for the interval" errors). */
bool stream_arg_range_start(struct cmd_ctx *ctx, int i, struct stream_id *out);
bool stream_arg_range_end(struct cmd_ctx *ctx, int i, struct stream_id *out);

void reply_stream_id(struct reply *r, const struct stream_id *id);

/* argv[i] as Redis's "%s" prints it into an error (up to a NUL byte), for
 * a "%.*s" conversion. */
#define STREAM_CSTR_ARG(ctx, i) (int)strnlen((ctx)->argv[i], (ctx)->argv_len[i]), (ctx)->argv[i]

/* One entry of the iterator (just returned by stream_iter_next) as Redis
 * replies it: [id, [field, value, ...]]. */
void reply_stream_entry(struct reply *r, struct stream_iter *it, const struct stream_id *id,
                        size_t nfields);

/* Flags of stream_reply_range (Redis's STREAM_RWR_*). */
enum stream_range_flags {
    STREAM_RANGE_NOACK = 1u << 0,   /* deliveries create no pending entries */
    STREAM_RANGE_RAW = 1u << 1,     /* the entries alone, without the array header */
    STREAM_RANGE_HISTORY = 1u << 2, /* the consumer's own pending entries */
};

/* Redis's streamReplyWithRange: the entries in [start, end] (end NULL:
 * to the end), at most count (0: all), reversed when rev. With a group
 * and consumer, entries past the group's last ID move it, and each
 * delivered entry becomes pending for the consumer (unless NOACK), written
 * to the append-only file as XCLAIM (and XGROUP SETID for NOACK), as
 * Redis propagates them; key/group name the stream and group there.
 * Returns how many entries were replied. */
size_t stream_reply_range(struct cmd_ctx *ctx, struct stream *s, const struct stream_id *start,
                          const struct stream_id *end, size_t count, bool rev,
                          struct stream_cgroup *group, struct stream_consumer *consumer,
                          unsigned flags, const char *key, size_t key_len);

/* --- the append-only file (Redis's alsoPropagate forms) --------------- */

/* XCLAIM key group consumer 0 id TIME ms RETRYCOUNT n FORCE JUSTID LASTID
 * last-id: makes replaying reproduce a pending entry. */
void stream_propagate_claim(struct cmd_ctx *ctx, const char *key, size_t key_len,
                            const struct stream_cgroup *g, const struct stream_id *id,
                            const struct stream_nack *nack);
/* XGROUP SETID key group last-id ENTRIESREAD n. */
void stream_propagate_group_id(struct cmd_ctx *ctx, const char *key, size_t key_len,
                               const struct stream_cgroup *g);
/* XGROUP CREATECONSUMER key group consumer. */
void stream_propagate_consumer(struct cmd_ctx *ctx, const char *key, size_t key_len,
                               const struct stream_cgroup *g, const struct stream_consumer *c);

/* A consumer looked up for use (its seen time refreshed), created when
 * absent — counted as a change and announced (xgroup-createconsumer) as
 * Redis's streamCreateConsumer. */
struct stream_consumer *stream_consumer_use(struct cmd_ctx *ctx, struct stream_cgroup *g,
                                            const char *name, size_t len, const char *key,
                                            size_t key_len, bool *created);

/* The handlers of the other stream files (the table is in cmd_stream.c). */
void cmd_xread(struct cmd_ctx *ctx);
void cmd_xreadgroup(struct cmd_ctx *ctx);
void cmd_xgroup_create(struct cmd_ctx *ctx);
void cmd_xgroup_setid(struct cmd_ctx *ctx);
void cmd_xgroup_destroy(struct cmd_ctx *ctx);
void cmd_xgroup_createconsumer(struct cmd_ctx *ctx);
void cmd_xgroup_delconsumer(struct cmd_ctx *ctx);
void cmd_xgroup_help(struct cmd_ctx *ctx);
void cmd_xack(struct cmd_ctx *ctx);
void cmd_xpending(struct cmd_ctx *ctx);
void cmd_xclaim(struct cmd_ctx *ctx);
void cmd_xautoclaim(struct cmd_ctx *ctx);
void cmd_xinfo_stream(struct cmd_ctx *ctx);
void cmd_xinfo_groups(struct cmd_ctx *ctx);
void cmd_xinfo_consumers(struct cmd_ctx *ctx);
void cmd_xinfo_help(struct cmd_ctx *ctx);

#endif
