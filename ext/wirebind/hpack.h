/* HPACK's Huffman code (RFC 7541 section 5.2, Appendix B): encoding and
 * decoding over plain memory, no Ruby calls. The reference is
 * Wirebind::HTTP2::HPACK::Huffman (lib/wirebind/http2/hpack/huffman.rb). */
#ifndef WIREBIND_HPACK_H
#define WIREBIND_HPACK_H

#include <stddef.h>
#include <stdint.h>

enum wb_hpack_result { WB_HPACK_OK = 0, WB_HPACK_EOS = 1, WB_HPACK_PADDING = 2 };

/* Builds the code tables; once, before anything else. */
void wb_hpack_init(void);
/* The bytes n input bytes take Huffman-coded. */
size_t wb_hpack_huffman_length(const uint8_t *in, size_t n);
/* Writes the code of in[0..n) to out, which holds wb_hpack_huffman_length bytes. */
void wb_hpack_huffman_encode(const uint8_t *in, size_t n, uint8_t *out);
/* Decodes in[0..n) into out (room for n * 8 / 5 + 1 bytes: no code is shorter
 * than 5 bits), sets *out_len; an EOS symbol or bad padding is an error. */
enum wb_hpack_result wb_hpack_huffman_decode(const uint8_t *in, size_t n, uint8_t *out, size_t *out_len);

#endif
