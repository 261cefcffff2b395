/*
 * split_args.h — a line split into arguments as Redis's sdssplitargs does:
 * the inline protocol, redis.conf lines (core/config_file.c) and goblin-cli
 * use this one splitter.
 */
#ifndef GOBLIN_SPLIT_ARGS_H
#define GOBLIN_SPLIT_ARGS_H

#include <stddef.h>

#include "util/buf.h"

/* Splits a line into arguments (double quotes with \n \r \t \b \a \xHH
 * escapes, single quotes with \' only; a closing quote must end its
 * argument). Appends the unquoted bytes to out and their lengths to *lens
 * (grown as needed, capacity in *lens_cap). Returns the argument count, or
 * -1 on unbalanced quotes. */
int split_args(const char *line, size_t len, struct buf *out, size_t **lens, int *lens_cap);

#endif
