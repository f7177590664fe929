/* libFuzzer harness for HPACK's primitives (ext/wirebind/hpack.c: Huffman
 * code, prefixed integers, string literals), built without Ruby by
 * `rake fuzz:hpack[seconds]`:
 *
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -Iext/wirebind \
 *         fuzz/hpack_fuzz.c ext/wirebind/hpack.c
 *
 * Input: one configuration byte, then the bytes. Every input goes through
 * four checks, each with an oracle (abort on a mismatch), not only "no crash":
 *
 *   1. Huffman decode of the bytes. When it succeeds, encoding the result
 *      gives the input back byte for byte (the code is canonical and valid
 *      padding is the one EOS prefix), and wb_hpack_huffman_length agrees.
 *   2. Huffman encode of the bytes, then decode: the bytes come back.
 *   3. The bytes read as a run of prefixed integers (prefix from the
 *      configuration, limit 2**31 - 1 as the Decoder's): each value read
 *      encodes to bytes that read back to it; no read passes the end.
 *   4. The bytes read as a run of string literals (an HPACK block's strings):
 *      each Huffman one decodes or fails cleanly; each string re-encoded
 *      with wb_hpack_string_encode reads back the same.
 *
 * Configuration byte: bits 0-2 the integer prefix minus one (1..8 bits),
 * bit 3 Huffman on for step 4's re-encoding. */
#include "hpack.h"

#include <stdlib.h>
#include <string.h>

#define LIMIT 0x7fffffffu

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) abort();
    return p;
}

/* Decodes in[0..n) into a fresh buffer (the caller frees it); the result code. */
static enum wb_hpack_result huffman_decode(const uint8_t *in, size_t n, uint8_t **out, size_t *out_len)
{
    *out = xmalloc(n * 8 / 5 + 1);
    *out_len = 0;
    return wb_hpack_huffman_decode(in, n, *out, out_len);
}

static void check_huffman_decode(const uint8_t *in, size_t n)
{
    uint8_t *decoded;
    size_t len;
    enum wb_hpack_result r = huffman_decode(in, n, &decoded, &len);
    if (r != WB_HPACK_OK && r != WB_HPACK_EOS && r != WB_HPACK_PADDING) abort();
    if (r == WB_HPACK_OK) {
        if (len > n * 8 / 5 + 1) abort();
        size_t coded = wb_hpack_huffman_length(decoded, len);
        if (coded != n) abort(); /* canonical: the same length back */
        uint8_t *again = xmalloc(coded);
        wb_hpack_huffman_encode(decoded, len, again);
        if (coded && memcmp(again, in, n) != 0) abort();
        free(again);
    }
    free(decoded);
}

static void check_huffman_round_trip(const uint8_t *in, size_t n)
{
    size_t coded = wb_hpack_huffman_length(in, n);
    if (coded > (n * 30 + 7) / 8 || coded < (n * 5 + 7) / 8) abort(); /* codes are 5 to 30 bits */
    uint8_t *encoded = xmalloc(coded);
    wb_hpack_huffman_encode(in, n, encoded);
    uint8_t *decoded;
    size_t len;
    if (huffman_decode(encoded, coded, &decoded, &len) != WB_HPACK_OK) abort();
    if (len != n || (n && memcmp(decoded, in, n) != 0)) abort();
    free(decoded);
    free(encoded);
}

static void check_integers(const uint8_t *in, size_t n, unsigned prefix)
{
    size_t pos = 0;
    while (pos < n) {
        size_t start = pos;
        uint32_t value = 0;
        enum wb_hpack_result r = wb_hpack_integer_decode(in, n, &pos, prefix, LIMIT, &value);
        if (pos > n || (pos <= start && r == WB_HPACK_OK)) abort();
        if (r == WB_HPACK_TRUNCATED) {
            if (pos != n) abort();
            return;
        }
        if (r == WB_HPACK_OVERFLOW) {
            if (pos >= n) abort(); /* at the byte that went over */
            pos++;
            continue;
        }
        if (r != WB_HPACK_OK || value > LIMIT) abort();
        uint8_t bytes[WB_HPACK_INTEGER_MAX];
        uint8_t first = (uint8_t)(in[start] & ~((1u << prefix) - 1) & 0xff);
        size_t written = wb_hpack_integer_encode(value, prefix, first, bytes);
        if (written < 1 || written > WB_HPACK_INTEGER_MAX || written > pos - start) abort(); /* never longer than what was read */
        size_t again = 0;
        uint32_t back = 0;
        if (wb_hpack_integer_decode(bytes, written, &again, prefix, LIMIT, &back) != WB_HPACK_OK) abort();
        if (back != value || again != written || bytes[0] >> prefix != first >> prefix) abort();
    }
}

static void check_strings(const uint8_t *in, size_t n, int huffman)
{
    size_t pos = 0;
    while (pos < n) {
        int coded = in[pos] >= 0x80;
        uint32_t length = 0;
        if (wb_hpack_integer_decode(in, n, &pos, 7, LIMIT, &length) != WB_HPACK_OK) return;
        if (length > n - pos) return; /* runs past the block: the Decoder's error */
        const uint8_t *raw = in + pos;
        pos += length;
        uint8_t *value = (uint8_t *)raw;
        size_t value_len = length;
        uint8_t *decoded = NULL;
        if (coded) {
            if (huffman_decode(raw, length, &decoded, &value_len) != WB_HPACK_OK) {
                free(decoded);
                continue;
            }
            value = decoded;
        }
        uint8_t *literal = xmalloc(WB_HPACK_STRING_MAX(value_len));
        size_t written = wb_hpack_string_encode(value, value_len, huffman, literal);
        if (written > WB_HPACK_STRING_MAX(value_len)) abort();
        size_t at = 0;
        uint32_t back_length = 0;
        int back_coded = literal[0] >= 0x80;
        if (!huffman && back_coded) abort();
        if (wb_hpack_integer_decode(literal, written, &at, 7, LIMIT, &back_length) != WB_HPACK_OK) abort();
        if (at + back_length != written) abort();
        if (back_coded) {
            uint8_t *back;
            size_t back_len;
            if (back_length > value_len) abort(); /* Huffman only when not longer */
            if (huffman_decode(literal + at, back_length, &back, &back_len) != WB_HPACK_OK) abort();
            if (back_len != value_len || (value_len && memcmp(back, value, value_len) != 0)) abort();
            free(back);
        } else if (back_length != value_len || (value_len && memcmp(literal + at, value, value_len) != 0)) {
            abort();
        }
        free(literal);
        free(decoded);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int ready;
    if (!ready) {
        wb_hpack_init();
        ready = 1;
    }
    if (size < 1) return 0;
    unsigned prefix = (data[0] & 7) + 1;
    int huffman = (data[0] >> 3) & 1;
    /* a copy of exactly the bytes, so ASan sees any read past them */
    size_t n = size - 1;
    uint8_t *in = xmalloc(n);
    memcpy(in, data + 1, n);
    check_huffman_decode(in, n);
    check_huffman_round_trip(in, n);
    check_integers(in, n, prefix);
    check_strings(in, n, huffman);
    free(in);
    return 0;
}
