/* resp_value.c — see resp_value.h. */
#include "resp_value.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

/* --- a small RESP value parser (for checks by meaning) ------------------ */

const char *rv_parse(const char *p, struct rv *v)
{
    memset(v, 0, sizeof *v);
    v->type = *p++;
    const char *eol = strstr(p, "\r\n");
    CHECK(eol);
    switch (v->type) {
    case '$':
    case '=':
        v->integer = strtoll(p, NULL, 10);
        if (v->integer < 0) return eol + 2;
        v->str = eol + 2;
        v->len = (size_t)v->integer;
        return v->str + v->len + 2;
    case '*':
    case '%':
    case '~':
        v->integer = strtoll(p, NULL, 10);
        if (v->integer < 0) return eol + 2;
        v->count = (size_t)v->integer * (v->type == '%' ? 2 : 1);
        v->elems = calloc(v->count + 1, sizeof *v->elems);
        p = eol + 2;
        for (size_t i = 0; i < v->count; i++) p = rv_parse(p, &v->elems[i]);
        return p;
    case ':':
        v->integer = strtoll(p, NULL, 10); /* fallthrough */
    default:
        v->str = p;
        v->len = (size_t)(eol - p);
        return eol + 2;
    }
}

void rv_free(struct rv *v)
{
    for (size_t i = 0; i < v->count; i++) rv_free(&v->elems[i]);
    free(v->elems);
}

bool rv_is_nil(const struct rv *v)
{
    return v->type == '_' || ((v->type == '$' || v->type == '*') && v->integer < 0);
}

int bytes_cmp(const void *a, const void *b)
{
    const struct bytes *x = a, *y = b;
    size_t n = x->n < y->n ? x->n : y->n;
    int c = memcmp(x->p, y->p, n);
    return c ? c : (x->n > y->n) - (x->n < y->n);
}

/* Pairs (or single elements) of an aggregate as sorted, comparable units. */
struct bytes *sorted_units(const struct rv *v, size_t unit, size_t *n_out, char **arena)
{
    size_t n = v->count / unit;
    struct bytes *u = calloc(n + 1, sizeof *u);
    size_t total = 0;
    for (size_t i = 0; i < v->count; i++) total += v->elems[i].len + 24;
    char *a = malloc(total + 1), *w = a;
    for (size_t i = 0; i < n; i++) {
        u[i].p = w;
        for (size_t k = 0; k < unit; k++) {
            const struct rv *e = &v->elems[i * unit + k];
            w += sprintf(w, "%c%zu:", e->type, e->len);
            memcpy(w, e->str, e->len);
            w += e->len;
        }
        u[i].n = (size_t)(w - u[i].p);
    }
    qsort(u, n, sizeof *u, bytes_cmp);
    *n_out = n;
    *arena = a;
    return u;
}

bool same_multiset(const struct rv *a, const struct rv *b, size_t unit)
{
    if (a->type != b->type || a->count != b->count) return false;
    size_t na, nb;
    char *aa, *ab;
    struct bytes *ua = sorted_units(a, unit, &na, &aa), *ub = sorted_units(b, unit, &nb, &ab);
    bool same = na == nb;
    for (size_t i = 0; same && i < na; i++) same = bytes_cmp(&ua[i], &ub[i]) == 0;
    free(ua), free(ub), free(aa), free(ab);
    return same;
}
