/* Internal: what the IR layer's files share. */
#ifndef CUTEC_IR_INTERNAL_H
#define CUTEC_IR_INTERNAL_H

#include "cutec/ir.h"

/* "verify F: file:line: OP: msg" into err (in NULL: the function itself) */
void ir_verify_message(char *err, size_t n, const cute_ir_func *f, const cute_ir_inst *in, const char *msg);

/* The wgmma ordering rules (ir_verify_wgmma.c) over a function that verified otherwise: 0,
 * or CUTE_IR_VERIFY_MISUSE with the message in err. */
int ir_verify_wgmma(const cute_ir_func *f, char *err, size_t n);

#endif
