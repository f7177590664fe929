/* Bit fields for Wirebind::Buffer and the record engine (see binary_buffer.h). */
#include "binary_buffer.h"

/* Pure::Buffer#get_bits */
uint64_t wb_bbuf_get_bits(const uint8_t *p, size_t bit_offset, unsigned count)
{
    uint64_t result = 0;
    while (count > 0) {
        unsigned bit = (unsigned)(bit_offset & 7);
        unsigned take = 8 - bit;
        if (take > count) take = count;
        unsigned byte = p[bit_offset >> 3];
        result = (result << take) | ((byte >> (8 - bit - take)) & ((1u << take) - 1));
        bit_offset += take;
        count -= take;
    }
    return result;
}

/* Pure::Buffer#set_bits */
void wb_bbuf_set_bits(uint8_t *p, size_t bit_offset, unsigned count, uint64_t v)
{
    while (count > 0) {
        unsigned bit = (unsigned)(bit_offset & 7);
        unsigned take = 8 - bit;
        if (take > count) take = count;
        unsigned shift = 8 - bit - take;
        unsigned mask = ((1u << take) - 1) << shift;
        unsigned part = (unsigned)(v >> (count - take)) & ((1u << take) - 1);
        uint8_t *b = p + (bit_offset >> 3);
        *b = (uint8_t)((*b & ~mask) | (part << shift));
        bit_offset += take;
        count -= take;
    }
}
