/*
 * goblin-passwd — prints a libsodium crypto_pwhash_str (Argon2id) hash for a
 * line of an --auth-file: `user <hash>`.
 *
 *   goblin-passwd [--ops N] [--mem BYTES] < password
 *
 * The cost parameters are stored in the hash itself. The server verifies a
 * user's hash on the event loop the first time that user authenticates (see
 * src/core/auth.h), so the defaults here (opslimit 2, 16 MiB) keep one
 * verification to a few milliseconds; raise them if that trade-off suits.
 */
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    unsigned long long ops = 2;
    size_t mem = 16u * 1024 * 1024;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--ops") == 0 && i + 1 < argc)
            ops = strtoull(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--mem") == 0 && i + 1 < argc)
            mem = strtoull(argv[++i], NULL, 10);
        else {
            fprintf(stderr, "usage: goblin-passwd [--ops N] [--mem BYTES] < password\n");
            return 2;
        }
    }
    if (ops < crypto_pwhash_OPSLIMIT_MIN || mem < crypto_pwhash_MEMLIMIT_MIN) {
        fprintf(stderr, "goblin-passwd: --ops must be >= %u and --mem >= %u\n",
                (unsigned)crypto_pwhash_OPSLIMIT_MIN, (unsigned)crypto_pwhash_MEMLIMIT_MIN);
        return 2;
    }
    if (sodium_init() < 0) {
        fprintf(stderr, "goblin-passwd: libsodium failed to initialise\n");
        return 1;
    }
    char password[1024];
    if (!fgets(password, sizeof password, stdin)) {
        fprintf(stderr, "goblin-passwd: no password on standard input\n");
        return 2;
    }
    size_t len = strcspn(password, "\r\n");
    password[len] = '\0';
    char hash[crypto_pwhash_STRBYTES];
    if (crypto_pwhash_str(hash, password, len, ops, mem) != 0) {
        fprintf(stderr, "goblin-passwd: out of memory hashing the password\n");
        return 1;
    }
    sodium_memzero(password, sizeof password);
    printf("%s\n", hash);
    return 0;
}
