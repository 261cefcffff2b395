/* version.h — what the server calls itself. redis_version is the Redis
 * release whose behaviour the differential tests check against. */
#ifndef GOBLIN_VERSION_H
#define GOBLIN_VERSION_H

#define GOBLIN_VERSION "0.1.0"
#define GOBLIN_REDIS_VERSION "7.0.15"

#endif
