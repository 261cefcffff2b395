/*
 * fuzz_acl_file.c — libFuzzer harness for the aclfile parser
 * (src/core/acl_file_parse.c): the file at startup and at ACL LOAD, written
 * by whoever can write it (an operator, or ACL SAVE from a client allowed
 * to run ACL).
 *
 * fuzz-sources: src/core/acl_file_parse.c src/core/acl.c
 * fuzz-sources: src/commands/generated/command_meta_table.c
 * fuzz-sources: src/util/buf.c src/util/glob.c src/util/split_args.c src/util/xmalloc.c
 *
 * Input: the file's bytes as they are. The command ids are the generated
 * metadata's rows (every command and subcommand Redis 7.0 has), as in
 * fuzz_acl_rules.c.
 *
 * Contract checked: the parse either returns users and no message, or
 * returns none and messages ending in Redis's "no change ... was performed";
 * the users' names are distinct and hold no whitespace (an empty one is
 * Redis's too); what ACL SAVE would
 * write for them (a "user <name> <description>" line each) parses again
 * into users with the same descriptions, unless a description holds a
 * parenthesis (ambiguous in Redis's format too: fuzz_acl_rules.c says why);
 * nothing leaks (ASan).
 */
#include <stdbool.h>

#include "commands/command_meta.h"
#include "core/acl.h"
#include "fuzz_common.h"
#include "util/buf.h"
#include "util/xmalloc.h"

static struct acl_command_info rows[ACL_COMMAND_BITS];

static void install_commands(void)
{
    static bool done;
    if (done) return;
    int n = 0;
    for (size_t i = 0; i < command_meta_count && n < ACL_COMMAND_BITS - 1; i++)
        rows[n++] = (struct acl_command_info){
            .full_name = command_meta_table[i].full_name, .parent = -1, .in_redis = true};
    acl_set_commands(rows, n);
    done = true;
}

static void free_users(struct acl_user **users, int count)
{
    for (int i = 0; i < count; i++) acl_user_free(users[i]);
    xfree(users);
}

static bool has_space(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r' || s[i] == '\v' ||
            s[i] == '\f' || s[i] == '\0')
            return true;
    return false;
}

static const char no_change[] =
    "WARNING: ACL errors detected, no change to the previously active ACL rules was performed";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    install_commands();
    struct acl_user **users = NULL;
    int count = -1;
    struct buf errors;
    buf_init(&errors, 64);
    bool ok = acl_file_parse((const char *)data, size, "fuzz.acl", &users, &count, &errors);
    if (!ok) {
        size_t n = buf_len(&errors), m = sizeof no_change - 1;
        FUZZ_CHECK(n >= m && memcmp(buf_head(&errors) + n - m, no_change, m) == 0,
                   "a refused file without Redis's closing message (%zu bytes of errors)", n);
        FUZZ_CHECK(users == NULL && count == -1, "a refused file returned users");
        buf_free(&errors);
        return 0;
    }
    FUZZ_CHECK(buf_len(&errors) == 0, "users returned with messages");
    FUZZ_CHECK(count >= 0, "count %d", count);

    /* Names distinct and clean; the file ACL SAVE would write. */
    struct buf file, desc;
    buf_init(&file, 256);
    buf_init(&desc, 64);
    bool readable = true;
    for (int i = 0; i < count; i++) {
        const struct acl_user *u = users[i];
        /* Empty is allowed: "user  on" (two spaces) names "", as in Redis. */
        FUZZ_CHECK(!has_space(u->name, u->name_len), "user %d's name holds whitespace", i);
        for (int j = 0; j < i; j++)
            FUZZ_CHECK(users[j]->name_len != u->name_len ||
                           memcmp(users[j]->name, u->name, u->name_len) != 0,
                       "users %d and %d share a name", j, i);
        buf_truncate(&desc, 0);
        acl_describe_user(u, &desc);
        if (memchr(buf_head(&desc), '(', buf_len(&desc)) ||
            memchr(buf_head(&desc), ')', buf_len(&desc)))
            readable = false;
        buf_append(&file, "user ", 5);
        buf_append(&file, u->name, u->name_len);
        buf_append_char(&file, ' ');
        buf_append(&file, buf_head(&desc), buf_len(&desc));
        buf_append_char(&file, '\n');
    }
    if (readable) {
        struct acl_user **again = NULL;
        int again_count = 0;
        struct buf again_errors, a, b;
        buf_init(&again_errors, 64);
        buf_init(&a, 64);
        buf_init(&b, 64);
        FUZZ_CHECK(acl_file_parse(buf_head(&file), buf_len(&file), "saved.acl", &again,
                                  &again_count, &again_errors),
                   "the saved file is refused: %.*s", (int)buf_len(&again_errors),
                   buf_head(&again_errors));
        FUZZ_CHECK(again_count == count, "%d users saved, %d read back", count, again_count);
        for (int i = 0; i < count; i++) {
            buf_truncate(&a, 0);
            buf_truncate(&b, 0);
            acl_describe_user(users[i], &a);
            acl_describe_user(again[i], &b);
            FUZZ_CHECK(buf_len(&a) == buf_len(&b) &&
                           memcmp(buf_head(&a), buf_head(&b), buf_len(&a)) == 0,
                       "user %d does not round-trip through ACL SAVE / LOAD", i);
        }
        free_users(again, again_count);
        buf_free(&again_errors);
        buf_free(&a);
        buf_free(&b);
    }
    buf_free(&file);
    buf_free(&desc);
    free_users(users, count);
    buf_free(&errors);
    return 0;
}
