/* wire.c — wire registry; see wire.h. A new wire is one line here plus its file. */
#include <string.h>

#include "wire.h"

static const struct bench_wire *const wires[] = {
    &bench_wire_resp,
    &bench_wire_sbe,
};

const struct bench_wire *bench_wire_find(const char *name)
{
    for (size_t i = 0; i < sizeof wires / sizeof wires[0]; i++)
        if (strcmp(wires[i]->name, name) == 0) return wires[i];
    return NULL;
}
