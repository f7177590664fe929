/* The JSON scanner engine: JSON (RFC 8259) tokens over byte buffers, for the
 * decoder (json_decoder.c), which builds Ruby values from them. It holds no
 * Ruby objects and makes no Ruby calls, so that it links alone (the fuzzer,
 * fuzz/json_scanner_fuzz.c): input arrives through handler->read, errors
 * leave through handler->error (which must not return), and everything it
 * allocates hangs off the wb_jscan, so a non-local exit out of a callback
 * leaks nothing once wb_jscan_free runs.
 *
 * It is the C port of lib/wirebind/json/pure/scanner.rb's token readers, the
 * reference: the same errors at the same positions. Where a message names a
 * character or quotes a piece of the input, the engine hands that piece to
 * the handler (wb_jscan_error.quote) rather than word it itself: the binding
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
#ifndef WB_JSCAN_API
#define WB_JSCAN_API
#endif

/* Error kinds (wb_jscan_error.kind). WB_JSCAN_TRUNCATED is a parse error
 * found because the input ended inside a value. */
enum { WB_JSCAN_PARSE_ERROR = 0, WB_JSCAN_LIMIT_ERROR = 1, WB_JSCAN_NO_MEMORY = 2, WB_JSCAN_TRUNCATED = 3 };

/* How wb_jscan_error.subject is worded between message and suffix. */
enum {
    WB_JSCAN_QUOTE_NONE = 0,    /* no subject */
    WB_JSCAN_QUOTE_CHAR = 1,    /* the character the subject's bytes start with (Scanner.describe_char, up to 4 bytes,
                            * possibly cut or invalid: scrubbed first); "the end of the input" when empty */
    WB_JSCAN_QUOTE_EXCERPT = 2, /* the subject's bytes, scrubbed, as Types.excerpt quotes them */
    WB_JSCAN_QUOTE_RAW = 3      /* the subject's bytes as they are (valid UTF-8, perhaps a NUL) */
};

typedef struct wb_jscan_error {
    int kind;
    const char *message; /* UTF-8, NUL-terminated */
    int quote;
    const char *subject;
    size_t subject_len;
    const char *suffix; /* NUL-terminated, after the subject; "" for none */
    long line;          /* 1-based */
    long column;        /* 1-based, in characters */
    long long offset;   /* bytes from the start of the input */
} wb_jscan_error;

typedef struct wb_jscan_handler {
    /* Next chunk of valid UTF-8; returns 0 at the end of the input. A chunk's
     * bytes must stay valid until two more calls have been made: the scanner
     * copies what it keeps of one chunk after it has the next (so that at the
     * end of the input it copies nothing). */
    int (*read)(void *ctx, const char **ptr, size_t *len);
    /* Raises; must not return. */
    void (*error)(void *ctx, const wb_jscan_error *error);
} wb_jscan_handler;

typedef struct wb_jscan_bytes {
    char *ptr;
    size_t len, cap;
} wb_jscan_bytes;

#define WB_JSCAN_NONE ((size_t)-1)

typedef struct wb_jscan {
    const wb_jscan_handler *h;
    void *ctx;
    /* The window: buf[0, len) is readable, pos the cursor; either the current
     * chunk or own. pin: the start of a token being read, kept by a refill
     * (WB_JSCAN_NONE: none). */
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
    wb_jscan_bytes str;     /* an unescaped string */
    wb_jscan_bytes key;     /* an unescaped (or copied) key */
    wb_jscan_bytes message; /* an error's message */
} wb_jscan;

/* Sets up a scanner; nothing is read or allocated until it is used. */
WB_JSCAN_API void wb_jscan_init(wb_jscan *s, const wb_jscan_handler *h, void *ctx, size_t max_token_size, size_t max_number_length);
/* Frees everything the scanner allocated; idempotent. */
WB_JSCAN_API void wb_jscan_free(wb_jscan *s);
/* Bytes held, for memsize. */
WB_JSCAN_API size_t wb_jscan_memsize(const wb_jscan *s);

/* Scanner#refill: the next chunk after what is kept of the window (from the
 * pin, or from the scan position). Returns 0 at the end of the input. */
WB_JSCAN_API int wb_jscan_refill(wb_jscan *s);
/* At least count bytes from the scan position, or 0 at the end of the input. */
WB_JSCAN_API int wb_jscan_ensure_bytes(wb_jscan *s, size_t count);

static inline int wb_jscan_is_ws(int c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* Skips whitespace; the next byte, or -1 at the end of the input. */
static inline int wb_jscan_peek_byte(wb_jscan *s)
{
    for (;;) {
        while (s->pos < s->len && wb_jscan_is_ws(s->buf[s->pos])) s->pos++;
        if (s->pos < s->len) return s->buf[s->pos];
        if (!wb_jscan_refill(s)) return -1;
    }
}

/* The byte at the scan position, or -1 when the window ends there. */
static inline int wb_jscan_byte_at_pos(const wb_jscan *s)
{
    return s->pos < s->len ? s->buf[s->pos] : -1;
}

/* Scanner#read_string: the string whose opening quote is at the scan position,
 * checked whole (escapes, controls, max_token_size with both quotes). Returns
 * its unescaped bytes: in the window when it has no escape (valid until the
 * next refill), else in out's buffer; NULL when out is NULL (checked only).
 * *high: it has a multi-byte character; *start: where it began. */
WB_JSCAN_API const char *wb_jscan_read_string(wb_jscan *s, wb_jscan_bytes *out, size_t *len, int *high, size_t *start);
/* Scanner#read_number: the number at the scan position, checked against the
 * limits and JSON's grammar. Returns its start in the window (valid until the
 * next refill); *length its length. */
WB_JSCAN_API size_t wb_jscan_read_number(wb_jscan *s, size_t *length);
/* Whether p[0, n) is a number in JSON's grammar (Scanner::NUMBER_GRAMMAR). */
WB_JSCAN_API int wb_jscan_number_grammar(const unsigned char *p, size_t n);
/* Scanner#read_literal: word (true, false or null, n bytes) at the scan position. */
WB_JSCAN_API void wb_jscan_read_literal(wb_jscan *s, const char *word, size_t n);
/* Scanner#next_key: after '{' (first) or after a member, the next key, the ':'
 * and the whitespace after it; 0 at '}' (consumed). The key's bytes (unescaped)
 * stay valid until the next refill. */
WB_JSCAN_API int wb_jscan_next_member(wb_jscan *s, int first, const char **key, size_t *key_len);
/* Scanner#next_item?: after '[' (first) or after an item, 1 when another item
 * follows (the scan position at it, or at the end of the input), 0 at ']'. */
WB_JSCAN_API int wb_jscan_next_item(wb_jscan *s, int first);

/* Scanner#position: line, column (characters) and offset of p, a position in the window. */
WB_JSCAN_API void wb_jscan_locate(const wb_jscan *s, size_t p, long *line, long *column, long long *offset);
/* Reports an error at p (a position in the window) through handler->error:
 * message, then the subject worded as quote says, then suffix. */
#if defined(__GNUC__) || defined(__clang__)
__attribute__((noreturn))
#endif
WB_JSCAN_API void
wb_jscan_fail(wb_jscan *s, int kind, size_t p, const char *message, int quote, const char *subject, size_t subject_len, const char *suffix);

#endif
