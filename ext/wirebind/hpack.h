/* HPACK's primitives over plain memory, no Ruby calls: the Huffman code
 * (RFC 7541 section 5.2, Appendix B), prefixed integers (section 5.1) and
 * string literals (section 5.2). The references are
 * Wirebind::HTTP2::HPACK::Huffman (lib/wirebind/http2/hpack/huffman.rb) and
 * the Encoder's integer and string (lib/wirebind/http2/hpack.rb). */
#ifndef WIREBIND_HPACK_H
#define WIREBIND_HPACK_H

#include <stddef.h>
#include <stdint.h>

enum wb_hpack_result { WB_HPACK_OK = 0, WB_HPACK_EOS = 1, WB_HPACK_PADDING = 2, WB_HPACK_TRUNCATED = 3, WB_HPACK_OVERFLOW = 4 };

/* The most bytes an integer below 2**32 takes, whatever its prefix. */
#define WB_HPACK_INTEGER_MAX 6

/* Builds the code tables; once, before anything else. */
void wb_hpack_init(void);
/* The bytes n input bytes take Huffman-coded. */
size_t wb_hpack_huffman_length(const uint8_t *in, size_t n);
/* Writes the code of in[0..n) to out, which holds wb_hpack_huffman_length bytes. */
void wb_hpack_huffman_encode(const uint8_t *in, size_t n, uint8_t *out);
/* Decodes in[0..n) into out (room for n * 8 / 5 + 1 bytes: no code is shorter
 * than 5 bits), sets *out_len; an EOS symbol or bad padding is an error. */
enum wb_hpack_result wb_hpack_huffman_decode(const uint8_t *in, size_t n, uint8_t *out, size_t *out_len);

/* Writes value with a prefix-bit prefix (1..8) after the high bits first,
 * returns the bytes written (at most WB_HPACK_INTEGER_MAX). */
size_t wb_hpack_integer_encode(uint32_t value, unsigned prefix, uint8_t first, uint8_t *out);
/* Reads an integer with a prefix-bit prefix at in[*pos] (pos < n), advancing
 * *pos past it: WB_HPACK_TRUNCATED if in ends inside it, WB_HPACK_OVERFLOW
 * if it is above limit (*pos then points at the byte that went over). */
enum wb_hpack_result wb_hpack_integer_decode(const uint8_t *in, size_t n, size_t *pos, unsigned prefix, uint32_t limit, uint32_t *value);
/* The bytes wb_hpack_string_encode writes for n input bytes at most. */
#define WB_HPACK_STRING_MAX(n) (WB_HPACK_INTEGER_MAX + (n))
/* Writes the string literal of in[0..n) (n < 2**32): Huffman-coded when huffman
 * is set and that is not longer, else raw; returns the bytes written. */
size_t wb_hpack_string_encode(const uint8_t *in, size_t n, int huffman, uint8_t *out);

#endif
