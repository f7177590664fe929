/* The JSON scanner engine: JSON (RFC 8259) tokens over byte buffers, for the
 * decoder (json_decoder.c), which builds Ruby values from them. It holds no
 * Ruby objects and makes no Ruby calls, so that it links alone (the fuzzer,
 * fuzz/json_scanner_fuzz.c): input arrives through handler->read, errors
 * leave through handler->error (which must not return), and everything it
 * allocates hangs off the wbjs_scanner, so a non-local exit out of a callback
 * leaks nothing once wbjs_free runs.
 *
 * It is the C port of lib/wirebind/json/pure/scanner.rb's token readers, the
 * reference: the same errors at the same positions. Where a message names a
 * character or quotes a piece of the input, the engine hands that piece to
 * the handler (wbjs_error.quote) rather than word it itself: the binding
 * words it with Ruby's own rules (Scanner.describe_char, Types.excerpt).
 *
 * Buffers: the scanner reads straight from the current chunk (no copy); only
 * the start of a token that straddles two chunks is copied into its own
 * growable buffer, followed by the next chunk. Positions
 * are offsets into the window; lines and columns are worked out only for
 * errors, from counts kept for the text let go. */
#ifndef WIREBIND_JSON_SCANNER_H
#define WIREBIND_JSON_SCANNER_H

#include <stddef.h>
#include <stdint.h>

/* How the engine's functions are declared: extern by default; json_decoder.c
 * defines it as static before including json_scanner.c itself, so that the
 * token readers inline into its loops (see there). */
#ifndef WBJS_API
#define WBJS_API
#endif

/* Error kinds (wbjs_error.kind). */
enum {
    WBJS_PARSE_ERROR = 0,
    WBJS_LIMIT_ERROR = 1,
    WBJS_NO_MEMORY = 2
};

/* How wbjs_error.subject is worded between message and suffix. */
enum {
    WBJS_QUOTE_NONE = 0,   /* no subject */
    WBJS_QUOTE_CHAR = 1,   /* the character the subject's bytes start with (Scanner.describe_char, up to 4 bytes,
                            * possibly cut or invalid: scrubbed first); "the end of the input" when empty */
    WBJS_QUOTE_EXCERPT = 2, /* the subject's bytes, scrubbed, as Types.excerpt quotes them */
    WBJS_QUOTE_RAW = 3      /* the subject's bytes as they are (valid UTF-8, perhaps a NUL) */
};

typedef struct wbjs_error {
    int kind;
    const char *message; /* UTF-8, NUL-terminated */
    int quote;
    const char *subject;
    size_t subject_len;
    const char *suffix; /* NUL-terminated, after the subject; "" for none */
    long line;          /* 1-based */
    long column;        /* 1-based, in characters */
    long long offset;   /* bytes from the start of the input */
} wbjs_error;

typedef struct wbjs_handler {
    /* Next chunk of valid UTF-8; returns 0 at the end of the input. A chunk's
     * bytes must stay valid until two more calls have been made: the scanner
     * copies what it keeps of one chunk after it has the next (so that at the
     * end of the input it copies nothing). */
    int (*read)(void *ctx, const char **ptr, size_t *len);
    /* Raises; must not return. */
    void (*error)(void *ctx, const wbjs_error *error);
} wbjs_handler;

typedef struct wbjs_bytes {
    char *ptr;
    size_t len, cap;
} wbjs_bytes;

#define WBJS_NONE ((size_t)-1)

typedef struct wbjs_scanner {
    const wbjs_handler *h;
    void *ctx;
    /* The window: buf[0, len) is readable, pos the cursor; either the current
     * chunk or own. pin: the start of a token being read, kept by a refill
     * (WBJS_NONE: none). */
    const unsigned char *buf;
    size_t len;
    size_t pos;
    size_t pin;
    int eof;
    char *own;
    size_t own_cap;
    long long base_offset; /* bytes let go before buf[0] (and a byte order mark) */
    long base_lines;       /* newlines let go */
    long base_column;      /* characters let go since the last newline */
    size_t max_token_size, max_number_length;
    wbjs_bytes str;     /* an unescaped string */
    wbjs_bytes key;     /* an unescaped (or copied) key */
    wbjs_bytes message; /* an error's message */
} wbjs_scanner;

/* Sets up a scanner; nothing is read or allocated until it is used. */
WBJS_API void wbjs_init(wbjs_scanner *s, const wbjs_handler *h, void *ctx, size_t max_token_size, size_t max_number_length);
/* Frees everything the scanner allocated; idempotent. */
WBJS_API void wbjs_free(wbjs_scanner *s);
/* Bytes held, for memsize. */
WBJS_API size_t wbjs_memsize(const wbjs_scanner *s);

/* Scanner#refill: the next chunk after what is kept of the window (from the
 * pin, or from the scan position). Returns 0 at the end of the input. */
WBJS_API int wbjs_refill(wbjs_scanner *s);
/* At least count bytes from the scan position, or 0 at the end of the input. */
WBJS_API int wbjs_ensure_bytes(wbjs_scanner *s, size_t count);

static inline int wbjs_is_ws(int c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* Skips whitespace; the next byte, or -1 at the end of the input. */
static inline int wbjs_peek_byte(wbjs_scanner *s)
{
    for (;;) {
        while (s->pos < s->len && wbjs_is_ws(s->buf[s->pos])) s->pos++;
        if (s->pos < s->len) return s->buf[s->pos];
        if (!wbjs_refill(s)) return -1;
    }
}

/* The byte at the scan position, or -1 when the window ends there. */
static inline int wbjs_byte_at_pos(const wbjs_scanner *s)
{
    return s->pos < s->len ? s->buf[s->pos] : -1;
}

/* Scanner#read_string: the string whose opening quote is at the scan position,
 * checked whole (escapes, controls, max_token_size with both quotes). Returns
 * its unescaped bytes: in the window when it has no escape (valid until the
 * next refill), else in out's buffer; NULL when out is NULL (checked only).
 * *high: it has a multi-byte character; *start: where it began. */
WBJS_API const char *wbjs_read_string(wbjs_scanner *s, wbjs_bytes *out, size_t *len, int *high, size_t *start);
/* Scanner#read_number: the number at the scan position, checked against the
 * limits and JSON's grammar. Returns its start in the window (valid until the
 * next refill); *length its length. */
WBJS_API size_t wbjs_read_number(wbjs_scanner *s, size_t *length);
/* Scanner#read_literal: word (true, false or null, n bytes) at the scan position. */
WBJS_API void wbjs_read_literal(wbjs_scanner *s, const char *word, size_t n);
/* Scanner#next_key: after '{' (first) or after a member, the next key, the ':'
 * and the whitespace after it; 0 at '}' (consumed). The key's bytes (unescaped)
 * stay valid until the next refill. */
WBJS_API int wbjs_next_member(wbjs_scanner *s, int first, const char **key, size_t *key_len);
/* Scanner#next_item?: after '[' (first) or after an item, 1 when another item
 * follows (the scan position at it, or at the end of the input), 0 at ']'. */
WBJS_API int wbjs_next_item(wbjs_scanner *s, int first);

/* Scanner#position: line, column (characters) and offset of p, a position in the window. */
WBJS_API void wbjs_locate(const wbjs_scanner *s, size_t p, long *line, long *column, long long *offset);
/* Reports an error at p (a position in the window) through handler->error:
 * message, then the subject worded as quote says, then suffix. */
#if defined(__GNUC__) || defined(__clang__)
__attribute__((noreturn))
#endif
WBJS_API void wbjs_fail(wbjs_scanner *s, int kind, size_t p, const char *message, int quote, const char *subject, size_t subject_len,
               const char *suffix);

#endif
