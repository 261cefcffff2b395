/*
 * goblin-cli — a redis-cli-like client that speaks TCP, Unix sockets and
 * Goblin Core's shared-memory rings and libfabric transport.
 *
 *   goblin-cli [-h host] [-p port] [-s socket] [--ring PATH | --ring-pool DIR]
 *              [--fabric PROVIDER [--fabric-local ADDR] [--fabric-force-send]] (-h/-p: bootstrap)
 *              [-a password] [--user name] [-n db] [-3] [--sbe] [--raw|--no-raw]
 *              [command args...]
 *
 * --sbe speaks the binary SBE wire (docs/sbe.md; the server needs
 * --enable-sbe): commands travel as the generic template and replies print
 * as their RESP3 equivalents would.
 *
 * With a command: runs it once and prints the reply. Without one: reads
 * commands line by line (an interactive prompt when stdin is a terminal).
 * Replies print like redis-cli's: formatted on a terminal, raw otherwise.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <strings.h>
#include <errno.h>
#include <goblin/resp_reader.h>
#include <goblin/fabric_client.h>
#include <goblin/ring_client.h>
#include <goblin/sbe_client.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "protocol/resp_parser.h"
#include "util/split_args.h"
#include "util/buf.h"

/* End of the reply being printed (replies are complete and framed). */
static const char *print_end;

struct cli {
    int fd;
    struct goblin_ring *ring;
    struct goblin_sbe *sbe; /* --sbe: the connection, whatever its transport */
    struct goblin_fabric *fabric;
    struct buf rx;
    bool raw;
};

static int die(const char *fmt, const char *arg)
{
    fprintf(stderr, fmt, arg);
    fputc('\n', stderr);
    exit(1);
}

static void connect_socket(struct cli *c, const char *host, const char *port, const char *unix_path)
{
    if (unix_path) {
        struct sockaddr_un a = {.sun_family = AF_UNIX};
        snprintf(a.sun_path, sizeof a.sun_path, "%s", unix_path);
        c->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (connect(c->fd, (struct sockaddr *)&a, sizeof a) != 0)
            die("Could not connect to %s", unix_path);
        return;
    }
    struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *res;
    if (getaddrinfo(host, port, &hints, &res) != 0) die("Could not resolve %s", host);
    for (struct addrinfo *a = res; a; a = a->ai_next) {
        c->fd = socket(a->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (c->fd >= 0 && connect(c->fd, a->ai_addr, a->ai_addrlen) == 0) {
            int one = 1;
            setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
            freeaddrinfo(res);
            return;
        }
        if (c->fd >= 0) close(c->fd);
    }
    freeaddrinfo(res);
    fprintf(stderr, "Could not connect to %s:%s: %s\n", host, port, strerror(errno));
    exit(1);
}

static void send_command(struct cli *c, int argc, const char *const *argv, const size_t *lens)
{
    if (c->sbe) {
        int64_t rc = goblin_sbe_command(c->sbe, argc, argv, lens);
        if (rc < 0) die("SBE send failed: %s", strerror((int)-rc));
        return;
    }
    if (c->ring) {
        int rc = goblin_ring_send_command(c->ring, argc, argv, lens);
        if (rc) die("ring send failed: %s", strerror(-rc));
        return;
    }
    if (c->fabric) {
        int rc = goblin_fabric_send_command(c->fabric, argc, argv, lens);
        if (rc) die("libfabric send failed: %s", goblin_fabric_error(c->fabric));
        return;
    }
    struct buf out;
    buf_init(&out, 256);
    char head[32];
    buf_append(&out, head, (size_t)snprintf(head, sizeof head, "*%d\r\n", argc));
    for (int i = 0; i < argc; i++) {
        buf_append(&out, head, (size_t)snprintf(head, sizeof head, "$%zu\r\n", lens[i]));
        buf_append(&out, argv[i], lens[i]);
        buf_append(&out, "\r\n", 2);
    }
    for (size_t off = 0; off < buf_len(&out);) {
        ssize_t n = write(c->fd, buf_head(&out) + off, buf_len(&out) - off);
        if (n <= 0) die("write failed: %s", strerror(errno));
        off += (size_t)n;
    }
    buf_free(&out);
}

/* Returns a malloc'd copy of the next complete reply (length in *len). */
static char *read_reply(struct cli *c, size_t *len)
{
    if (c->sbe) {
        struct goblin_sbe_reply r;
        int rc = goblin_sbe_read_reply(c->sbe, &r, -1);
        if (rc == -EPIPE) die("%s", "Error: Server closed the connection");
        if (rc) die("SBE read failed: %s", strerror(-rc));
        char *out = NULL;
        size_t cap = 0;
        *len = 0;
        /* Every top-level value (SUBSCRIBE a b answers one per channel). */
        for (size_t i = 0; i < r.count;) {
            i = goblin_sbe_to_resp3(&r, i, &out, len, &cap);
            if (i == (size_t)-1) die("%s", "out of memory");
        }
        goblin_sbe_reply_free(&r);
        print_end = out + *len;
        return out;
    }
    if (c->ring || c->fabric) {
        const char *reply;
        ssize_t n = c->ring ? goblin_ring_read_reply(c->ring, &reply, -1)
                            : goblin_fabric_read_reply(c->fabric, &reply, -1);
        if (n <= 0 && c->fabric) die("libfabric session ended: %s", goblin_fabric_error(c->fabric));
        if (n <= 0) die("ring closed: %s", n == 0 ? "timeout" : strerror((int)-n));
        char *copy = malloc((size_t)n + 1);
        memcpy(copy, reply, (size_t)n);
        copy[n] = '\0';
        *len = (size_t)n;
        print_end = copy + n;
        return copy;
    }
    for (;;) {
        long long n = resp_reply_length(buf_head(&c->rx), buf_len(&c->rx));
        if (n < 0) die("%s", "protocol error in the server's reply");
        if (n > 0) {
            char *copy = malloc((size_t)n + 1);
            memcpy(copy, buf_head(&c->rx), (size_t)n);
            copy[n] = '\0';
            buf_consume(&c->rx, (size_t)n);
            *len = (size_t)n;
            print_end = copy + n;
            return copy;
        }
        buf_reserve(&c->rx, 65536);
        ssize_t got = read(c->fd, buf_tail(&c->rx), buf_room(&c->rx));
        if (got <= 0) die("%s", "Error: Server closed the connection");
        c->rx.end += (size_t)got;
    }
}

/* --- printing, as redis-cli does ----------------------------------------- */

static void print_quoted(const char *p, size_t n)
{
    putchar('"');
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)p[i];
        switch (ch) {
        case '\\':
            fputs("\\\\", stdout);
            break;
        case '"':
            fputs("\\\"", stdout);
            break;
        case '\n':
            fputs("\\n", stdout);
            break;
        case '\r':
            fputs("\\r", stdout);
            break;
        case '\t':
            fputs("\\t", stdout);
            break;
        case '\a':
            fputs("\\a", stdout);
            break;
        case '\b':
            fputs("\\b", stdout);
            break;
        default:
            if (ch < 32 || ch >= 127)
                printf("\\x%02x", ch);
            else
                putchar(ch);
        }
    }
    putchar('"');
}

static size_t print_value(const char *p, bool raw, int indent);

/* A map key followed by " => " (no newline), as redis-cli prints RESP3 maps. */
static size_t print_value_inline_key(const char *p, size_t len, bool raw)
{
    if (p[0] == '$' && !raw) {
        const char *eol = strstr(p, "\r\n");
        long long n = strtoll(p + 1, NULL, 10);
        if (n >= 0) print_quoted(eol + 2, (size_t)n);
        fputs(" => ", stdout);
        return len;
    }
    size_t spanned = print_value(p, raw, 0);
    if (!raw) fputs("   => ", stdout);
    return spanned;
}

/* Prints the reply at p (complete, framed); returns bytes it spans. */
static size_t print_value(const char *p, bool raw, int indent)
{
    const char *eol = strstr(p, "\r\n");
    size_t head = (size_t)(eol - p) + 2;
    const char *text = p + 1;
    size_t tlen = (size_t)(eol - text);
    long long n;
    switch (p[0]) {
    case '+':
        printf("%.*s\n", (int)tlen, text);
        return head;
    case '-':
        printf(raw ? "%.*s\n" : "(error) %.*s\n", (int)tlen, text);
        return head;
    case ':':
        printf(raw ? "%.*s\n" : "(integer) %.*s\n", (int)tlen, text);
        return head;
    case ',':
        printf(raw ? "%.*s\n" : "(double) %.*s\n", (int)tlen, text);
        return head;
    case '(':
        printf(raw ? "%.*s\n" : "(big number) %.*s\n", (int)tlen, text);
        return head;
    case '#':
        printf(raw ? "%s\n" : "(%s)\n", text[0] == 't' ? "true" : "false");
        return head;
    case '_':
        printf(raw ? "\n" : "(nil)\n");
        return head;
    case '$':
    case '=':
        n = strtoll(text, NULL, 10);
        if (n < 0) {
            printf(raw ? "\n" : "(nil)\n");
            return head;
        }
        if (p[0] == '=' && n >= 4) { /* verbatim: skip the "txt:" format prefix */
            fwrite(p + head + 4, 1, (size_t)n - 4, stdout);
            putchar('\n');
        } else if (raw) {
            fwrite(p + head, 1, (size_t)n, stdout);
            putchar('\n');
        } else {
            print_quoted(p + head, (size_t)n);
            putchar('\n');
        }
        return head + (size_t)n + 2;
    case '*':
    case '~':
    case '>':
    case '%': {
        n = strtoll(text, NULL, 10);
        if (n < 0) {
            printf(raw ? "\n" : "(nil)\n");
            return head;
        }
        if (n == 0) {
            if (!raw) printf(p[0] == '%' ? "(empty hash)\n" : "(empty array)\n");
            return head;
        }
        bool map = p[0] == '%';
        size_t off = head;
        int width = 1;
        for (long long t = n; t >= 10; t /= 10) width++;
        for (long long i = 0; i < n; i++) {
            if (!raw) {
                if (i) printf("%*s", indent, "");
                printf(map ? "%*lld# " : "%*lld) ", width, i + 1);
            }
            if (map) {
                /* redis-cli style: key => value, the key on the same line. */
                long long klen = resp_reply_length(p + off, (size_t)(print_end - (p + off)));
                off += print_value_inline_key(p + off, (size_t)klen, raw);
            }
            off += print_value(p + off, raw, indent + width + 2);
        }
        return off;
    }
    default:
        printf("%.*s\n", (int)tlen, p);
        return head;
    }
}

/* Prints every reply in reply[0..len) (one, except an SBE reply of several values). */
static void print_replies(const char *reply, size_t len, bool raw)
{
    for (size_t off = 0; off < len;) off += print_value(reply + off, raw, 0);
}

static bool run_line(struct cli *c, const char *line, size_t len)
{
    struct buf args;
    buf_init(&args, 256);
    size_t *lens = NULL;
    int cap = 0;
    int argc = split_args(line, len, &args, &lens, &cap);
    if (argc < 0) {
        printf("Invalid argument(s)\n");
    } else if (argc > 0) {
        const char **argv = malloc(sizeof *argv * (size_t)argc);
        size_t off = 0;
        for (int i = 0; i < argc; i++) {
            argv[i] = buf_head(&args) + off;
            off += lens[i];
        }
        bool quit = lens[0] == 4 && strncasecmp(argv[0], "quit", 4) == 0;
        send_command(c, argc, argv, lens);
        size_t rlen;
        char *reply = read_reply(c, &rlen);
        print_replies(reply, rlen, c->raw);
        free(reply);
        free(argv);
        if (quit) {
            free(lens);
            buf_free(&args);
            return false;
        }
    }
    free(lens);
    buf_free(&args);
    fflush(stdout);
    return true;
}

static void run_quietly(struct cli *c, int argc, const char *const *argv)
{
    size_t lens[8];
    for (int i = 0; i < argc; i++) lens[i] = strlen(argv[i]);
    send_command(c, argc, argv, lens);
    size_t len;
    char *reply = read_reply(c, &len);
    if (reply[0] == '-') {
        fprintf(stderr, "%.*s", (int)len, reply + 1);
        exit(1);
    }
    free(reply);
}

static void usage(void)
{
    fprintf(stderr,
            "usage: goblin-cli [-h host] [-p port] [-s socket] [--ring PATH | --ring-pool DIR]\n"
            "                  [--fabric PROVIDER [--fabric-local ADDR] [--fabric-force-send]]\n"
            "                  [-a password] [--user name] [-n db] [-3] [--sbe] [--raw|--no-raw]\n"
            "                  [cmd args...]\n");
    exit(2);
}

int main(int argc, char **argv)
{
    const char *host = "127.0.0.1", *port = "6379", *unix_path = NULL, *ring = NULL, *pool = NULL;
    const char *password = NULL, *user = NULL, *db = NULL;
    const char *fabric = NULL; /* provider; -h/-p name the bootstrap listener */
    struct goblin_fabric_options fabric_opt = {0};
    bool resp3 = false, sbe = false;
    int raw = -1;
    int i = 1;
    for (; i < argc; i++) {
        const char *a = argv[i];
        bool more = i + 1 < argc;
        if (strcmp(a, "-h") == 0 && more)
            host = argv[++i];
        else if (strcmp(a, "-p") == 0 && more)
            port = argv[++i];
        else if (strcmp(a, "-s") == 0 && more)
            unix_path = argv[++i];
        else if (strcmp(a, "--ring") == 0 && more)
            ring = argv[++i];
        else if (strcmp(a, "--ring-pool") == 0 && more)
            pool = argv[++i];
        else if (strcmp(a, "--fabric") == 0 && more)
            fabric = argv[++i];
        else if (strcmp(a, "--fabric-local") == 0 && more)
            fabric_opt.local_address = argv[++i];
        else if (strcmp(a, "--fabric-force-send") == 0)
            fabric_opt.force_send = 1;
        else if (strcmp(a, "-a") == 0 && more)
            password = argv[++i];
        else if (strcmp(a, "--user") == 0 && more)
            user = argv[++i];
        else if (strcmp(a, "-n") == 0 && more)
            db = argv[++i];
        else if (strcmp(a, "-3") == 0)
            resp3 = true;
        else if (strcmp(a, "--sbe") == 0)
            sbe = true;
        else if (strcmp(a, "--raw") == 0)
            raw = 1;
        else if (strcmp(a, "--no-raw") == 0)
            raw = 0;
        else if (strcmp(a, "--help") == 0)
            usage();
        else if (a[0] == '-' && a[1] && !isdigit((unsigned char)a[1]))
            usage();
        else
            break;
    }
    struct cli c = {.fd = -1};
    buf_init(&c.rx, 0);
    if (sbe) {
        int rc = ring        ? goblin_sbe_open_ring(ring, 2000, &c.sbe)
                 : unix_path ? goblin_sbe_connect_unix(unix_path, &c.sbe)
                             : goblin_sbe_connect_tcp(host, atoi(port), &c.sbe);
        if (rc || pool) {
            fprintf(stderr, "Could not open an SBE connection: %s\n",
                    pool ? "--ring-pool is not supported with --sbe" : strerror(-rc));
            return 1;
        }
    } else if (ring || pool) {
        int rc = ring ? goblin_ring_open(ring, 2000, &c.ring)
                      : goblin_ring_open_pool(pool, 2000, &c.ring);
        if (rc) {
            fprintf(stderr, "Could not attach to ring %s: %s\n", ring ? ring : pool, strerror(-rc));
            return 1;
        }
    } else if (fabric) {
        char err[256];
        int rc = goblin_fabric_connect(fabric, host, atoi(port), &fabric_opt, &c.fabric, err,
                                       sizeof err);
        if (rc) {
            fprintf(stderr, "Could not connect over libfabric %s to %s:%s: %s\n", fabric, host,
                    port, err);
            return 1;
        }
    } else {
        connect_socket(&c, host, port, unix_path);
    }
    bool interactive = i >= argc && isatty(0);
    c.raw = raw >= 0 ? raw : !isatty(1);
    if (password && c.sbe) {
        /* SBE's Auth template: the only frame a server with a password takes first. */
        char err[512];
        int rc = goblin_sbe_authenticate(c.sbe, user, password, 10000000, err, sizeof err);
        if (rc != 0) {
            fprintf(stderr, "%s\n", rc == -EACCES ? err : strerror(-rc));
            exit(1);
        }
    } else if (password) {
        const char *auth[] = {"AUTH", user ? user : password, password};
        run_quietly(&c, user ? 3 : 2, auth);
    }
    if (db) {
        const char *select[] = {"SELECT", db};
        run_quietly(&c, 2, select);
    }
    if (resp3) {
        const char *hello[] = {"HELLO", "3"};
        run_quietly(&c, 2, hello);
    }
    int status = 0;
    if (i < argc) {
        size_t *lens = malloc(sizeof *lens * (size_t)(argc - i));
        for (int k = i; k < argc; k++) lens[k - i] = strlen(argv[k]);
        send_command(&c, argc - i, (const char *const *)argv + i, lens);
        if (strcasecmp(argv[i], "shutdown") == 0 && !c.ring && !c.sbe && !c.fabric) {
            /* Success is the server closing the connection, as with redis-cli. */
            char byte;
            if (read(c.fd, &byte, 1) <= 0) return 0;
            c.rx.end = 0;
            buf_append(&c.rx, &byte, 1);
        }
        size_t len;
        char *reply = read_reply(&c, &len);
        print_replies(reply, len, c.raw);
        free(reply);
        free(lens);
    } else {
        char *line = NULL;
        size_t cap = 0;
        for (;;) {
            if (interactive) {
                if (ring && c.sbe)
                    printf("ring:%s> ", ring);
                else if (ring || pool)
                    printf("ring:%s> ", goblin_ring_path(c.ring));
                else if (fabric)
                    printf("%s:%s:%s> ", fabric, host, port);
                else if (unix_path)
                    printf("%s> ", unix_path);
                else
                    printf("%s:%s> ", host, port);
                fflush(stdout);
            }
            ssize_t n = getline(&line, &cap, stdin);
            if (n < 0) break;
            while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r')) n--;
            if (!run_line(&c, line, (size_t)n)) break;
        }
        free(line);
    }
    goblin_sbe_close(c.sbe);
    if (c.ring) goblin_ring_close(c.ring);
    goblin_fabric_close(c.fabric);
    if (c.fd >= 0) close(c.fd);
    buf_free(&c.rx);
    return status;
}
