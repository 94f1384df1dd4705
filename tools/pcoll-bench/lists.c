/*
 * Small string helpers of pcoll-bench: error messages, comma-separated lists.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "options.h"

int bench_fail(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return -1;
}

void bench_append(char *buf, size_t len, const char *sep, const char *word)
{
    size_t used = strlen(buf);
    if (used + 1 < len)
        snprintf(buf + used, len - used, "%s%s", sep, word);
}

int bench_next_item(const char **p, char *item, size_t size)
{
    size_t len;
    if (*p == NULL)
        return 0;
    len = strcspn(*p, ",");
    if (len == 0 || len >= size)
        return -1;
    memcpy(item, *p, len);
    item[len] = '\0';
    *p = (*p)[len] != '\0' ? *p + len + 1 : NULL;
    return 1;
}
