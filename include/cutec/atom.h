/* cutec/atom.h — kept so that programs written against cutec 0.1.0-dev still build: MMA
 * atoms and TiledMMA are in cutec/mma.h, the traits every atom shares in cutec/atom_traits.h,
 * copy atoms and TiledCopy in cutec/copy.h.  New code includes those. */
#ifndef CUTEC_ATOM_H
#define CUTEC_ATOM_H
#include "cutec/mma.h"
#endif
