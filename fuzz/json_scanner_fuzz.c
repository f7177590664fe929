/* libFuzzer harness for the C JSON scanner (ext/wirebind/json_scanner.c),
 * built without Ruby by `rake fuzz:json[seconds]`:
 *
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -Iext/wirebind \
 *         fuzz/json_scanner_fuzz.c ext/wirebind/json_scanner.c
 *
 * Input: one configuration byte, then the document. The scanner's contract
 * (json_scanner.h) is that its chunks are valid UTF-8, which Pure::Source
 * guarantees in the gem; the harness does the same to any bytes (invalid
 * UTF-8 becomes U+FFFD). Then it hands the text over in chunks cut at
 * character boundaries, each in a buffer of its own that is freed as soon as
 * the contract allows, two reads later (so ASan sees any use of a chunk after
 * its time), walks every value the
 * way json_decoder.c's read_any does (an explicit stack, no recursion), and
 * reads every byte the scanner hands back (so ASan sees any bad pointer).
 *
 * Configuration byte:
 *   bits 0-2  chunk size: whole document, or 1, 2, 3, 7, 16, 64, 4096 bytes
 *   bit 3     strings only checked (no unescaped copy), as skipped values are
 *   bit 4     max_token_size 16 (else 1 MiB)
 *   bit 5     max_number_length 8 (else 4096)
 *   bit 6     max_depth 8 (else 1024) */
#include "json_scanner.h"
#include "fuzz_input.h"

#include <setjmp.h>

typedef struct harness {
    wb_jscan scan;
    jmp_buf escape;
    fuzz_feed feed; /* the document, in chunks (the one before the last stays valid) */
    int check_only;
    size_t max_depth;
    unsigned char *open;         /* the open containers: 1 object, 0 array */
    volatile unsigned long sink; /* what reading the handed-back bytes adds up to */
} harness;

static void touch(harness *h, const char *ptr, size_t len)
{
    h->sink += fuzz_sum(ptr, len);
}

static int on_read(void *ctx, const char **ptr, size_t *len)
{
    return fuzz_next_chunk(&((harness *)ctx)->feed, ptr, len);
}

static void on_error(void *ctx, const wb_jscan_error *e)
{
    harness *h = ctx;
    touch(h, e->message, strlen(e->message));
    touch(h, e->suffix, strlen(e->suffix));
    if (e->quote != WB_JSCAN_QUOTE_NONE) touch(h, e->subject, e->subject_len);
    if (e->quote == WB_JSCAN_QUOTE_CHAR && e->subject_len > 4) abort(); /* one character's bytes at most */
    if (e->line < 1 || e->column < 1 || e->offset < 0) abort();         /* positions are 1-based, never negative */
    if ((unsigned long long)e->offset > h->feed.text_len) abort();      /* never past the input */
    longjmp(h->escape, 1);
}

static const wb_jscan_handler HANDLER = {on_read, on_error};

static void fail_value(harness *h)
{
    wb_jscan *s = &h->scan;
    size_t n = s->pos < s->len ? s->len - s->pos : 0;
    if (n > 4) n = 4;
    wb_jscan_fail(s, WB_JSCAN_PARSE_ERROR, s->pos, "expected a JSON value, got ", WB_JSCAN_QUOTE_CHAR, (const char *)s->buf + s->pos, n,
                  NULL);
}

static void string(harness *h)
{
    size_t len, start;
    int high;
    const char *p = wb_jscan_read_string(&h->scan, h->check_only ? NULL : &h->scan.str, &len, &high, &start);
    if (p) touch(h, p, len);
    if (start > h->scan.len) abort();
}

/* One document, as json_decoder.c's read_any reads an untyped value. */
static void walk(harness *h)
{
    wb_jscan *s = &h->scan;
    size_t depth = 0;
    if (wb_jscan_peek_byte(s) < 0) wb_jscan_fail(s, WB_JSCAN_PARSE_ERROR, s->pos, "the input is empty", WB_JSCAN_QUOTE_NONE, NULL, 0, NULL);
    for (;;) {
        int byte = wb_jscan_byte_at_pos(s);
        const char *key;
        size_t key_len;
        switch (byte) {
        case '"': string(h); break;
        case '{':
            if (depth >= h->max_depth) wb_jscan_fail(s, WB_JSCAN_LIMIT_ERROR, s->pos, "too deep", WB_JSCAN_QUOTE_NONE, NULL, 0, NULL);
            s->pos++;
            if (wb_jscan_next_member(s, 1, &key, &key_len)) {
                touch(h, key, key_len);
                h->open[depth++] = 1;
                continue;
            }
            break;
        case '[':
            if (depth >= h->max_depth) wb_jscan_fail(s, WB_JSCAN_LIMIT_ERROR, s->pos, "too deep", WB_JSCAN_QUOTE_NONE, NULL, 0, NULL);
            s->pos++;
            if (wb_jscan_next_item(s, 1)) {
                h->open[depth++] = 0;
                continue;
            }
            break;
        case 't': wb_jscan_read_literal(s, "true", 4); break;
        case 'f': wb_jscan_read_literal(s, "false", 5); break;
        case 'n': wb_jscan_read_literal(s, "null", 4); break;
        default:
            if (byte == '-' || (byte >= '0' && byte <= '9')) {
                size_t n;
                size_t start = wb_jscan_read_number(s, &n);
                if (start + n > s->len) abort();
                touch(h, (const char *)s->buf + start, n);
                break;
            }
            if (byte < 0 && wb_jscan_refill(s)) continue; /* the value starts in the next chunk */
            fail_value(h);
        }
        /* After a value: the next member or item, or the end of containers. */
        for (;;) {
            if (depth == 0) {
                if (wb_jscan_peek_byte(s) >= 0) {
                    wb_jscan_fail(s, WB_JSCAN_PARSE_ERROR, s->pos, "unexpected ", WB_JSCAN_QUOTE_CHAR, (const char *)s->buf + s->pos,
                                  s->len - s->pos > 4 ? 4 : s->len - s->pos, " after the JSON value");
                }
                return;
            }
            if (h->open[depth - 1]) {
                if (wb_jscan_next_member(s, 0, &key, &key_len)) {
                    touch(h, key, key_len);
                    break;
                }
            } else if (wb_jscan_next_item(s, 0)) {
                break;
            }
            depth--;
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    unsigned char config = data[0];
    harness *h = calloc(1, sizeof(harness));
    if (!h) abort();
    fuzz_sanitize(&h->feed, data + 1, size - 1, 0);
    h->feed.chunk_size = FUZZ_CHUNK_SIZES[config & 7];
    h->feed.keep_previous = 1;
    h->check_only = (config >> 3) & 1;
    size_t max_token_size = (config & 0x10) ? 16 : 1024 * 1024;
    size_t max_number_length = (config & 0x20) ? 8 : 4096;
    h->max_depth = (config & 0x40) ? 8 : 1024;
    h->open = malloc(h->max_depth);
    if (!h->open) abort();

    wb_jscan_init(&h->scan, &HANDLER, h, max_token_size, max_number_length);
    if (setjmp(h->escape) == 0) {
        wb_jscan_refill(&h->scan);
        walk(h);
    }
    (void)wb_jscan_memsize(&h->scan);
    wb_jscan_free(&h->scan);
    wb_jscan_free(&h->scan); /* idempotent, as promised */
    free(h->open);
    fuzz_feed_free(&h->feed);
    free(h);
    return 0;
}
