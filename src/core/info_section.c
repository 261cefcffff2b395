/* info_section.c — INFO sections of other layers; see info_section.h. */
#include "core/info_section.h"

#include <string.h>

#include "util/xmalloc.h"

struct info_section {
    const char *name;
    void (*render)(struct buf *b);
};

static struct info_section *sections;
static size_t section_count;

void info_section_add(const char *name, void (*render)(struct buf *b))
{
    for (size_t i = 0; i < section_count; i++)
        if (strcmp(sections[i].name, name) == 0) return;
    sections = xrealloc(sections, sizeof *sections * (section_count + 1));
    sections[section_count++] = (struct info_section){name, render};
}

long info_section_find(const char *name)
{
    for (size_t i = 0; i < section_count; i++)
        if (strcmp(sections[i].name, name) == 0) return (long)i;
    return -1;
}

size_t info_section_count(void)
{
    return section_count;
}

const char *info_section_name(size_t i)
{
    return sections[i].name;
}

void info_section_render(size_t i, struct buf *b)
{
    sections[i].render(b);
}
