/* One pass over a chunk of XML text: see xml_text.h. A port of the checks in
 * Pure::Source#finish (validate, the CR test, count_lines) for their common
 * outcome, "nothing to do"; any other outcome is left to the Ruby code. */
#include "xml_text.h"

#include <stdint.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* Eight bytes of ASCII from 0x20 up: no high bit set, and adding 0x60 to each
 * byte sets its high bit (0x20 + 0x60 = 0x80; 0x7F + 0x60 carries into no other
 * byte). LF and TAB are not plain: they take the byte loop, which counts lines. */
static int plain_ascii_word(uint64_t w)
{
    const uint64_t high = 0x8080808080808080ULL;
    return (w & high) == 0 && ((w + 0x6060606060606060ULL) & high) == high;
}

/* Length of the valid UTF-8 sequence a multi-byte character starts at p (lead
 * byte p[0] >= 0x80), or 0 if it is invalid, truncated, or one of U+FFFE/U+FFFF. */
static size_t multibyte_length(const unsigned char *p, const unsigned char *end)
{
    unsigned char lead = p[0];
    size_t left = (size_t)(end - p);
    if (lead >= 0xC2 && lead <= 0xDF) {
        return left >= 2 && (p[1] & 0xC0) == 0x80 ? 2 : 0;
    }
    if (lead >= 0xE0 && lead <= 0xEF) {
        if (left < 3 || (p[1] & 0xC0) != 0x80 || (p[2] & 0xC0) != 0x80) return 0;
        if (lead == 0xE0 && p[1] < 0xA0) return 0;                  /* overlong */
        if (lead == 0xED && p[1] >= 0xA0) return 0;                 /* surrogate */
        if (lead == 0xEF && p[1] == 0xBF && p[2] >= 0xBE) return 0; /* U+FFFE, U+FFFF */
        return 3;
    }
    if (lead >= 0xF0 && lead <= 0xF4) {
        if (left < 4 || (p[1] & 0xC0) != 0x80 || (p[2] & 0xC0) != 0x80 || (p[3] & 0xC0) != 0x80) return 0;
        if (lead == 0xF0 && p[1] < 0x90) return 0;  /* overlong */
        if (lead == 0xF4 && p[1] >= 0x90) return 0; /* past U+10FFFF */
        return 4;
    }
    return 0; /* a continuation byte, C0/C1 (overlong) or F5..FF */
}

int wb_xtext_scan_clean(const unsigned char *p, size_t n, wb_xtext_lines *lines)
{
    const unsigned char *end = p + n;
    size_t newlines = 0, tail = 0;
    while (p < end) {
#ifdef __SSE2__
        /* Most of a document is ASCII markup and text with a newline every few
         * dozen bytes: sixteen bytes at a time when none is a control character
         * other than LF or TAB, or above 0x7F (both compare below 0x20 as signed). */
        if ((size_t)(end - p) >= 16) {
            __m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
            unsigned low = (unsigned)_mm_movemask_epi8(_mm_cmplt_epi8(v, _mm_set1_epi8(0x20)));
            unsigned lf = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8('\n')));
            unsigned tab = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8('\t')));
            if ((low & ~(lf | tab)) == 0) {
                if (lf) {
                    for (unsigned rest = lf; rest; rest &= rest - 1) newlines++; /* no popcnt in baseline x86-64 */
                    tail = (size_t)(15 - (31 - __builtin_clz(lf)));
                } else {
                    tail += 16;
                }
                p += 16;
                continue;
            }
        }
#endif
        /* Eight bytes at a time without SSE2, or in a block the above declined. */
        if ((size_t)(end - p) >= 8) {
            uint64_t w;
            memcpy(&w, p, 8);
            if (plain_ascii_word(w)) {
                p += 8;
                tail += 8;
                continue;
            }
        }
        unsigned char c = *p;
        if (c >= 0x20 && c < 0x80) {
            p++;
            tail++;
        } else if (c == '\n') {
            p++;
            newlines++;
            tail = 0;
        } else if (c == '\t') {
            p++;
            tail++;
        } else if (c >= 0x80) {
            size_t len = multibyte_length(p, end);
            if (len == 0) return 0;
            p += len;
            tail++;
        } else {
            return 0; /* CR, or a control character XML forbids */
        }
    }
    lines->newlines = newlines;
    lines->tail_chars = tail;
    return 1;
}
