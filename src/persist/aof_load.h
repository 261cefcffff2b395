/*
 * aof_load.h — reading AOF content (incr files, .base.aof): the RESP
 * command parser and the replay into the keyspace.
 *
 * An item is a command, "*<argc>\r\n" then argc times "$<len>\r\n<len
 * bytes>\r\n", or an annotation, a line starting with '#' (Redis 7's
 * "#TS:<unix time>"). Input ending inside an item is TRUNCATED; anything
 * else that is not an item is MALFORMED. Nothing is allocated from a
 * declared count or length: arguments point into the input and the
 * argument array grows with arguments actually read.
 *
 * Replay hands each command to the executor the command layer installs
 * (commands/replay.c: through command_call() with a reply that is
 * discarded, as Redis's fake client), as rdb.c takes functions from the
 * source that layer installs; persist knows no command. SELECT changes
 * the database; MULTI .. EXEC runs once EXEC is found (an unterminated
 * MULTI at the end is a truncation, as Redis 7.0). Only write commands are
 * replayed: anything else in the file is an error (Redis would run it; an
 * AOF holding SAVE or SHUTDOWN is not one goblin-core or Redis wrote).
 * Without an executor (the fuzzers parse only) a replay fails.
 */
#ifndef GOBLIN_AOF_LOAD_H
#define GOBLIN_AOF_LOAD_H

#include <stdbool.h>
#include <stddef.h>

enum aof_item {
    AOF_ITEM_COMMAND,
    AOF_ITEM_ANNOTATION,
    AOF_ITEM_TRUNCATED, /* the input ends inside the item */
    AOF_ITEM_MALFORMED,
};

struct aof_command {
    int argc, cap;
    const char **argv; /* into the input */
    size_t *len;
};

void aof_command_free(struct aof_command *c);

/* Parses the item at p[0..n): *used is its length (COMMAND, ANNOTATION);
 * *why says what is wrong (MALFORMED). */
enum aof_item aof_parse_item(const char *p, size_t n, size_t *used, struct aof_command *cmd,
                             const char **why);

/* Runs one replayed command (never SELECT, MULTI or EXEC: the replay
 * handles those) in database db; false with err naming what is wrong and
 * where (`file`, `offset`): an unknown command, one that is not a data
 * write, a wrong number of arguments. */
typedef bool aof_execute_fn(int db, int argc, const char **argv, const size_t *len,
                            const char *file, size_t offset, char *err, size_t err_len);

/* Installs the executor (the command layer, once at startup). */
void aof_set_executor(aof_execute_fn *execute);

enum aof_load_status { AOF_LOAD_OK, AOF_LOAD_TRUNCATED, AOF_LOAD_ERROR };

/* Replays one file's content (`name` for messages). TRUNCATED: the
 * commands before *valid_len ran; what follows is an incomplete command or
 * an unterminated transaction. ERROR: err says what and where. */
enum aof_load_status aof_load_buffer(const char *data, size_t len, const char *name,
                                     size_t *valid_len, long long *commands, char *err,
                                     size_t err_len);

#endif
