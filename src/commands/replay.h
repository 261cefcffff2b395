/*
 * replay.h — the command layer's executor for the AOF replay
 * (persist/aof_load.h aof_set_executor): each replayed write runs through
 * command_call() as Redis's fake client, its reply discarded.
 */
#ifndef GOBLIN_REPLAY_H
#define GOBLIN_REPLAY_H

/* Installs the executor (command_table_init). */
void replay_init(void);

#endif
