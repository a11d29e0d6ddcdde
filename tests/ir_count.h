/* What a test counts in a kernel's IR: the ops of one kind, nested bodies included. */
#ifndef CUTEC_TESTS_IR_COUNT_H
#define CUTEC_TESTS_IR_COUNT_H

#include "cutec/ir.h"

static inline int ir_count_ops(const cute_ir_block *blk, cute_op op)
{
    int n = 0;
    for (uint32_t i = 0; i < blk->n; i++) {
        n += blk->inst[i].op == op;
        for (int k = 0; k < 2; k++)
            if (blk->inst[i].body[k]) n += ir_count_ops(blk->inst[i].body[k], op);
    }
    return n;
}

#endif
