/* aof_load.c — AOF replay into the keyspace; see aof_load.h (the parser is aof_parse.c). */
#include "persist/aof_load.h"

#include <strings.h>
#include <stdio.h>
#include <string.h>

#include "store/db.h"
#include "util/numparse.h"
#include "util/xmalloc.h"

/* --- replay ------------------------------------------------------------- */

static aof_execute_fn *executor;

void aof_set_executor(aof_execute_fn *execute)
{
    executor = execute;
}

struct replay {
    const char *name;
    int db;
    char *err;
    size_t err_len;
};

static bool word_is(const struct aof_command *c, const char *word)
{
    return c->len[0] == strlen(word) && strncasecmp(c->argv[0], word, c->len[0]) == 0;
}

static bool run_command(struct replay *r, const struct aof_command *c, size_t offset)
{
    if (word_is(c, "select")) {
        long long id;
        if (c->argc != 2 || !num_parse_ll(c->argv[1], c->len[1], &id) || id < 0 ||
            id >= keyspace.count) {
            snprintf(r->err, r->err_len, "bad SELECT in the append only file %s at offset %zu",
                     r->name, offset);
            return false;
        }
        r->db = (int)id;
        return true;
    }
    if (!executor) {
        snprintf(r->err, r->err_len, "no command executor to replay the append only file %s",
                 r->name);
        return false;
    }
    return executor(r->db, c->argc, c->argv, c->len, r->name, offset, r->err, r->err_len);
}

/* From the item after MULTI at `at`: the offset of the matching EXEC's
 * item, or a parse result other than COMMAND. */
static enum aof_item find_exec(const char *data, size_t len, size_t at, size_t *exec_at,
                               struct aof_command *c, const char **why)
{
    for (;;) {
        size_t used;
        enum aof_item it = aof_parse_item(data + at, len - at, &used, c, why);
        if (it == AOF_ITEM_TRUNCATED || it == AOF_ITEM_MALFORMED) {
            *exec_at = at;
            return it;
        }
        if (it == AOF_ITEM_COMMAND && word_is(c, "exec")) {
            *exec_at = at;
            return AOF_ITEM_COMMAND;
        }
        at += used;
    }
}

enum aof_load_status aof_load_buffer(const char *data, size_t len, const char *name,
                                     size_t *valid_len, long long *commands, char *err,
                                     size_t err_len)
{
    struct replay r = {.name = name, .err = err, .err_len = err_len};
    struct aof_command c = {0};
    enum aof_load_status status = AOF_LOAD_OK;
    size_t at = 0, exec_at = SIZE_MAX;
    *commands = 0;
    while (at < len) {
        size_t used;
        const char *why = "";
        enum aof_item it = aof_parse_item(data + at, len - at, &used, &c, &why);
        if (it == AOF_ITEM_TRUNCATED) {
            status = AOF_LOAD_TRUNCATED;
            break;
        }
        if (it == AOF_ITEM_MALFORMED) {
            snprintf(err, err_len,
                     "Bad file format reading the append only file %s at offset %zu (%s): make "
                     "a backup of your AOF file, then use ./redis-check-aof --fix "
                     "<filename.manifest>",
                     name, at, why);
            status = AOF_LOAD_ERROR;
            break;
        }
        if (it == AOF_ITEM_COMMAND && word_is(&c, "multi")) {
            struct aof_command scan = {0};
            enum aof_item end = find_exec(data, len, at + used, &exec_at, &scan, &why);
            aof_command_free(&scan);
            if (end == AOF_ITEM_TRUNCATED) {
                status = AOF_LOAD_TRUNCATED; /* the transaction is dropped whole */
                break;
            }
            if (end == AOF_ITEM_MALFORMED) {
                snprintf(err, err_len,
                         "Bad file format reading the append only file %s at offset %zu (%s)", name,
                         exec_at, why);
                status = AOF_LOAD_ERROR;
                break;
            }
        } else if (it == AOF_ITEM_COMMAND && word_is(&c, "exec")) {
            if (exec_at != at) {
                snprintf(err, err_len,
                         "EXEC without MULTI in the append only file %s at offset %zu", name, at);
                status = AOF_LOAD_ERROR;
                break;
            }
            exec_at = SIZE_MAX;
        } else if (it == AOF_ITEM_COMMAND) {
            if (!run_command(&r, &c, at)) {
                status = AOF_LOAD_ERROR;
                break;
            }
            ++*commands;
        }
        at += used;
    }
    *valid_len = at;
    aof_command_free(&c);
    return status;
}
