/* Integration: hiredis over TCP and the Unix socket against a real server —
 * the commands of the foundation answer as Redis does. */
#include <hiredis/hiredis.h>
#include <string.h>

#include "testlib.h"

static void exercise(redisContext *c)
{
    redisReply *r = redisCommand(c, "PING");
    CHECK(r && r->type == REDIS_REPLY_STATUS && strcmp(r->str, "PONG") == 0);
    freeReplyObject(r);
    r = redisCommand(c, "SET %s %b", "key", "v\0al", (size_t)4);
    CHECK(r && r->type == REDIS_REPLY_STATUS && strcmp(r->str, "OK") == 0);
    freeReplyObject(r);
    r = redisCommand(c, "GET key");
    CHECK(r && r->type == REDIS_REPLY_STRING && r->len == 4 && memcmp(r->str, "v\0al", 4) == 0);
    freeReplyObject(r);
    r = redisCommand(c, "DEL key nokey");
    CHECK(r && r->type == REDIS_REPLY_INTEGER && r->integer == 1);
    freeReplyObject(r);
    r = redisCommand(c, "GET key");
    CHECK(r && r->type == REDIS_REPLY_NIL);
    freeReplyObject(r);
}

int main(void)
{
    struct test_server s;
    test_server_start(&s, TEST_SERVER_GOBLIN, NULL);

    redisContext *tcp = redisConnect("127.0.0.1", s.port);
    CHECK(tcp && !tcp->err);
    exercise(tcp);
    redisFree(tcp);

    redisContext *unx = redisConnectUnix(s.unix_path);
    CHECK(unx && !unx->err);
    exercise(unx);
    redisFree(unx);

    test_server_stop(&s);
    return 0;
}
