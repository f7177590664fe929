/* The XML text check: one pass over a chunk of the input, before any token is
 * matched, deciding whether it is already what the tokenizer expects (UTF-8
 * holding only XML 1.0 characters, line ends already LF) and counting its lines
 * for error positions. No Ruby API: the binding is xml_text_class.c. */
#ifndef WIREBIND_XML_TEXT_H
#define WIREBIND_XML_TEXT_H

#include <stddef.h>

/* Lines of a chunk, as Pure::Source#count_lines counts them. */
typedef struct wb_xtext_lines {
    size_t newlines;   /* LF bytes in the chunk */
    size_t tail_chars; /* characters after the last LF (all of them if there is none) */
} wb_xtext_lines;

/* 1 when p[0, n) is valid UTF-8 (no overlong forms, surrogates or code points
 * past U+10FFFF), holds no character XML 1.0 forbids (C0 controls but TAB and LF,
 * U+FFFE, U+FFFF) and no CR; its lines are then in *lines. 0 otherwise, *lines
 * undefined: the caller takes the careful path, which normalizes CRs and says
 * exactly what is wrong and where. */
int wb_xtext_scan_clean(const unsigned char *p, size_t n, wb_xtext_lines *lines);

#endif
