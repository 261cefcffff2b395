/*
 * info_section.h — INFO sections that layers below the commands add (a
 * transport's row, registered by transport/registry.c), so INFO names no
 * transport. INFO lists them after its own sections, in registration
 * order; they are not in the default set (INFO <name>, INFO all and INFO
 * everything show them) unless they fill one of INFO's own sections
 * (info_section_find).
 */
#ifndef GOBLIN_INFO_SECTION_H
#define GOBLIN_INFO_SECTION_H

#include <stddef.h>

struct buf;

/* `render` appends the section's lines, its "# Heading" first, each ending
 * in CRLF. Registered once at startup; a name registered twice keeps the
 * first. */
void info_section_add(const char *name, void (*render)(struct buf *b));

/* The index of the section registered as `name`, -1 when none is. A row
 * named as one of INFO's own sections (replication, by repl/) takes that
 * section's place: its position and its membership of the default set. */
long info_section_find(const char *name);

/* The i-th registered section (i < info_section_count()). */
size_t info_section_count(void);
const char *info_section_name(size_t i);
void info_section_render(size_t i, struct buf *b);

#endif
