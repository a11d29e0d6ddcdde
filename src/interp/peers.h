/* A group of emulated devices running together (peers.c, launch.c's group launch). */
#ifndef CUTEC_INTERP_PEERS_H
#define CUTEC_INTERP_PEERS_H

#include "interp/interp_internal.h"

/* the shadow of one byte of a group's buffer: its last plain writer */
typedef struct ipshadow {
    uint32_t gw;    /* the writer's group warp + 1 (0: nobody of the group wrote it) */
    uint32_t stamp; /* the writer's group interval then */
    uint32_t inst;  /* the store's instruction */
    uint16_t tid;   /* the writer's thread in its block */
} ipshadow;

typedef struct ipbuf {
    uint64_t base, bytes, id;
    const char *param;
    ipshadow *sh; /* per byte (NULL: not shadowed) */
} ipbuf;

/* a flag some warp released (st.release.sys): the group clocks its releases carried */
typedef struct iflag {
    uint64_t addr;
    uint32_t *gvc; /* per warp of the group */
    uint32_t gw;   /* its last releaser + 1 */
    const dinst *site;
} iflag;

typedef struct igroup {
    int nranks;
    ilaunch **L;         /* per rank (the same kernel and grid for every rank) */
    uint32_t nwarps;     /* per block */
    uint32_t rank_warps; /* per rank */
    uint32_t warps;      /* of the whole group */
    uint32_t epoch;      /* group intervals */
    ipbuf *bufs;         /* every rank's launch buffers, by base */
    int nbufs;
    bool shadowed;       /* the buffers were small enough to shadow (the race check) */
    iflag *flags;
    int nflags, cflags;
} igroup;

igroup *interp_group_new(int nranks, ilaunch **L, uint32_t nwarps);
void interp_group_free(igroup *G);

#endif
