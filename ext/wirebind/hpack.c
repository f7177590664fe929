/* HPACK Huffman coding (see hpack.h). Decoding is canonical: for each code
 * length, the first code and the symbols of that length in order, so a symbol
 * costs one comparison per length from the shortest (5 bits) up. */
#include "hpack.h"

#include <string.h>

/* RFC 7541 Appendix B: each symbol's code length, then EOS's. */
static const uint8_t lengths[257] = {
    13, 23, 28, 28, 28, 28, 28, 28, 28, 24, 30, 28, 28, 30, 28, 28, 28, 28, 28, 28, 28, 28, 30, 28, 28, 28, 28, 28, 28, 28, 28, 28, 6,
    10, 10, 12, 13, 6,  8,  11, 10, 10, 8,  11, 8,  6,  6,  6,  5,  5,  5,  6,  6,  6,  6,  6,  6,  6,  7,  8,  15, 6,  12, 10, 13, 6,
    7,  7,  7,  7,  7,  7,  7,  7,  7,  7,  7,  7,  7,  7,  7,  7,  7,  7,  7,  7,  7,  7,  8,  7,  8,  13, 19, 13, 14, 6,  15, 5,  6,
    5,  6,  5,  6,  6,  6,  5,  7,  7,  6,  6,  6,  5,  6,  7,  6,  5,  5,  6,  7,  7,  7,  7,  7,  15, 11, 14, 13, 28, 20, 22, 20, 20,
    22, 22, 22, 23, 22, 23, 23, 23, 23, 23, 24, 23, 24, 24, 22, 23, 24, 23, 23, 23, 23, 21, 22, 23, 22, 23, 23, 24, 22, 21, 20, 22, 22,
    23, 23, 21, 23, 22, 22, 24, 21, 22, 23, 23, 21, 21, 22, 21, 23, 22, 23, 23, 20, 22, 22, 22, 23, 22, 22, 23, 26, 26, 20, 19, 22, 23,
    22, 25, 26, 26, 26, 27, 27, 26, 24, 25, 19, 21, 26, 27, 27, 26, 27, 24, 21, 21, 26, 26, 28, 27, 27, 27, 20, 24, 20, 21, 22, 21, 21,
    23, 22, 22, 25, 25, 24, 24, 26, 23, 26, 27, 26, 26, 27, 27, 27, 27, 27, 28, 27, 27, 27, 27, 27, 26, 30};

static uint32_t codes[257];
static uint32_t first_code[32];  /* the first code of each length */
static uint16_t first_index[32]; /* its place in sorted_symbols */
static uint16_t count[32];
static uint16_t sorted_symbols[257];

/* HUFFMAN_CODES in tables.rb */
void wb_hpack_init(void)
{
    uint32_t code = 0;
    int length, symbol;
    uint16_t next = 0;
    for (length = 1; length <= 30; length++) {
        first_code[length] = code;
        first_index[length] = next;
        for (symbol = 0; symbol < 257; symbol++) {
            if (lengths[symbol] != length) continue;
            codes[symbol] = code++;
            sorted_symbols[next++] = (uint16_t)symbol;
            count[length]++;
        }
        code <<= 1;
    }
}

/* Huffman.encoded_length */
size_t wb_hpack_huffman_length(const uint8_t *in, size_t n)
{
    uint64_t bits = 0;
    size_t i;
    for (i = 0; i < n; i++) bits += lengths[in[i]];
    return (size_t)((bits + 7) >> 3);
}

/* Huffman.encode */
void wb_hpack_huffman_encode(const uint8_t *in, size_t n, uint8_t *out)
{
    uint64_t acc = 0;
    unsigned bits = 0;
    size_t i;
    for (i = 0; i < n; i++) {
        unsigned len = lengths[in[i]];
        acc = (acc << len) | codes[in[i]];
        bits += len;
        while (bits >= 8) {
            bits -= 8;
            *out++ = (uint8_t)(acc >> bits);
        }
        acc &= ((uint64_t)1 << bits) - 1;
    }
    if (bits > 0) *out = (uint8_t)((acc << (8 - bits)) | ((1u << (8 - bits)) - 1));
}

/* Huffman.decode */
enum wb_hpack_result wb_hpack_huffman_decode(const uint8_t *in, size_t n, uint8_t *out, size_t *out_len)
{
    uint64_t window = 0; /* unread bits, right-aligned */
    unsigned have = 0;
    size_t i = 0, o = 0;
    for (;;) {
        while (have <= 56 && i < n) {
            window = (window << 8) | in[i++];
            have += 8;
        }
        if (have < 5) break; /* no symbol is shorter than 5 bits */
        unsigned len;
        int found = 0;
        for (len = 5; len <= 30 && len <= have; len++) {
            uint32_t code = (uint32_t)(window >> (have - len)) & (uint32_t)((1ull << len) - 1);
            if (code - first_code[len] < count[len]) {
                uint16_t symbol = sorted_symbols[first_index[len] + (code - first_code[len])];
                if (symbol == 256) return WB_HPACK_EOS;
                out[o++] = (uint8_t)symbol;
                have -= len;
                window &= have ? (((uint64_t)1 << have) - 1) : 0;
                found = 1;
                break;
            }
        }
        if (!found) {
            if (i < n || have >= 30) return WB_HPACK_EOS; /* no code matches: only EOS's prefix is left unassigned */
            break;
        }
    }
    /* padding: fewer than 8 bits, all ones */
    if (have > 7 || window != (((uint64_t)1 << have) - 1)) return WB_HPACK_PADDING;
    *out_len = o;
    return WB_HPACK_OK;
}

/* Encoder#integer */
size_t wb_hpack_integer_encode(uint32_t value, unsigned prefix, uint8_t first, uint8_t *out)
{
    uint32_t mask = (1u << prefix) - 1;
    size_t n = 0;
    if (value < mask) {
        out[0] = (uint8_t)(first | value);
        return 1;
    }
    out[n++] = (uint8_t)(first | mask);
    value -= mask;
    while (value >= 0x80) {
        out[n++] = (uint8_t)((value & 0x7f) | 0x80);
        value >>= 7;
    }
    out[n++] = (uint8_t)value;
    return n;
}

/* Decoder#integer */
enum wb_hpack_result wb_hpack_integer_decode(const uint8_t *in, size_t n, size_t *pos, unsigned prefix, uint32_t limit, uint32_t *value)
{
    uint32_t mask = (1u << prefix) - 1;
    uint64_t v = in[*pos] & mask;
    unsigned shift = 0;
    (*pos)++;
    if (v < mask) {
        if (v > limit) return WB_HPACK_OVERFLOW;
        *value = (uint32_t)v;
        return WB_HPACK_OK;
    }
    for (;;) {
        if (*pos >= n) return WB_HPACK_TRUNCATED;
        uint8_t byte = in[*pos];
        /* limit < 2**32 and v <= limit before: past 35 bits of shift any non-zero part overflows */
        if (shift > 35 && (byte & 0x7f)) return WB_HPACK_OVERFLOW;
        if (shift <= 35) v += (uint64_t)(byte & 0x7f) << shift;
        if (v > limit) return WB_HPACK_OVERFLOW;
        (*pos)++;
        if (byte < 0x80) break;
        if (shift <= 35) shift += 7; /* stays past 35 through any run of 0x80 bytes */
    }
    *value = (uint32_t)v;
    return WB_HPACK_OK;
}

/* Encoder#string */
size_t wb_hpack_string_encode(const uint8_t *in, size_t n, int huffman, uint8_t *out)
{
    size_t coded = huffman ? wb_hpack_huffman_length(in, n) : n + 1;
    size_t header;
    if (coded <= n) {
        header = wb_hpack_integer_encode((uint32_t)coded, 7, 0x80, out);
        wb_hpack_huffman_encode(in, n, out + header);
        return header + coded;
    }
    header = wb_hpack_integer_encode((uint32_t)n, 7, 0, out);
    if (n > 0) memcpy(out + header, in, n);
    return header + n;
}
