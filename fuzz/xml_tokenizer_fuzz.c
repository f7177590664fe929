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

#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct harness {
    wbx_tokenizer tok;
    jmp_buf escape;
    const unsigned char *text; /* the sanitized document */
    size_t text_len;
    size_t offset;             /* handed out so far */
    size_t chunk_size;         /* 0: the whole document at once */
    char *chunk;               /* the current chunk's own buffer */
    int marks;                 /* push/pop marks like the decoder */
    size_t mark_depth;
    int all_text;
    volatile unsigned long sink; /* what reading the callbacks' bytes adds up to */
} harness;

static const size_t CHUNK_SIZES[8] = {0, 1, 2, 3, 7, 16, 64, 4096};

static void touch(harness *h, const char *ptr, size_t len)
{
    unsigned long sum = 0;
    for (size_t i = 0; i < len; i++) sum += (unsigned char)ptr[i];
    h->sink += sum;
}

static void touch_str(harness *h, wbx_str s)
{
    if (s.ptr) touch(h, s.ptr, s.len);
}

static int on_read(void *ctx, const char **ptr, size_t *len)
{
    harness *h = ctx;
    free(h->chunk); /* the previous chunk's time is over */
    h->chunk = NULL;
    if (h->offset >= h->text_len) return 0;
    size_t n = h->text_len - h->offset;
    if (h->chunk_size && n > h->chunk_size) {
        n = h->chunk_size;
        /* Chunks end between characters: extend to the end of the one cut. */
        while (h->offset + n < h->text_len && (h->text[h->offset + n] & 0xC0) == 0x80) n++;
    }
    h->chunk = malloc(n);
    if (!h->chunk) abort();
    memcpy(h->chunk, h->text + h->offset, n);
    h->offset += n;
    *ptr = h->chunk;
    *len = n;
    return 1;
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
    size_t depth = wbx_depth(&h->tok);
    for (size_t i = 0; i < depth; i++) touch_str(h, wbx_name_at(&h->tok, i));
}

static void on_start(void *ctx, wbx_str local, wbx_str uri, const wbx_attr *attrs, size_t count)
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
        wbx_token_position(&h->tok, &line, &column);
        wbx_mark_push(&h->tok);
        h->mark_depth++;
    }
    h->tok.want_text = h->all_text || (wbx_depth(&h->tok) & 1);
}

static void on_leaf(void *ctx, wbx_str local, wbx_str uri, const wbx_attr *attrs, size_t count, wbx_str text)
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
        wbx_token_position(&h->tok, &line, &column);
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
        wbx_mark_position(&h->tok, h->mark_depth - 1, &line, &column);
        wbx_mark_pop(&h->tok);
        h->mark_depth--;
    }
    h->tok.want_text = h->all_text || !(wbx_depth(&h->tok) & 1);
}

static const wbx_handler HANDLER = {on_read, on_error, on_start, on_leaf, on_text, on_end};

static int forbidden(uint32_t c)
{
    return (c < 0x20 && c != 0x09 && c != 0x0A && c != 0x0D) || c == 0xFFFE || c == 0xFFFF;
}

/* The length of the well-formed UTF-8 sequence at p (and its code point), or 0. */
static size_t decode_utf8(const unsigned char *p, size_t avail, uint32_t *code)
{
    unsigned char c = p[0];
    if (c < 0x80) {
        *code = c;
        return 1;
    }
    if (c >= 0xC2 && c <= 0xDF && avail >= 2 && (p[1] & 0xC0) == 0x80) {
        *code = ((uint32_t)(c & 0x1F) << 6) | (p[1] & 0x3F);
        return 2;
    }
    if (c >= 0xE0 && c <= 0xEF && avail >= 3 && (p[1] & 0xC0) == 0x80 && (p[2] & 0xC0) == 0x80) {
        if ((c == 0xE0 && p[1] < 0xA0) || (c == 0xED && p[1] > 0x9F)) return 0;
        *code = ((uint32_t)(c & 0x0F) << 12) | ((uint32_t)(p[1] & 0x3F) << 6) | (p[2] & 0x3F);
        return 3;
    }
    if (c >= 0xF0 && c <= 0xF4 && avail >= 4 && (p[1] & 0xC0) == 0x80 && (p[2] & 0xC0) == 0x80 && (p[3] & 0xC0) == 0x80) {
        if ((c == 0xF0 && p[1] < 0x90) || (c == 0xF4 && p[1] > 0x8F)) return 0;
        *code = ((uint32_t)(c & 0x07) << 18) | ((uint32_t)(p[1] & 0x3F) << 12) | ((uint32_t)(p[2] & 0x3F) << 6) | (p[3] & 0x3F);
        return 4;
    }
    return 0;
}

/* What Pure::Source would hand the tokenizer, give or take its errors. */
static unsigned char *sanitize(const uint8_t *data, size_t size, size_t *out_len)
{
    unsigned char *out = malloc(size * 3 + 1); /* U+FFFD is 3 bytes for each bad byte */
    if (!out) abort();
    size_t n = 0;
    size_t i = 0;
    while (i < size) {
        uint32_t code;
        size_t len = decode_utf8(data + i, size - i, &code);
        if (len == 0) {
            memcpy(out + n, "\xEF\xBF\xBD", 3);
            n += 3;
            i++;
            continue;
        }
        if (code == 0x0D) {
            out[n++] = '\n';
            i += (i + 1 < size && data[i + 1] == '\n') ? 2 : 1;
            continue;
        }
        if (!forbidden(code)) {
            memcpy(out + n, data + i, len);
            n += len;
        }
        i += len;
    }
    *out_len = n;
    return out;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    unsigned char config = data[0];
    harness *h = calloc(1, sizeof(harness));
    if (!h) abort();
    h->text = sanitize(data + 1, size - 1, &h->text_len);
    h->chunk_size = CHUNK_SIZES[config & 7];
    h->all_text = (config >> 3) & 1;
    h->marks = (config >> 7) & 1;
    int reject_dtd = (config >> 4) & 1;
    wbx_config limits = {
        (config & 0x20) ? 8 : 1024,            /* max_depth */
        (config & 0x40) ? 64 : 1024 * 1024,    /* max_token_size */
        (config & 0x40) ? 4 : 10000,           /* max_attributes */
        (config & 0x20) ? 4 : 10000,           /* max_namespaces */
        reject_dtd,
        {0x0706050403020100ULL, 0x0f0e0d0c0b0a0908ULL}, /* any key will do here */
    };

    wbx_init(&h->tok, &HANDLER, h, &limits);
    h->tok.want_text = h->all_text;
    if (setjmp(h->escape) == 0) {
        if (wbx_run(&h->tok) == WBX_DOCTYPE) {
            const char *ptr;
            size_t len;
            wbx_read_so_far(&h->tok, &ptr, &len);
            touch(h, ptr, len);
        }
    }
    (void)wbx_memsize(&h->tok);
    wbx_free(&h->tok);
    wbx_free(&h->tok); /* idempotent, as promised */
    free(h->chunk);
    free((void *)h->text);
    free(h);
    return 0;
}
