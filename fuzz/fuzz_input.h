/* What the libFuzzer harnesses share: the fuzzer's bytes made into the text the
 * gem's Ruby sources would hand a C engine (valid UTF-8; for XML also line ends
 * normalized and forbidden characters left out), then handed out in chunks cut
 * at character boundaries, each in a malloc'd buffer of its own that is freed as
 * soon as the engine's contract allows, so ASan sees any use after its time.
 * Included by each harness (static functions: one translation unit each). */
#ifndef WIREBIND_FUZZ_INPUT_H
#define WIREBIND_FUZZ_INPUT_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Chunk sizes a configuration byte picks from: 0 is the whole document at once. */
static const size_t FUZZ_CHUNK_SIZES[8] = {0, 1, 2, 3, 7, 16, 64, 4096};

typedef struct fuzz_feed {
    const unsigned char *text; /* the sanitized document */
    size_t text_len;
    size_t offset;     /* handed out so far */
    size_t chunk_size; /* 0: the whole document at once */
    int keep_previous; /* the chunk before the last stays valid (the JSON scanner's contract) */
    char *chunk;       /* the current chunk's own buffer */
    char *previous;    /* the one before, when keep_previous */
} fuzz_feed;

/* Adds up the bytes, so that ASan checks every pointer an engine hands back. */
static unsigned long fuzz_sum(const char *ptr, size_t len)
{
    unsigned long sum = 0;
    for (size_t i = 0; i < len; i++) sum += (unsigned char)ptr[i];
    return sum;
}

/* The length of the well-formed UTF-8 sequence at p (and its code point), or 0. */
static size_t fuzz_utf8(const unsigned char *p, size_t avail, uint32_t *code)
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

/* Characters XML 1.0 forbids, which XML::Pure::Source refuses before the tokenizer. */
static int fuzz_xml_forbidden(uint32_t c)
{
    return (c < 0x20 && c != 0x09 && c != 0x0A && c != 0x0D) || c == 0xFFFE || c == 0xFFFF;
}

/* What a Pure::Source would hand the engine, give or take its errors: invalid
 * UTF-8 becomes U+FFFD; with +xml+, CR and CRLF become LF and forbidden
 * characters are left out. Fills the feed's text (malloc'd). */
static void fuzz_sanitize(fuzz_feed *f, const uint8_t *data, size_t size, int xml)
{
    unsigned char *out = malloc(size * 3 + 1); /* U+FFFD is 3 bytes for each bad byte */
    if (!out) abort();
    size_t n = 0;
    size_t i = 0;
    while (i < size) {
        uint32_t code;
        size_t len = fuzz_utf8(data + i, size - i, &code);
        if (len == 0) {
            memcpy(out + n, "\xEF\xBF\xBD", 3);
            n += 3;
            i++;
            continue;
        }
        if (xml && code == 0x0D) {
            out[n++] = '\n';
            i += (i + 1 < size && data[i + 1] == '\n') ? 2 : 1;
            continue;
        }
        if (!xml || !fuzz_xml_forbidden(code)) {
            memcpy(out + n, data + i, len);
            n += len;
        }
        i += len;
    }
    f->text = out;
    f->text_len = n;
}

/* The engine's read callback: the next chunk, or 0 at the end. */
static int fuzz_next_chunk(fuzz_feed *f, const char **ptr, size_t *len)
{
    if (f->keep_previous) {
        free(f->previous); /* the time of the chunk before the last is over */
        f->previous = f->chunk;
    } else {
        free(f->chunk); /* the previous chunk's time is over */
    }
    f->chunk = NULL;
    if (f->offset >= f->text_len) return 0;
    size_t n = f->text_len - f->offset;
    if (f->chunk_size && n > f->chunk_size) {
        n = f->chunk_size;
        /* Chunks end between characters: extend to the end of the one cut. */
        while (f->offset + n < f->text_len && (f->text[f->offset + n] & 0xC0) == 0x80) n++;
    }
    f->chunk = malloc(n);
    if (!f->chunk) abort();
    memcpy(f->chunk, f->text + f->offset, n);
    f->offset += n;
    *ptr = f->chunk;
    *len = n;
    return 1;
}

static void fuzz_feed_free(fuzz_feed *f)
{
    free(f->chunk);
    free(f->previous);
    free((void *)f->text);
}

#endif
