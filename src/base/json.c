/*
 * The JSON reader (see json.h): recursive descent over the text, one
 * function per kind of value.  The first fault stops the reading; its line
 * and reason go back to the caller, who words the message.  Strings keep
 * their bytes as written (UTF-8 is not validated), except that escapes are
 * decoded, \u escapes (surrogate pairs included) to UTF-8.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "base/mem.h"
#include "pcoll.h"

#define MAX_DEPTH 64
#define MAX_NUMBER 64 /* characters of one number */

typedef struct reader {
    const char *s, *end;
    int line, depth;
    int rc;          /* the first fault's code, 0 while none */
    int *err_line;   /* where the fault's line and reason go */
    char *msg;
    size_t n;
} reader_t;

/* A growing string. */
typedef struct strbuf {
    char *p;
    size_t len, cap;
} strbuf_t;

static int fail(reader_t *r, int rc, const char *fmt, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Record the first fault (later ones follow from it) and return its code. */
static int fail(reader_t *r, int rc, const char *fmt, ...)
{
    va_list ap;
    if (r->rc == 0) {
        r->rc = rc;
        *r->err_line = r->line;
        va_start(ap, fmt);
        vsnprintf(r->msg, r->n, fmt, ap);
        va_end(ap);
    }
    return rc;
}

static int out_of_memory(reader_t *r)
{
    return fail(r, PCOLL_ERR_NOMEM, "out of memory");
}

/* What the reader is looking at, for messages: 'x', byte 0x01 or the end. */
static const char *here(const reader_t *r, char *buf, size_t n)
{
    unsigned char c;
    if (r->s >= r->end)
        return "end of file";
    c = (unsigned char)*r->s;
    if (c >= 0x21 && c < 0x7f)
        snprintf(buf, n, "'%c'", c);
    else
        snprintf(buf, n, "byte 0x%02x", c);
    return buf;
}

static int unexpected(reader_t *r, const char *wanted)
{
    char buf[16];
    return fail(r, PCOLL_ERR_ARG, "unexpected %s; expected %s", here(r, buf, sizeof buf), wanted);
}

static void skip_space(reader_t *r)
{
    for (; r->s < r->end; r->s++) {
        if (*r->s == '\n')
            r->line++;
        else if (*r->s != ' ' && *r->s != '\t' && *r->s != '\r')
            break;
    }
}

static int push(reader_t *r, strbuf_t *b, char c)
{
    if (b->len + 1 >= b->cap) {
        size_t cap = b->cap ? 2 * b->cap : 32;
        char *p = pcoll__realloc(b->p, cap);
        if (!p)
            return out_of_memory(r);
        b->p = p, b->cap = cap;
    }
    b->p[b->len++] = c;
    b->p[b->len] = '\0';
    return 0;
}

/* Code point cp as UTF-8 (1 to 4 bytes). */
static int push_utf8(reader_t *r, strbuf_t *b, unsigned long cp)
{
    int rc = 0;
    if (cp < 0x80)
        return push(r, b, (char)cp);
    if (cp < 0x800) {
        rc = push(r, b, (char)(0xc0 | (cp >> 6)));
    } else if (cp < 0x10000) {
        rc = push(r, b, (char)(0xe0 | (cp >> 12)));
        rc = rc ? rc : push(r, b, (char)(0x80 | ((cp >> 6) & 0x3f)));
    } else {
        rc = push(r, b, (char)(0xf0 | (cp >> 18)));
        rc = rc ? rc : push(r, b, (char)(0x80 | ((cp >> 12) & 0x3f)));
        rc = rc ? rc : push(r, b, (char)(0x80 | ((cp >> 6) & 0x3f)));
    }
    return rc ? rc : push(r, b, (char)(0x80 | (cp & 0x3f)));
}

/* Four hex digits after "\u" (r->s on the 'u'); leaves r->s after them. */
static int hex4(reader_t *r, unsigned long *cp)
{
    int i;
    *cp = 0;
    if (r->end - r->s < 5)
        return fail(r, PCOLL_ERR_ARG, "\\u escape cut short");
    for (i = 1; i <= 4; i++) {
        char c = r->s[i];
        int d = c >= '0' && c <= '9'   ? c - '0'
                : c >= 'a' && c <= 'f' ? c - 'a' + 10
                : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                       : -1;
        if (d < 0)
            return fail(r, PCOLL_ERR_ARG, "\\u escape needs four hex digits");
        *cp = *cp * 16 + (unsigned long)d;
    }
    r->s += 5;
    return 0;
}

/* A \u escape (r->s on the 'u'), a surrogate pair taking two. */
static int unicode_escape(reader_t *r, strbuf_t *b)
{
    unsigned long cp, low;
    int rc = hex4(r, &cp);
    if (rc)
        return rc;
    if (cp >= 0xdc00 && cp <= 0xdfff)
        return fail(r, PCOLL_ERR_ARG, "\\u escape: a low surrogate without a high one");
    if (cp >= 0xd800 && cp <= 0xdbff) {
        if (r->end - r->s < 2 || r->s[0] != '\\' || r->s[1] != 'u')
            return fail(r, PCOLL_ERR_ARG, "\\u escape: a high surrogate without a low one");
        r->s++;
        if ((rc = hex4(r, &low)) != 0)
            return rc;
        if (low < 0xdc00 || low > 0xdfff)
            return fail(r, PCOLL_ERR_ARG, "\\u escape: a high surrogate without a low one");
        cp = 0x10000 + ((cp - 0xd800) << 10) + (low - 0xdc00);
    }
    if (cp == 0)
        return fail(r, PCOLL_ERR_ARG, "\\u0000 in a string");
    return push_utf8(r, b, cp);
}

/* One escape (r->s on the backslash). */
static int escape(reader_t *r, strbuf_t *b)
{
    static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
    const char *k;
    r->s++;
    if (r->s >= r->end)
        return fail(r, PCOLL_ERR_ARG, "unterminated string");
    if (*r->s == 'u')
        return unicode_escape(r, b);
    k = *r->s ? strchr(from, *r->s) : NULL;
    if (!k)
        return unexpected(r, "an escape: one of \" \\ / b f n r t u after the backslash");
    r->s++;
    return push(r, b, to[k - from]);
}

/* A string (r->s on the opening quote) into *out, which the caller owns. */
static int read_string(reader_t *r, char **out)
{
    strbuf_t b = {NULL, 0, 0};
    int rc = push(r, &b, '\0'); /* an empty string is "" too */
    b.len = 0;
    for (r->s++; rc == 0; ) {
        unsigned char c = r->s < r->end ? (unsigned char)*r->s : 0;
        if (r->s >= r->end)
            rc = fail(r, PCOLL_ERR_ARG, "unterminated string");
        else if (c == '"')
            break;
        else if (c < 0x20)
            rc = fail(r, PCOLL_ERR_ARG,
                      "control character 0x%02x in a string (write it as an escape)", c);
        else if (c == '\\')
            rc = escape(r, &b);
        else
            rc = push(r, &b, (char)c), r->s++;
    }
    *out = b.p;
    if (rc == 0)
        r->s++;
    return rc;
}

static void skip_digits(reader_t *r)
{
    while (r->s < r->end && *r->s >= '0' && *r->s <= '9')
        r->s++;
}

static int at_digit(const reader_t *r)
{
    return r->s < r->end && *r->s >= '0' && *r->s <= '9';
}

/* A number: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? */
static int read_number(reader_t *r, pcoll__json_t *v)
{
    const char *start = r->s;
    char text[MAX_NUMBER + 1];
    size_t len;
    v->integer = 1;
    if (*r->s == '-')
        r->s++;
    if (!at_digit(r))
        return unexpected(r, "a digit");
    if (*r->s == '0')
        r->s++;
    else
        skip_digits(r);
    if (r->s < r->end && *r->s == '.') {
        r->s++, v->integer = 0;
        if (!at_digit(r))
            return unexpected(r, "a digit after the decimal point");
        skip_digits(r);
    }
    if (r->s < r->end && (*r->s == 'e' || *r->s == 'E')) {
        r->s++, v->integer = 0;
        if (r->s < r->end && (*r->s == '+' || *r->s == '-'))
            r->s++;
        if (!at_digit(r))
            return unexpected(r, "a digit in the exponent");
        skip_digits(r);
    }
    len = (size_t)(r->s - start);
    if (len > MAX_NUMBER)
        return fail(r, PCOLL_ERR_ARG, "number longer than %d characters", MAX_NUMBER);
    memcpy(text, start, len);
    text[len] = '\0';
    v->kind = PCOLL__JSON_NUMBER;
    v->num = strtod(text, NULL);
    if (v->integer) {
        errno = 0;
        v->ival = strtoll(text, NULL, 10);
        if (errno == ERANGE)
            return fail(r, PCOLL_ERR_ARG, "whole number %s out of range", text);
    }
    return 0;
}

static int read_literal(reader_t *r, pcoll__json_t *v)
{
    static const struct {
        const char *word;
        pcoll__json_kind_t kind;
        int boolean;
    } words[] = {{"true", PCOLL__JSON_BOOL, 1}, {"false", PCOLL__JSON_BOOL, 0},
                 {"null", PCOLL__JSON_NULL, 0}};
    size_t i, len;
    for (i = 0; i < sizeof words / sizeof *words; i++) {
        len = strlen(words[i].word);
        if ((size_t)(r->end - r->s) >= len && memcmp(r->s, words[i].word, len) == 0) {
            r->s += len;
            v->kind = words[i].kind;
            v->boolean = words[i].boolean;
            return 0;
        }
    }
    return unexpected(r, "a value");
}

static int read_value(reader_t *r, pcoll__json_t *v);

/* Room for one more item (and key) in v, zeroed; cap is the room so far. */
static int grow(reader_t *r, pcoll__json_t *v, int *cap, int with_key)
{
    if (v->n == *cap) {
        int c = *cap ? 2 * *cap : 8;
        pcoll__json_t *items = pcoll__realloc(v->items, (size_t)c * sizeof *items);
        if (!items)
            return out_of_memory(r);
        v->items = items;
        if (with_key) {
            char **keys = pcoll__realloc(v->keys, (size_t)c * sizeof *keys);
            if (!keys)
                return out_of_memory(r);
            v->keys = keys;
        }
        *cap = c;
    }
    memset(&v->items[v->n], 0, sizeof v->items[v->n]);
    if (with_key)
        v->keys[v->n] = NULL;
    v->n++;
    return 0;
}

/* After an item: ',' (another follows) or the closing bracket. */
static int next_item(reader_t *r, char close, int *more)
{
    skip_space(r);
    *more = r->s < r->end && *r->s == ',';
    if (*more || (r->s < r->end && *r->s == close)) {
        r->s++;
        return 0;
    }
    return unexpected(r, close == ']' ? "',' or ']' in an array" : "',' or '}' in an object");
}

static int read_array(reader_t *r, pcoll__json_t *v)
{
    int cap = 0, more = 1, rc = 0;
    v->kind = PCOLL__JSON_ARRAY;
    r->s++;
    skip_space(r);
    if (r->s < r->end && *r->s == ']') {
        r->s++;
        return 0;
    }
    while (rc == 0 && more) {
        rc = grow(r, v, &cap, 0);
        rc = rc ? rc : read_value(r, &v->items[v->n - 1]);
        rc = rc ? rc : next_item(r, ']', &more);
    }
    return rc;
}

/* One "key": value member of an object (room for it already made). */
static int read_member(reader_t *r, pcoll__json_t *v)
{
    int i, rc, line;
    skip_space(r);
    if (r->s >= r->end || *r->s != '"')
        return unexpected(r, "a key string in an object");
    line = r->line;
    if ((rc = read_string(r, &v->keys[v->n - 1])) != 0)
        return rc;
    for (i = 0; i < v->n - 1; i++)
        if (strcmp(v->keys[i], v->keys[v->n - 1]) == 0) {
            r->line = line;
            return fail(r, PCOLL_ERR_ARG, "duplicate key \"%s\"", v->keys[i]);
        }
    skip_space(r);
    if (r->s >= r->end || *r->s != ':')
        return unexpected(r, "':' after the key");
    r->s++;
    return read_value(r, &v->items[v->n - 1]);
}

static int read_object(reader_t *r, pcoll__json_t *v)
{
    int cap = 0, more = 1, rc = 0;
    v->kind = PCOLL__JSON_OBJECT;
    r->s++;
    skip_space(r);
    if (r->s < r->end && *r->s == '}') {
        r->s++;
        return 0;
    }
    while (rc == 0 && more) {
        rc = grow(r, v, &cap, 1);
        rc = rc ? rc : read_member(r, v);
        rc = rc ? rc : next_item(r, '}', &more);
    }
    return rc;
}

static int read_value(reader_t *r, pcoll__json_t *v)
{
    int rc;
    skip_space(r);
    v->line = r->line;
    if (r->s >= r->end)
        return unexpected(r, "a value");
    if (*r->s == '"') {
        v->kind = PCOLL__JSON_STRING;
        return read_string(r, &v->str);
    }
    if (*r->s == '-' || (*r->s >= '0' && *r->s <= '9'))
        return read_number(r, v);
    if (*r->s != '[' && *r->s != '{')
        return read_literal(r, v);
    if (++r->depth > MAX_DEPTH)
        return fail(r, PCOLL_ERR_ARG, "nested deeper than %d", MAX_DEPTH);
    rc = *r->s == '[' ? read_array(r, v) : read_object(r, v);
    r->depth--;
    return rc;
}

int pcoll__json_parse(const char *text, size_t len, pcoll__json_t *root, int *line, char *msg,
                      size_t n)
{
    reader_t r = {text, text + len, 1, 0, 0, line, msg, n};
    memset(root, 0, sizeof *root);
    *line = 0;
    if (n)
        msg[0] = '\0';
    /* A UTF-8 byte order mark is not part of the text. */
    if (len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0)
        r.s += 3;
    if (read_value(&r, root) == 0) {
        skip_space(&r);
        if (r.s < r.end) {
            char buf[16];
            fail(&r, PCOLL_ERR_ARG, "unexpected %s after the end of the JSON value",
                 here(&r, buf, sizeof buf));
        }
    }
    return r.rc;
}

void pcoll__json_free(pcoll__json_t *v)
{
    int i;
    if (!v)
        return;
    for (i = 0; i < v->n; i++) {
        pcoll__json_free(&v->items[i]);
        if (v->keys)
            pcoll__free(v->keys[i]);
    }
    pcoll__free(v->items);
    pcoll__free(v->keys);
    pcoll__free(v->str);
    memset(v, 0, sizeof *v);
}

const pcoll__json_t *pcoll__json_get(const pcoll__json_t *v, const char *key)
{
    int i;
    if (!v || v->kind != PCOLL__JSON_OBJECT)
        return NULL;
    for (i = 0; i < v->n; i++)
        if (v->keys[i] && strcmp(v->keys[i], key) == 0)
            return &v->items[i];
    return NULL;
}
