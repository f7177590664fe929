/* libFuzzer harness for the C tokenizer (ext/wirebind/xml_tokenizer.c), built
 * without Ruby by `rake fuzz[seconds]`:
 *
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -Iext/wirebind \
 *         fuzz/xml_tokenizer_fuzz.c ext/wirebind/xml_tokenizer.c
 *
 * Input: one configuration byte, then the document. The tokenizer's contract
 * (xml_tokenizer.h) is that its chunks are valid, LF-normalized UTF-8 without
 * the characters XML 1.0 forbids, which Pure::Source guarantees in the gem; the
 * harness does the same to any bytes: invalid UTF-8 becomes U+FFFD, CR and CRLF
 * become LF, forbidden characters are dropped. Then it hands the text over in
 * chunks cut at character boundaries, each in a buffer of its own that is freed
 * at the next read (so ASan sees any use of a chunk after its time), and reads
 * every byte each callback is given (so ASan sees any bad pointer).
 *
 * Configuration byte:
 *   bits 0-2  chunk size: whole document, or 1, 2, 3, 7, 16, 64, 4096 bytes
 *   bit 3     want_text on for every element (else on at odd depths only)
 *   bit 4     reject_dtd
 *   bit 5     max_depth 8, max_namespaces 4 (else 1024, 10000)
 *   bit 6     max_token_size 64, max_attributes 4 (else 1 MiB, 10000)
 *   bit 7     remember token positions (marks), as the decoder does */
#include "xml_tokenizer.h"

#include "fuzz_input.h"

#include <setjmp.h>

typedef struct harness {
    wb_xtok tok;
    jmp_buf escape;
    fuzz_feed feed; /* the document, in chunks */
    int marks;      /* push/pop marks like the decoder */
    size_t mark_depth;
    int all_text;
    volatile unsigned long sink; /* what reading the callbacks' bytes adds up to */
} harness;

static void touch(harness *h, const char *ptr, size_t len)
{
    h->sink += fuzz_sum(ptr, len);
}

static void touch_str(harness *h, wb_xtok_str s)
{
    if (s.ptr) touch(h, s.ptr, s.len);
}

static int on_read(void *ctx, const char **ptr, size_t *len)
{
    return fuzz_next_chunk(&((harness *)ctx)->feed, ptr, len);
}

static void on_error(void *ctx, int kind, const char *message, size_t length, long line, long column, long long offset)
{
    harness *h = ctx;
    touch(h, message, length);
    if (line < 1 || column < 0 || offset < 0) abort(); /* positions are 1-based lines, never negative */
    (void)kind;
    longjmp(h->escape, 1);
}

static void check_stack(harness *h)
{
    size_t depth = wb_xtok_depth(&h->tok);
    for (size_t i = 0; i < depth; i++) touch_str(h, wb_xtok_name_at(&h->tok, i));
}

static void on_start(void *ctx, wb_xtok_str local, wb_xtok_str uri, const wb_xtok_attr *attrs, size_t count)
{
    harness *h = ctx;
    touch_str(h, local);
    touch_str(h, uri);
    for (size_t i = 0; i < count; i++) {
        touch_str(h, attrs[i].local);
        touch_str(h, attrs[i].uri);
        touch_str(h, attrs[i].value);
    }
    check_stack(h);
    if (h->marks) {
        long line, column;
        wb_xtok_token_position(&h->tok, &line, &column);
        wb_xtok_mark_push(&h->tok);
        h->mark_depth++;
    }
    h->tok.want_text = h->all_text || (wb_xtok_depth(&h->tok) & 1);
}

static void on_leaf(void *ctx, wb_xtok_str local, wb_xtok_str uri, const wb_xtok_attr *attrs, size_t count, wb_xtok_str text)
{
    harness *h = ctx;
    touch_str(h, local);
    touch_str(h, uri);
    touch_str(h, text);
    for (size_t i = 0; i < count; i++) {
        touch_str(h, attrs[i].local);
        touch_str(h, attrs[i].uri);
        touch_str(h, attrs[i].value);
    }
    if (h->marks) {
        long line, column;
        wb_xtok_token_position(&h->tok, &line, &column);
    }
}

static void on_text(void *ctx, const char *ptr, size_t len)
{
    touch(ctx, ptr, len);
}

static void on_end(void *ctx)
{
    harness *h = ctx;
    check_stack(h);
    if (h->marks && h->mark_depth > 0) {
        long line, column;
        wb_xtok_mark_position(&h->tok, h->mark_depth - 1, &line, &column);
        wb_xtok_mark_pop(&h->tok);
        h->mark_depth--;
    }
    h->tok.want_text = h->all_text || !(wb_xtok_depth(&h->tok) & 1);
}

static const wb_xtok_handler HANDLER = {on_read, on_error, on_start, on_leaf, on_text, on_end};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    unsigned char config = data[0];
    harness *h = calloc(1, sizeof(harness));
    if (!h) abort();
    fuzz_sanitize(&h->feed, data + 1, size - 1, 1);
    h->feed.chunk_size = FUZZ_CHUNK_SIZES[config & 7];
    h->all_text = (config >> 3) & 1;
    h->marks = (config >> 7) & 1;
    int reject_dtd = (config >> 4) & 1;
    wb_xtok_config limits = {
        (config & 0x20) ? 8 : 1024,         /* max_depth */
        (config & 0x40) ? 64 : 1024 * 1024, /* max_token_size */
        (config & 0x40) ? 4 : 10000,        /* max_attributes */
        (config & 0x20) ? 4 : 10000,        /* max_namespaces */
        reject_dtd,
        {0x0706050403020100ULL, 0x0f0e0d0c0b0a0908ULL}, /* any key will do here */
    };

    wb_xtok_init(&h->tok, &HANDLER, h, &limits);
    h->tok.want_text = h->all_text;
    if (setjmp(h->escape) == 0) {
        if (wb_xtok_run(&h->tok) == WB_XTOK_DOCTYPE) {
            const char *ptr;
            size_t len;
            wb_xtok_read_so_far(&h->tok, &ptr, &len);
            touch(h, ptr, len);
        }
    }
    (void)wb_xtok_memsize(&h->tok);
    wb_xtok_free(&h->tok);
    wb_xtok_free(&h->tok); /* idempotent, as promised */
    fuzz_feed_free(&h->feed);
    free(h);
    return 0;
}
