/* cutec/int.h — the integers of the layout algebra, and the algebra's context.
 *
 * A cute_int is either STATIC (its value is known at trace time and all arithmetic on it
 * folds) or DYNAMIC (known only at launch: an opaque handle owned by an arithmetic backend,
 * plus a known divisor).  A third form, '_', stands for "all of this mode" in coordinates and
 * tilers.  The algebra never looks inside a dynamic handle: it asks the backend (cute_arith)
 * to build new values and to decide facts about them.  The symbolic backend (symbolic.h)
 * implements it with named symbols; the tracer implements it by emitting IR.
 */
#ifndef CUTEC_INT_H
#define CUTEC_INT_H

#include "cutec/api.h"
CUTE_API_BEGIN

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct cute_int {
    int64_t v;   /* static: the value.  dynamic: the backend's handle. */
    int64_t div; /* 0: static.  > 0: dynamic, a known positive divisor.  -1: '_'. */
} cute_int;

#define CUTE_UNDERSCORE_DIV (-1)

static inline cute_int cute_i(int64_t v) { return (cute_int){v, 0}; }
static inline cute_int cute_underscore(void) { return (cute_int){0, CUTE_UNDERSCORE_DIV}; }
static inline bool cute_is_static(cute_int x) { return x.div == 0; }
static inline bool cute_is_dynamic(cute_int x) { return x.div > 0; }
static inline bool cute_is_underscore(cute_int x) { return x.div == CUTE_UNDERSCORE_DIV; }
/* true only for a static int equal to v */
static inline bool cute_is_const(cute_int x, int64_t v) { return x.div == 0 && x.v == v; }

/* Three-valued answers to questions about possibly dynamic values. */
typedef enum { CUTE_FALSE = 0, CUTE_TRUE = 1, CUTE_UNKNOWN = 2 } cute_truth;

typedef enum {
    CUTE_IADD,     /* a + b */
    CUTE_ISUB,     /* a - b */
    CUTE_IMUL,     /* a * b */
    CUTE_IDIV,     /* a / b, truncating toward zero (C semantics); b != 0 */
    CUTE_ICEILDIV, /* ceil(a / b) for a >= 0, b > 0 */
    CUTE_IMOD,     /* a % b, C semantics */
    CUTE_IMIN,
    CUTE_IMAX,
    CUTE_IABS, /* |a|, b ignored */
    CUTE_ISGN, /* -1, 0 or 1, b ignored */
    CUTE_IXOR, /* bitwise, for swizzles */
    CUTE_IAND,
    CUTE_ISHL, /* a << b, 0 <= b < 63, no overflow */
    CUTE_ISHR, /* a >> b, arithmetic */
} cute_int_op;

typedef enum {
    CUTE_CMP_EQ,      /* a == b */
    CUTE_CMP_LT,      /* a < b */
    CUTE_CMP_DIVIDES, /* a divides b (a != 0 and b % a == 0) */
} cute_cmp;

/* An arithmetic backend for dynamic integers.  Every call receives at least one dynamic
 * operand.  `make` returns a fresh dynamic value (a launch-time unknown) with a divisor;
 * `compute` returns a dynamic int (or a static one when it can fold, e.g. x - x);
 * `decide` answers only what it can prove.  A backend that cannot compute returns
 * div == 0 with v == 0 from compute after calling cute_alg_fail itself. */
typedef struct cute_arith {
    void *self;
    cute_int (*make)(void *self, int64_t div, const char *name);
    cute_int (*compute)(void *self, cute_int_op op, cute_int a, cute_int b);
    cute_truth (*decide)(void *self, cute_cmp cmp, cute_int a, cute_int b);
    /* write a readable form of a dynamic value (for diagnostics); may be NULL */
    int (*describe)(void *self, cute_int a, char *buf, size_t n);
    /* the constant term k of a dynamic value a = rest + k, rest's terms all dynamic (0 when
     * a has none, or the backend cannot tell); may be NULL */
    int64_t (*constant)(void *self, cute_int a);
} cute_arith;

/* A call site: the user's file:line, for diagnostics. */
typedef struct cute_site {
    const char *file;
    int line;
} cute_site;

/* The algebra's context: which backend computes dynamic values, and the error state.
 * Every algebra call takes one.  After the first error, c->failed is set, c->error holds
 * the message, and every later call returns a poison value without doing anything. */
typedef struct cute_alg {
    const cute_arith *arith; /* NULL: only static integers are allowed */
    bool failed;
    char error[1024];
    /* decisions whose answer could not be proven, where a conservative choice was taken
     * (e.g. coalesce keeping two dynamic modes apart); the result is still exact as a
     * function.  Tests read it; users may ignore it. */
    unsigned undecided;
    /* preconditions that could not be proven and were assumed, as CuTe assumes them for
     * dynamic integers (e.g. composition's divisibility conditions): the result is right
     * whenever they hold at launch */
    unsigned assumed;
    /* called once per error with the message; may be NULL */
    void (*on_error)(void *user, const char *message);
    void *user;
    /* the call site of the operation running now (the site macros of trace.h set it; on_error
     * reads it), and how many sited calls are in progress, nested in each other's arguments */
    cute_site site;
    int site_depth;
} cute_alg;

/* For the site macros: a call made at file:line begins (enter) and ends (leave).  The site
 * is that of the innermost call in progress: a call whose arguments contain other calls is
 * reported at its own line once they have returned; after the outermost call returns, its
 * site stays (for what follows without a site of its own). */
typedef struct cute_site_scope {
    cute_alg *a;
    cute_site prev;
} cute_site_scope;
cute_site_scope cute__site_enter(cute_alg *a, const char *file, int line);
void cute__site_leave(cute_site_scope *s);
/* set the site (no nesting): for compilers without the macros' statement expressions */
void cute_alg_site(cute_alg *a, const char *file, int line);

void cute_alg_init(cute_alg *c, const cute_arith *arith);
/* forget a previous error so the context can be used again */
void cute_alg_clear(cute_alg *c);
/* A question put to the algebra that must leave no trace (can this tensor be read 16 bytes
 * at a time?): begin saves the counters; end restores them and clears an error the trial
 * raised, and says whether the trial went through with nothing failed or assumed.
 * @pre the context has not failed before the trial. */
typedef struct cute_alg_trial {
    unsigned undecided, assumed;
} cute_alg_trial;
void cute_alg_trial_begin(cute_alg *c, cute_alg_trial *t);
bool cute_alg_trial_end(cute_alg *c, const cute_alg_trial *t);
/* record an error (the first one wins); printf-like.  Always returns false. */
bool cute_alg_fail(cute_alg *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A fresh dynamic integer with a known divisor (>= 1).  Needs a backend. */
cute_int cute_int_dynamic(cute_alg *c, int64_t div, const char *name);

/* Arithmetic: folds when every operand is static (failing on 64-bit overflow or division by
 * zero), else asks the backend.  On error the result is cute_i(0) and c->failed is set. */
cute_int cute_int_op2(cute_alg *c, cute_int_op op, cute_int a, cute_int b);
/* x's constant term: x itself when static, else what the backend sees of it (0: none) */
int64_t cute_int_constant_term(cute_alg *c, cute_int x);
static inline cute_int cute_add(cute_alg *c, cute_int a, cute_int b) { return cute_int_op2(c, CUTE_IADD, a, b); }
static inline cute_int cute_sub(cute_alg *c, cute_int a, cute_int b) { return cute_int_op2(c, CUTE_ISUB, a, b); }
static inline cute_int cute_mul(cute_alg *c, cute_int a, cute_int b) { return cute_int_op2(c, CUTE_IMUL, a, b); }
static inline cute_int cute_div(cute_alg *c, cute_int a, cute_int b) { return cute_int_op2(c, CUTE_IDIV, a, b); }
static inline cute_int cute_ceil_div(cute_alg *c, cute_int a, cute_int b) { return cute_int_op2(c, CUTE_ICEILDIV, a, b); }
static inline cute_int cute_mod(cute_alg *c, cute_int a, cute_int b) { return cute_int_op2(c, CUTE_IMOD, a, b); }
static inline cute_int cute_min(cute_alg *c, cute_int a, cute_int b) { return cute_int_op2(c, CUTE_IMIN, a, b); }
static inline cute_int cute_max(cute_alg *c, cute_int a, cute_int b) { return cute_int_op2(c, CUTE_IMAX, a, b); }
static inline cute_int cute_abs(cute_alg *c, cute_int a) { return cute_int_op2(c, CUTE_IABS, a, cute_i(0)); }
static inline cute_int cute_sgn(cute_alg *c, cute_int a) { return cute_int_op2(c, CUTE_ISGN, a, cute_i(0)); }

/* One operation on values, with no backend: false (and *why, e.g. "division by zero",
 * "overflows 64 bits") where op has no int64 result.  The one definition of each op's
 * value, shared by constant folding, the symbolic backend and the JIT's launch program. */
bool cute_int_apply(cute_int_op op, int64_t a, int64_t b, int64_t *out, const char **why);
const char *cute_int_op_name(cute_int_op op); /* "+", "ceil_div", ... */

/* Facts: decided on values when static, asked of the backend when dynamic. */
cute_truth cute_int_cmp(cute_alg *c, cute_cmp cmp, cute_int a, cute_int b);

/* A decision with a safe default: when the fact cannot be proven, count it in
 * c->undecided and return `otherwise`.  Used where either answer gives a correct layout
 * and the proven one gives the simpler layout. */
bool cute_decide_or(cute_alg *c, cute_truth t, bool otherwise);
/* A decision the algorithm cannot do without: unknown is an error naming `what`. */
bool cute_decide_required(cute_alg *c, cute_truth t, const char *op, const char *what);

/* Report a broken condition that was found on a form of dynamic values: when earlier
 * decisions in this context were taken without proof (c->undecided > 0) and `dynamic`,
 * the form may not be the one the launch-time values give, so the error says that the
 * condition cannot be decided at trace time, followed by the message.  Else as
 * cute_alg_fail.  Always returns false. */
bool cute_alg_fail_form(cute_alg *c, bool dynamic, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* A precondition CuTe checks only on static values: false when proven false, else true,
 * counting an unproven one in c->assumed. */
bool cute_assume(cute_alg *c, cute_truth t);

/* Write an int in notation: "4", "-2", "?", "?{div=16}", "_".  Returns the length. */
int cute_int_str(cute_int x, char *buf, size_t n);

CUTE_API_END
#endif
