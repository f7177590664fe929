/* Binary::Pure::Codec's generated decode and encode, in C (see binary_record.h). */
#include "binary_record.h"

/* The bytes of source and their count: a Buffer's, or a String's (re-read
 * after every allocation: an embedded String's bytes move under compaction). */
static const uint8_t *source_bytes(VALUE source, size_t *len)
{
    if (RB_TYPE_P(source, T_STRING)) {
        *len = (size_t)RSTRING_LEN(source);
        return (const uint8_t *)RSTRING_PTR(source);
    }
    wb_bbuf *b = RTYPEDDATA_DATA(source);
    *len = b->len;
    return wb_bbuf_bytes(b);
}

static VALUE load_step(const wb_brec_step *step, const uint8_t *seg, int big)
{
    if (step->kind == WB_BREC_BITS) return ULL2NUM(wb_bbuf_get_bits(seg, step->at, (unsigned)step->width));
    uint64_t v = wb_bbuf_load(seg + step->at, step->width, big);
    if (step->kind == WB_BREC_FLOAT) {
        if (step->width == 4) {
            uint32_t u = (uint32_t)v;
            float f;
            memcpy(&f, &u, 4);
            return DBL2NUM(f);
        }
        double d;
        memcpy(&d, &v, 8);
        return DBL2NUM(d);
    }
    if (step->is_signed) return LL2NUM(wb_bbuf_signed(v, step->width));
    return step->width < 8 ? LONG2FIX((long)v) : ULL2NUM(v);
}

/* Codec#decode */
VALUE wb_brec_decode(const wb_brec_plan *plan, VALUE source, size_t pos, VALUE into)
{
    VALUE tmp;
    VALUE *values = ALLOCV_N(VALUE, tmp, plan->nattrs);
    long i, s;
    size_t len;
    VALUE view = Qnil; /* a String source is read through a view for its payloads */
    for (i = 0; i < plan->nattrs; i++) values[i] = Qnil;
    for (s = 0; s < plan->nsegments; s++) {
        const wb_brec_segment *seg = &plan->segments[s];
        const uint8_t *p = source_bytes(source, &len);
        if (!seg->payload) {
            if (pos > len || len - pos < seg->size) goto decline;
            for (i = seg->first; i < seg->first + seg->count; i++) {
                p = source_bytes(source, &len); /* the last value may have allocated */
                values[plan->steps[i].index] = load_step(&plan->steps[i], p + pos, plan->big);
            }
            pos += seg->size;
        } else {
            const wb_brec_step *step = &plan->steps[seg->first];
            size_t n;
            if (step->length_kind == WB_BREC_LENGTH_FIELD) {
                VALUE v = values[plan->steps[step->length].index];
                if (!FIXNUM_P(v)) goto decline; /* > 2**62 bytes: truncated anyway */
                n = (size_t)FIX2LONG(v);
            } else if (step->length_kind == WB_BREC_LENGTH_FIXED) {
                n = (size_t)step->length;
            } else {
                n = pos > len ? 0 : len - pos;
            }
            if (pos > len || len - pos < n) goto decline;
            if (RB_TYPE_P(source, T_STRING)) {
                if (NIL_P(view)) view = wb_bbuf_view_of_string(source, 0, len, plan->big);
                values[step->index] = wb_bbuf_slice(view, pos, n);
            } else {
                values[step->index] = wb_bbuf_slice(source, pos, n);
            }
            pos += n;
        }
    }
    if (!NIL_P(into)) { /* only the layout's attributes change */
        for (i = 0; i < plan->nsteps; i++) rb_ivar_set(into, plan->steps[i].ivar, values[plan->steps[i].index]);
        ALLOCV_END(tmp);
        RB_GC_GUARD(view);
        return into;
    }
    VALUE record = rb_obj_alloc(plan->model);
    for (i = 0; i < plan->nattrs; i++) {
        VALUE v = values[i];
        if (NIL_P(v) && plan->attr_list[i]) v = rb_ary_new();
        rb_ivar_set(record, plan->attr_ivars[i], v);
    }
    ALLOCV_END(tmp);
    RB_GC_GUARD(view);
    return record;
decline:
    ALLOCV_END(tmp);
    return Qundef;
}

/* Codec#int / #bits: v's bits if it fits, else 0 with *ok cleared. */
static uint64_t int_value(VALUE v, int width_bits, int is_signed, int *ok)
{
    if (FIXNUM_P(v)) {
        long l = FIX2LONG(v);
        if (is_signed) {
            if (width_bits < 64) {
                long lim = 1L << (width_bits - 1);
                if (l < -lim || l >= lim) {
                    *ok = 0;
                    return 0;
                }
            }
            return (uint64_t)l;
        }
        if (l < 0 || (width_bits < 64 && ((unsigned long)l >> width_bits))) {
            *ok = 0;
            return 0;
        }
        return (uint64_t)l;
    }
    if (RB_TYPE_P(v, T_BIGNUM) && width_bits == 64) {
        uint64_t u = 0;
        if (is_signed) {
            int r = rb_integer_pack(v, &u, 1, 8, 0, INTEGER_PACK_LSWORD_FIRST | INTEGER_PACK_NATIVE_BYTE_ORDER | INTEGER_PACK_2COMP);
            if (r == 2 || r == -2 || (r > 0) != ((int64_t)u >= 0)) {
                *ok = 0;
                return 0;
            }
            return u;
        }
        int r = rb_integer_pack(v, &u, 1, 8, 0, INTEGER_PACK_LSWORD_FIRST | INTEGER_PACK_NATIVE_BYTE_ORDER);
        if (r != 1) {
            *ok = 0;
            return 0;
        }
        return u;
    }
    *ok = 0;
    return 0;
}

static size_t payload_length(VALUE v)
{
    if (NIL_P(v)) return 0;
    if (RB_TYPE_P(v, T_STRING)) return (size_t)RSTRING_LEN(v);
    return ((wb_bbuf *)RTYPEDDATA_DATA(v))->len;
}

/* Codec#encode */
VALUE wb_brec_encode(const wb_brec_plan *plan, VALUE record, VALUE into)
{
    VALUE tmp;
    long n = plan->nsteps, i, s;
    VALUE *values = ALLOCV_N(VALUE, tmp, n);
    uint64_t *bits = ALLOCA_N(uint64_t, n > 64 ? 1 : n); /* small layouts; else below */
    uint64_t *heap_bits = NULL;
    int ok = 1;
    size_t payloads = 0;
    if (n > 64) bits = heap_bits = ruby_xmalloc2((size_t)n, sizeof(uint64_t));
    for (i = 0; i < n; i++) values[i] = rb_ivar_get(record, plan->steps[i].ivar);
    /* payloads first: they give nil length fields their value */
    for (i = 0; i < n && ok; i++) {
        const wb_brec_step *step = &plan->steps[i];
        if (step->kind != WB_BREC_PAYLOAD) continue;
        VALUE v = values[i];
        if (!NIL_P(v) && !RB_TYPE_P(v, T_STRING) && !wb_bbuf_p(v)) {
            ok = 0;
            break;
        }
        size_t len = payload_length(v);
        if (step->length_kind == WB_BREC_LENGTH_FIELD) {
            VALUE lv = values[step->length];
            if (NIL_P(lv))
                values[step->length] = SIZET2NUM(len);
            else if (!FIXNUM_P(lv) || (size_t)FIX2LONG(lv) != len || FIX2LONG(lv) < 0)
                ok = 0;
        } else if (step->length_kind == WB_BREC_LENGTH_FIXED && (size_t)step->length != len) {
            ok = 0;
        }
        payloads += len;
    }
    for (i = 0; i < n && ok; i++) {
        const wb_brec_step *step = &plan->steps[i];
        VALUE v = values[i];
        switch (step->kind) {
        case WB_BREC_INT: bits[i] = int_value(v, step->width * 8, step->is_signed, &ok); break;
        case WB_BREC_BITS: bits[i] = int_value(v, step->width, 0, &ok); break;
        case WB_BREC_FLOAT:
            if (RB_FLOAT_TYPE_P(v) || RB_INTEGER_TYPE_P(v)) {
                double d = NUM2DBL(v);
                if (step->width == 4) {
                    float f = (float)d;
                    uint32_t u;
                    memcpy(&u, &f, 4);
                    bits[i] = u;
                } else {
                    memcpy(&bits[i], &d, 8);
                }
            } else {
                ok = 0;
            }
            break;
        default: break;
        }
    }
    if (!ok) {
        ruby_xfree(heap_bits);
        ALLOCV_END(tmp);
        return Qundef;
    }
    wb_bbuf *buf = wb_bbuf_get(into);
    if (buf->read_only || RB_OBJ_FROZEN(into)) {
        ruby_xfree(heap_bits);
        ALLOCV_END(tmp);
        return Qundef;
    }
    /* the bytes of fixed segments, bit groups included */
    size_t fixed = 0;
    for (s = 0; s < plan->nsegments; s++)
        if (!plan->segments[s].payload) fixed += plan->segments[s].size;
    uint8_t *out = wb_bbuf_reserve(into, buf, fixed + payloads); /* may run the GC */
    memset(out, 0, fixed + payloads);
    for (s = 0; s < plan->nsegments; s++) {
        const wb_brec_segment *seg = &plan->segments[s];
        if (!seg->payload) {
            for (i = seg->first; i < seg->first + seg->count; i++) {
                const wb_brec_step *step = &plan->steps[i];
                if (step->kind == WB_BREC_BITS)
                    wb_bbuf_set_bits(out, step->at, (unsigned)step->width, bits[i]);
                else
                    wb_bbuf_store(out + step->at, step->width, plan->big, bits[i]);
            }
            out += seg->size;
        } else {
            VALUE v = values[seg->first];
            size_t len = payload_length(v);
            if (len) {
                const uint8_t *src = RB_TYPE_P(v, T_STRING) ? (const uint8_t *)RSTRING_PTR(v) : wb_bbuf_bytes(RTYPEDDATA_DATA(v));
                memmove(out, src, len);
            }
            out += len;
        }
    }
    buf->len += fixed + payloads;
    ruby_xfree(heap_bits);
    ALLOCV_END(tmp);
    return into;
}
