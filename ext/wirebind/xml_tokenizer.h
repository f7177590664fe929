/* The XML tokenizer engine: XML 1.0 (fifth edition) + Namespaces in XML 1.0
 * well-formedness over byte buffers, reporting what it reads through a small
 * callback interface (wb_xtok_handler). It holds no Ruby objects: input arrives
 * through handler->read, errors leave through handler->error (which must not
 * return), and everything it allocates hangs off the wb_xtok, so a
 * non-local exit out of a callback leaks nothing once wb_xtok_free runs.
 *
 * It is a C port of lib/wirebind/xml/pure/tokenizer.rb, the reference: the same
 * tokens in the same order, the same errors at the same positions, for a
 * document without a DOCTYPE (meeting one, it stops and says so, see wb_xtok_run).
 *
 * Buffers: the tokenizer reads straight from the current chunk (no copy); only
 * the unread tail of a token that straddles two chunks is copied into its own
 * growable buffer, followed by as much of the next chunk as the token needs.
 * Element nesting is an explicit stack: no recursion on document depth. */
#ifndef WIREBIND_XML_TOKENIZER_H
#define WIREBIND_XML_TOKENIZER_H

#include <stddef.h>
#include <stdint.h>

/* Error kinds handed to handler->error. WB_XTOK_TRUNCATED is a parse error
 * found because the input ended (inside a token or an open element). */
enum { WB_XTOK_PARSE_ERROR = 0, WB_XTOK_LIMIT_ERROR = 1, WB_XTOK_NO_MEMORY = 2, WB_XTOK_TRUNCATED = 3 };

/* What wb_xtok_run returns. */
enum {
    WB_XTOK_DONE = 0,   /* the whole document was read and is well-formed */
    WB_XTOK_DOCTYPE = 1 /* a DOCTYPE was met in the prolog (and reject_dtd is off): see wb_xtok_read_so_far */
};

typedef struct wb_xtok_str {
    const char *ptr; /* NULL only for "no namespace" */
    size_t len;
} wb_xtok_str;

/* An attribute as reported: namespace declarations left out, prefix resolved. */
typedef struct wb_xtok_attr {
    wb_xtok_str local;
    wb_xtok_str uri; /* ptr == NULL: no namespace */
    wb_xtok_str value;
    wb_xtok_str qname; /* the name as written, prefix included */
} wb_xtok_attr;

typedef struct wb_xtok_handler {
    /* Next chunk of valid, LF-normalized UTF-8 text; returns 0 at the end of the input.
     * The bytes must stay valid until the next call. */
    int (*read)(void *ctx, const char **ptr, size_t *len);
    /* Raises; must not return. message is UTF-8, line/column 1-based (column in characters). */
    void (*error)(void *ctx, int kind, const char *message, size_t length, long line, long column, long long offset);
    /* An element that holds more than text starts. The pointers are valid during the call only. */
    void (*on_start)(void *ctx, wb_xtok_str local, wb_xtok_str uri, const wb_xtok_attr *attrs, size_t count);
    /* An element holding only text (possibly empty), seen whole. */
    void (*on_leaf)(void *ctx, wb_xtok_str local, wb_xtok_str uri, const wb_xtok_attr *attrs, size_t count, wb_xtok_str text);
    /* Character data of the current element; only while want_text is set. */
    void (*on_text)(void *ctx, const char *ptr, size_t len);
    /* The current element ends (its name is still on the stack, its namespace
     * declarations still in force). */
    void (*on_end)(void *ctx);
} wb_xtok_handler;

typedef struct wb_xtok_bytes {
    char *ptr;
    size_t len;
    size_t cap;
} wb_xtok_bytes;

/* A raw attribute of the start tag being read: offsets into the window, or
 * (scratch) into the normalized-values buffer. */
typedef struct wb_xtok_raw {
    size_t name, name_len;
    size_t value, value_len;
    int scratch;
    size_t prefix_end; /* wb_xtok_prefix_end of the name if the fast path found it, else (size_t)-1 */
} wb_xtok_raw;

typedef struct wb_xtok_ns {
    size_t prefix, prefix_len; /* offsets into ns_bytes */
    size_t uri, uri_len;
    int none;        /* xmlns="": no default namespace */
    size_t shadowed; /* the binding of the same prefix this one hides, or (size_t)-1 */
    uint64_t hash;   /* keyed hash of the prefix (not for the default namespace) */
} wb_xtok_ns;

typedef struct wb_xtok_name {
    size_t off, len; /* the qualified name, in name_bytes */
    size_t ns_count; /* bindings in force before this element's own */
    size_t ns_bytes;
} wb_xtok_name;

/* A remembered token position (decoders report errors found at an element's end
 * at its start). Resolved to line/column before the text under it is let go. */
typedef struct wb_xtok_mark {
    long long abs;
    long line, column;
    int resolved;
} wb_xtok_mark;

/* Limits and the hash key, fixed for a run. */
typedef struct wb_xtok_config {
    size_t max_depth;      /* deepest element nesting */
    size_t max_token_size; /* largest single token, in bytes */
    size_t max_attributes; /* most attributes in one start tag, namespace declarations included */
    size_t max_namespaces; /* most namespace declarations in scope at once */
    int reject_dtd;
    /* Key of the hash (SipHash-1-3) of attribute names and namespace prefixes, so
     * that names crafted to collide cannot make a tag quadratic: random per
     * process (the binding draws it once, at load). */
    uint64_t hash_key[2];
} wb_xtok_config;

typedef struct wb_xtok {
    const wb_xtok_handler *h;
    void *ctx;
    size_t max_depth;
    size_t max_token_size;
    size_t max_attributes;
    size_t max_namespaces;
    int reject_dtd;
    uint64_t hash_key[2];

    /* Set by the handler: whether character data of the current element is wanted. */
    int want_text;

    /* The window: buf[0, len) is readable, pos the cursor. Either the current chunk
     * (from chunk offset win_off) or own.ptr. */
    const char *buf;
    size_t len;
    size_t pos;
    int owned;
    size_t win_off; /* direct window: offset of buf[0] in the chunk */
    wb_xtok_bytes own;
    const char *chunk; /* the current chunk, as handler->read gave it */
    size_t chunk_len;
    size_t chunk_used; /* owned window: bytes of the chunk already appended */
    int eof;
    int prolog; /* before the root element: nothing read is let go */

    /* Position of buf[0] in the document. */
    long long base_offset;
    long base_line;   /* newlines before buf[0] */
    long base_column; /* characters on the line before buf[0] */

    long long tok; /* absolute offset of the current token's start */

    /* Open elements. */
    wb_xtok_bytes name_bytes;
    wb_xtok_name *names;
    size_t depth, names_cap;

    /* Namespace bindings in force, innermost last (ns[0] binds xml). A prefix is
     * looked up in ns_slots, an open-addressing table (linear probing, keyed
     * hash) of binding index + 1 for the innermost binding of each prefix bound,
     * so that a lookup costs the same whatever the number in scope; the default
     * namespace's innermost binding is ns_default. Undone binding by binding at
     * end tags (each binding remembers the one it shadowed). */
    wb_xtok_bytes ns_bytes;
    wb_xtok_ns *ns;
    size_t ns_count, ns_cap;
    size_t *ns_slots;
    size_t ns_slots_cap, ns_slots_used;
    size_t ns_default;
    /* Bumped whenever a binding comes or goes (never 0, never reused within a
     * run): a prefix resolves the same way while it stays the same. */
    uint64_t ns_generation;
    /* The last few prefixes resolved (ns_lookup), valid for ns_generation. */
    struct {
        uint64_t generation;
        size_t index;
    } ns_memo[4];

    /* The start tag being read. */
    wb_xtok_raw *raw;
    size_t raw_count, raw_cap;
    wb_xtok_attr *attrs;
    size_t attrs_cap;
    wb_xtok_bytes values; /* normalized attribute values */
    uint32_t *seen;       /* hash set for duplicate checks of long attribute lists */
    size_t seen_cap;

    wb_xtok_mark *marks;
    size_t mark_count, marks_cap;

    wb_xtok_bytes message;

    /* The start tag being reported (valid during on_start and on_leaf): its
     * name as written, and the bindings in force before its own declarations
     * (its own are ns[tag_ns, ns_count)). */
    wb_xtok_str tag_qname;
    size_t tag_ns;
} wb_xtok;

/* Sets up a tokenizer (config is copied); nothing is allocated until it runs. */
void wb_xtok_init(wb_xtok *t, const wb_xtok_handler *h, void *ctx, const wb_xtok_config *config);
/* Frees everything the tokenizer allocated; idempotent. */
void wb_xtok_free(wb_xtok *t);
/* Bytes held, for memsize. */
size_t wb_xtok_memsize(const wb_xtok *t);

/* Reads the whole document. Returns WB_XTOK_DONE, or WB_XTOK_DOCTYPE (see wb_xtok_read_so_far). */
int wb_xtok_run(wb_xtok *t);

/* After WB_XTOK_DOCTYPE: every byte read since the start of the document. */
void wb_xtok_read_so_far(const wb_xtok *t, const char **ptr, size_t *len);

/* Open elements: how many, and the qualified name of the i-th (0 = the root). */
size_t wb_xtok_depth(const wb_xtok *t);
wb_xtok_str wb_xtok_name_at(const wb_xtok *t, size_t i);
/* The namespace a prefix ("" for the default) is bound to where the parser is
 * (during on_leaf, with the leaf's own declarations); {NULL, 0} when unbound. */
wb_xtok_str wb_xtok_namespace_of(wb_xtok *t, const char *prefix, size_t len);
/* Changes whenever the bindings in force change (and only then): what a
 * decoder remembers about a prefixed name holds while it stays the same. */
uint64_t wb_xtok_namespace_generation(const wb_xtok *t);
/* The i-th namespace binding in force (0 binds xml; ns_count of them, innermost
 * last): its prefix ("" for the default) and URI (ptr NULL for xmlns=""). */
void wb_xtok_binding_at(const wb_xtok *t, size_t i, wb_xtok_str *prefix, wb_xtok_str *uri);
/* How many bindings are in force. */
size_t wb_xtok_binding_count(const wb_xtok *t);
/* The index just past a name's prefix colon, or 0 when it has no proper prefix
 * (names such as ":", "a:" and "a:b:c" are not qualified names: the tokenizer
 * refuses them in element and attribute names). */
size_t wb_xtok_prefix_end(const char *name, size_t len);

/* Line and column of the current token (its first non-blank character). */
void wb_xtok_token_position(wb_xtok *t, long *line, long *column);
/* Remembers the current token's position; returns its index (marks are a stack). */
size_t wb_xtok_mark_push(wb_xtok *t);
void wb_xtok_mark_pop(wb_xtok *t);
void wb_xtok_mark_position(wb_xtok *t, size_t mark, long *line, long *column);

#endif
