/*
 * A small JSON reader (RFC 8259: objects, arrays, strings with escapes,
 * numbers, true, false, null) for the tuning rules file (base/rules.c).
 * Every value remembers the line it starts on, so that whoever checks the
 * tree can name the line of a wrong value.  Not a streaming parser: the
 * whole text is in memory and becomes a tree the caller owns.
 */
#ifndef PCOLL_BASE_JSON_H
#define PCOLL_BASE_JSON_H

#include <stddef.h>

typedef enum pcoll__json_kind {
    PCOLL__JSON_NULL,
    PCOLL__JSON_BOOL,
    PCOLL__JSON_NUMBER,
    PCOLL__JSON_STRING,
    PCOLL__JSON_ARRAY,
    PCOLL__JSON_OBJECT
} pcoll__json_kind_t;

typedef struct pcoll__json {
    pcoll__json_kind_t kind;
    int line;                   /* line (from 1) where the value starts */
    int boolean;                /* BOOL: 0 or 1 */
    int integer;                /* NUMBER written without fraction or exponent */
    long long ival;             /* its value, when integer */
    double num;                 /* NUMBER: the value as a double */
    char *str;                  /* STRING: the text, escapes decoded, NUL-ended */
    struct pcoll__json *items;  /* ARRAY: the elements; OBJECT: the member values */
    char **keys;                /* OBJECT: keys[i] names items[i]; no key twice */
    int n;                      /* ARRAY, OBJECT: number of items */
} pcoll__json_t;

/* Parse the len bytes of text as one JSON value (white space around it
 * allowed, nothing else) into *root, which the caller releases with
 * pcoll__json_free whatever the result.  Returns 0; PCOLL_ERR_ARG for text
 * that is not JSON, or that has a key twice in one object, a NUL in a
 * string, a whole number beyond 64 bits or nesting deeper than 64 (then
 * *line is the line of the fault and msg, of size n, says what it is); or
 * PCOLL_ERR_NOMEM.  Records no error message itself (pcoll__error). */
int pcoll__json_parse(const char *text, size_t len, pcoll__json_t *root, int *line, char *msg,
                      size_t n);

/* Release what v holds (not v itself); NULL and half-built trees accepted. */
void pcoll__json_free(pcoll__json_t *v);

/* The member key of object v, or NULL (also when v is not an object). */
const pcoll__json_t *pcoll__json_get(const pcoll__json_t *v, const char *key);

#endif
