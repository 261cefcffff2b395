/* command_keys.c — which arguments of a call are keys, as Redis 7.0 finds
 * them (db.c getKeysFromCommandWithSpecs): the command's key specs from
 * command_meta.h first; when a spec cannot be applied (incomplete, unknown,
 * a bad numkeys) or its flags vary with the arguments, the command's own
 * rule, Redis's getkeys_proc of the same name. Also the metadata lookup. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "commands/command.h"
#include "commands/command_meta.h"
#include "util/numparse.h"

const char *const key_spec_flag_names[KEY_SPEC_FLAG_COUNT] = {
    "RO",     "RW",     "OW",      "RM",         "access",         "update",
    "insert", "delete", "not_key", "incomplete", "variable_flags",
};

static int meta_compare(const void *name, const void *row)
{
    return strcmp(name, ((const struct command_meta *)row)->full_name);
}

const struct command_meta *command_meta_find(const char *full_name)
{
    return bsearch(full_name, command_meta_table, command_meta_count, sizeof command_meta_table[0],
                   meta_compare);
}

/* info: name, arity, then the flags as a set of statuses. */
bool command_meta_has_flag(const struct command_meta *m, const char *flag)
{
    const struct meta_node *set = &m->info[2];
    for (int i = 1; i <= set->n; i++)
        if (strcmp(set[i].s, flag) == 0) return true;
    return false;
}

static bool arg_is(const char *arg, size_t len, const char *word)
{
    return len == strlen(word) && strncasecmp(arg, word, len) == 0;
}

/* Appends a key unless the result is full. */
static void key_add(struct key_ref *keys, int *n, int cap, int pos, uint32_t flags)
{
    if (*n < cap) keys[(*n)++] = (struct key_ref){.pos = pos, .flags = flags};
}

/* Redis's getKeysUsingKeySpecs with the default search flags: keys from
 * every spec not marked not_key; -1 when a spec cannot be applied. */
static int keys_from_specs(const struct command_meta *meta, int argc, const char *const *argv,
                           const size_t *argv_len, struct key_ref *keys, int cap)
{
    int n = 0;
    for (int j = 0; j < meta->key_spec_count; j++) {
        const struct key_spec *spec = &meta->key_specs[j];
        if (spec->flags & KEY_SPEC_NOT_KEY) continue;
        int first = 0, last, step;
        if (spec->begin == KEY_BEGIN_INDEX) {
            first = spec->index;
        } else if (spec->begin == KEY_BEGIN_KEYWORD) {
            int start = spec->startfrom > 0 ? spec->startfrom : argc + spec->startfrom;
            int end = spec->startfrom > 0 ? argc - 1 : 1;
            for (int i = start; i != end; i = start <= end ? i + 1 : i - 1) {
                if (i >= argc || i < 1) break;
                if (arg_is(argv[i], argv_len[i], spec->keyword)) {
                    first = i + 1;
                    break;
                }
            }
            if (!first) continue; /* keyword absent: this spec names no key */
        } else {
            return -1;
        }
        if (spec->find == KEY_FIND_RANGE) {
            step = spec->keystep;
            if (spec->lastkey >= 0)
                last = first + spec->lastkey;
            else if (!spec->limit)
                last = argc + spec->lastkey;
            else
                last = first + ((argc - first) / spec->limit + spec->lastkey);
        } else if (spec->find == KEY_FIND_KEYNUM) {
            step = spec->keystep;
            long long numkeys;
            int at = first + spec->keynumidx;
            if (spec->keynumidx >= argc || at >= argc ||
                !num_parse_ll(argv[at], argv_len[at], &numkeys) || numkeys < 0 || numkeys > argc)
                return -1;
            first += spec->firstkey;
            last = first + (int)numkeys - 1;
        } else {
            return -1;
        }
        if (last >= argc || last < first || first >= argc) return -1;
        for (int i = first; i <= last; i += step) key_add(keys, &n, cap, i, spec->flags);
        if (spec->flags & KEY_SPEC_INCOMPLETE) return -1;
    }
    return n;
}

/* C's atoi over a length-bounded argument, as Redis's genericGetKeys reads
 * numkeys (so "2abc" counts 2 there). */
static long long lenient_atoi(const char *s, size_t len)
{
    size_t i = 0;
    while (i < len && (s[i] == ' ' || (s[i] >= '\t' && s[i] <= '\r'))) i++;
    bool negative = false;
    if (i < len && (s[i] == '+' || s[i] == '-')) negative = s[i++] == '-';
    long long v = 0;
    for (; i < len && s[i] >= '0' && s[i] <= '9' && v < (1LL << 40); i++) v = v * 10 + (s[i] - '0');
    return negative ? -v : v;
}

/* Redis's genericGetKeys: numkeys at count_at, keys from first_at, then the
 * destination at store_at (0: none); flags are not known here. */
static int keys_numkeys_rule(int store_at, int count_at, int first_at, int argc,
                             const char *const *argv, const size_t *argv_len, struct key_ref *keys,
                             int cap)
{
    long long num = lenient_atoi(argv[count_at], argv_len[count_at]);
    if (num < 1 || num > argc - first_at) return 0;
    int n = 0;
    for (long long i = 0; i < num; i++) key_add(keys, &n, cap, first_at + (int)i, 0);
    if (store_at) key_add(keys, &n, cap, store_at, 0);
    return n;
}

/* SORT key [BY p] [LIMIT o c] [GET p ...] [ASC|DESC] [ALPHA] [STORE dst]:
 * the last STORE's destination (Redis's sortGetKeys). */
static int keys_sort(bool read_only, int argc, const char *const *argv, const size_t *argv_len,
                     struct key_ref *keys, int cap)
{
    int n = 0, store = 0;
    key_add(keys, &n, cap, 1, KEY_SPEC_RO | KEY_SPEC_ACCESS);
    if (read_only) return n;
    for (int i = 2; i < argc; i++) {
        if (arg_is(argv[i], argv_len[i], "limit"))
            i += 2;
        else if (arg_is(argv[i], argv_len[i], "get") || arg_is(argv[i], argv_len[i], "by"))
            i += 1;
        else if (arg_is(argv[i], argv_len[i], "store") && i + 1 < argc)
            store = i + 1;
    }
    if (store) key_add(keys, &n, cap, store, KEY_SPEC_OW | KEY_SPEC_UPDATE);
    return n;
}

/* MIGRATE host port key|"" db timeout [COPY] [REPLACE] [AUTH pw] [AUTH2 u pw]
 * [KEYS key...] (Redis's migrateGetKeys). */
static int keys_migrate(int argc, const char *const *argv, const size_t *argv_len,
                        struct key_ref *keys, int cap)
{
    int first = 3, num = 1, n = 0;
    for (int i = 6; i < argc; i++) {
        if (arg_is(argv[i], argv_len[i], "keys")) {
            if (argv_len[3] > 0) return 0;
            first = i + 1;
            num = argc - first;
            break;
        }
        if (arg_is(argv[i], argv_len[i], "auth"))
            i += 1;
        else if (arg_is(argv[i], argv_len[i], "auth2"))
            i += 2;
    }
    for (int i = 0; i < num; i++)
        key_add(keys, &n, cap, first + i, KEY_SPEC_RW | KEY_SPEC_ACCESS | KEY_SPEC_DELETE);
    return n;
}

/* SET's key is read too with GET (Redis's setGetKeys). */
static int keys_set(int argc, const char *const *argv, const size_t *argv_len, struct key_ref *keys,
                    int cap)
{
    int n = 0;
    for (int i = 3; i < argc; i++)
        if (arg_is(argv[i], argv_len[i], "get")) {
            key_add(keys, &n, cap, 1, KEY_SPEC_RW | KEY_SPEC_ACCESS | KEY_SPEC_UPDATE);
            return n;
        }
    key_add(keys, &n, cap, 1, KEY_SPEC_OW | KEY_SPEC_UPDATE);
    return n;
}

/* BITFIELD is a read while it has only GET/OVERFLOW operations (Redis's
 * bitfieldGetKeys; a malformed one counts as a write). */
static int keys_bitfield(int argc, const char *const *argv, const size_t *argv_len,
                         struct key_ref *keys, int cap)
{
    bool read_only = true;
    for (int i = 2; i < argc && read_only; i++) {
        int remaining = argc - i - 1;
        if (arg_is(argv[i], argv_len[i], "get") && remaining >= 2)
            i += 2;
        else if (arg_is(argv[i], argv_len[i], "overflow") && remaining >= 1)
            i += 1;
        else
            read_only = false;
    }
    int n = 0;
    key_add(keys, &n, cap, 1,
            read_only ? KEY_SPEC_RO | KEY_SPEC_ACCESS
                      : KEY_SPEC_RW | KEY_SPEC_ACCESS | KEY_SPEC_UPDATE);
    return n;
}

/* The commands with a getkeys_proc in Redis 7.0, by the rule it applies. */
enum keys_rule {
    RULE_NONE,
    RULE_NUMKEYS,
    RULE_SORT,
    RULE_SORT_RO,
    RULE_MIGRATE,
    RULE_SET,
    RULE_BITFIELD
};
static const struct {
    const char *name;
    enum keys_rule rule;
    int store_at, count_at, first_at; /* RULE_NUMKEYS */
} key_rules[] = {
    {"zunion", RULE_NUMKEYS, 0, 1, 2},      {"zinter", RULE_NUMKEYS, 0, 1, 2},
    {"zdiff", RULE_NUMKEYS, 0, 1, 2},       {"zintercard", RULE_NUMKEYS, 0, 1, 2},
    {"sintercard", RULE_NUMKEYS, 0, 1, 2},  {"lmpop", RULE_NUMKEYS, 0, 1, 2},
    {"zmpop", RULE_NUMKEYS, 0, 1, 2},       {"blmpop", RULE_NUMKEYS, 0, 2, 3},
    {"bzmpop", RULE_NUMKEYS, 0, 2, 3},      {"eval", RULE_NUMKEYS, 0, 2, 3},
    {"evalsha", RULE_NUMKEYS, 0, 2, 3},     {"eval_ro", RULE_NUMKEYS, 0, 2, 3},
    {"evalsha_ro", RULE_NUMKEYS, 0, 2, 3},  {"fcall", RULE_NUMKEYS, 0, 2, 3},
    {"fcall_ro", RULE_NUMKEYS, 0, 2, 3},    {"zunionstore", RULE_NUMKEYS, 1, 2, 3},
    {"zinterstore", RULE_NUMKEYS, 1, 2, 3}, {"zdiffstore", RULE_NUMKEYS, 1, 2, 3},
    {"sort", RULE_SORT, 0, 0, 0},           {"sort_ro", RULE_SORT_RO, 0, 0, 0},
    {"migrate", RULE_MIGRATE, 0, 0, 0},     {"set", RULE_SET, 0, 0, 0},
    {"bitfield", RULE_BITFIELD, 0, 0, 0},
};

void command_keys_init(struct command *cmd)
{
    cmd->meta = command_meta_find(cmd->full_name);
    if (cmd->meta && command_meta_has_flag(cmd->meta, "no_multi")) cmd->flags |= CMD_NO_MULTI;
    if (cmd->meta && command_meta_has_flag(cmd->meta, "skip_monitor"))
        cmd->flags |= CMD_SKIP_MONITOR;
    if (cmd->meta && command_meta_has_flag(cmd->meta, "no_async_loading"))
        cmd->flags |= CMD_NO_ASYNC_LOADING;

    cmd->keys_rule = -1;
    for (size_t r = 0; r < sizeof key_rules / sizeof key_rules[0]; r++)
        if (strcmp(cmd->full_name, key_rules[r].name) == 0) cmd->keys_rule = (int)r;
}

static int keys_from_rule(int r, int argc, const char *const *argv, const size_t *argv_len,
                          struct key_ref *keys, int cap)
{
    switch (key_rules[r].rule) {
    case RULE_NUMKEYS:
        return keys_numkeys_rule(key_rules[r].store_at, key_rules[r].count_at,
                                 key_rules[r].first_at, argc, argv, argv_len, keys, cap);
    case RULE_SORT:
    case RULE_SORT_RO:
        return keys_sort(key_rules[r].rule == RULE_SORT_RO, argc, argv, argv_len, keys, cap);
    case RULE_MIGRATE:
        return keys_migrate(argc, argv, argv_len, keys, cap);
    case RULE_SET:
        return keys_set(argc, argv, argv_len, keys, cap);
    case RULE_BITFIELD:
        return keys_bitfield(argc, argv, argv_len, keys, cap);
    case RULE_NONE:
        break;
    }
    return 0;
}

/* A command Redis 7.0 lacks: its table's first/last/step (arity permitting). */
static int keys_from_legacy(const struct command *cmd, int argc, struct key_ref *keys, int cap)
{
    int n = 0;
    if (cmd->first_key <= 0) return 0;
    int last = cmd->last_key < 0 ? argc + cmd->last_key : cmd->last_key;
    int step = cmd->key_step > 0 ? cmd->key_step : 1;
    for (int i = cmd->first_key; i <= last && i < argc; i += step)
        key_add(keys, &n, cap, i, (cmd->flags & CMD_WRITE) ? KEY_SPEC_RW : KEY_SPEC_RO);
    return n;
}

bool command_has_keys(const struct command *cmd)
{
    const struct command_meta *meta = cmd->meta;
    if (!meta) return cmd->first_key > 0;
    if (cmd->keys_rule >= 0) return true;
    for (int j = 0; j < meta->key_spec_count; j++)
        if (!(meta->key_specs[j].flags & KEY_SPEC_NOT_KEY)) return true;
    return false;
}

int command_keys(const struct command *cmd, int argc, const char *const *argv,
                 const size_t *argv_len, struct key_ref *keys, int cap)
{
    const struct command_meta *meta = cmd->meta;
    /* The rules read fixed positions (numkeys, SORT's key, MIGRATE's key)
     * that only the arity guarantees; callers check it first, this keeps
     * the finder safe on its own. */
    if (cmd->arity > 0 ? argc != cmd->arity : argc < -cmd->arity) return 0;
    if (!meta) return keys_from_legacy(cmd, argc, keys, cap);
    bool usable = false, variable = false;
    for (int j = 0; j < meta->key_spec_count; j++) {
        if (!(meta->key_specs[j].flags & KEY_SPEC_NOT_KEY)) usable = true;
        if (meta->key_specs[j].flags & KEY_SPEC_VARIABLE_FLAGS) variable = true;
    }
    if (usable && !variable) {
        int n = keys_from_specs(meta, argc, argv, argv_len, keys, cap);
        if (n >= 0) return n;
    }
    return cmd->keys_rule >= 0 ? keys_from_rule(cmd->keys_rule, argc, argv, argv_len, keys, cap)
                               : 0;
}

int command_key_positions(const struct command *cmd, int argc, const char *const *argv,
                          const size_t *argv_len, int *pos, int cap)
{
    struct key_ref found[256];
    int n = command_keys(cmd, argc, argv, argv_len, found, cap < 256 ? cap : 256);
    for (int i = 0; i < n; i++) pos[i] = found[i].pos;
    return n;
}
