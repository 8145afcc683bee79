/* The sweeps of btom_ext.planners.value_iteration over one chunk of ELOT_VI_CHUNK columns,
 * written with GCC/Clang vector types so that each row's columns are added and compared
 * a vector at a time (the compiler left the Cython loop scalar).
 *
 * Every column's arithmetic is the scalar loop's, in the same order: acc = r, then
 * acc += (gamma * p[k]) * V[idx[k]] for each successor k in order, and V(s) the largest Q
 * over the actions in order (a later action replaces the best so far only when greater),
 * each an IEEE multiply, add or comparison of one lane: the same bits whatever the vector
 * width. The extension is built with -ffp-contract=off, so no multiply and add are fused.
 *
 * Two widths: two doubles (SSE2 on x86-64, NEON elsewhere: every 64-bit target) and, on
 * x86-64 processors that have AVX2, four (compiled for that target only and chosen at run
 * time, so the module still runs on any x86-64). */

#ifndef ELOT_VALUE_ITERATION_H
#define ELOT_VALUE_ITERATION_H

#include <stdint.h>
#include <string.h>

#define ELOT_VI_CHUNK 8

typedef double elot_v2 __attribute__((vector_size(16), aligned(8), may_alias));
typedef long long elot_m2 __attribute__((vector_size(16), aligned(8), may_alias));

/* lanes of a greater than b from a, the rest from b: `b = a if a > b else b` per lane */
#define ELOT_VI_MAX(VEC, MASK, a, b) \
    ((VEC)(((MASK)(a) & (MASK)((a) > (b))) | ((MASK)(b) & ~(MASK)((a) > (b)))))

/* The sweeps of one chunk: rewards rb[n_rewards][CHUNK] (row i's are rb[rrows[i]]), value
 * tables vold and vnew [n_states][CHUNK] (vold zero), the last sweep's Q into qb[n_rows][CHUNK]. */
#define ELOT_VI_SWEEPS(NAME, ATTRIBUTES, VEC, MASK, LANES)                                          \
ATTRIBUTES static void NAME(const long long *ptr, const int *idx, const double *p,                \
                            const double *rb, const int *rrows, long long n_states,               \
                            int n_actions, double gamma, int sweeps, double *vold, double *vnew,    \
                            double *qb)                                                             \
{                                                                                                   \
    enum { NV = ELOT_VI_CHUNK / LANES };                                                            \
    double *old = vold, *new_ = vnew, *swap;                                                        \
    for (int sweep = 0; sweep < sweeps; sweep++) {                                                  \
        const int last = sweep + 1 == sweeps;                                                       \
        for (int64_t s = 0; s < n_states; s++) {                                                    \
            VEC best[NV] = {0};                                                                     \
            for (int a = 0; a < n_actions; a++) {                                                   \
                const int64_t row = s * n_actions + a;                                              \
                const VEC *reward = (const VEC *)(rb + (int64_t)rrows[row] * ELOT_VI_CHUNK);        \
                VEC acc[NV];                                                                        \
                for (int j = 0; j < NV; j++)                                                        \
                    acc[j] = reward[j];                                                             \
                for (int64_t k = ptr[row]; k < ptr[row + 1]; k++) {                                 \
                    const double scale = gamma * p[k];                                              \
                    const VEC *value = (const VEC *)(old + (int64_t)idx[k] * ELOT_VI_CHUNK);        \
                    for (int j = 0; j < NV; j++)                                                    \
                        acc[j] += scale * value[j];                                                 \
                }                                                                                   \
                if (last) {                                                                         \
                    VEC *out = (VEC *)(qb + row * ELOT_VI_CHUNK);                                   \
                    for (int j = 0; j < NV; j++)                                                    \
                        out[j] = acc[j];                                                            \
                } else if (a == 0) {                                                                \
                    for (int j = 0; j < NV; j++)                                                    \
                        best[j] = acc[j];                                                           \
                } else {                                                                            \
                    for (int j = 0; j < NV; j++)                                                    \
                        best[j] = ELOT_VI_MAX(VEC, MASK, acc[j], best[j]);                          \
                }                                                                                   \
            }                                                                                       \
            if (!last) {                                                                            \
                VEC *out = (VEC *)(new_ + s * ELOT_VI_CHUNK);                                       \
                for (int j = 0; j < NV; j++)                                                        \
                    out[j] = best[j];                                                               \
            }                                                                                       \
        }                                                                                           \
        swap = old;                                                                                 \
        old = new_;                                                                                 \
        new_ = swap;                                                                                \
    }                                                                                               \
}

ELOT_VI_SWEEPS(elot_vi_sweeps_2, , elot_v2, elot_m2, 2)

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define ELOT_VI_WIDE 1
typedef double elot_v4 __attribute__((vector_size(32), aligned(8), may_alias));
typedef long long elot_m4 __attribute__((vector_size(32), aligned(8), may_alias));
ELOT_VI_SWEEPS(elot_vi_sweeps_4, __attribute__((target("avx2"))), elot_v4, elot_m4, 4)
#endif

/* The widest kernel this processor runs: 4 lanes where AVX2 is there, else 2. */
static int elot_vi_widest(void)
{
#ifdef ELOT_VI_WIDE
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2"))
        return 4;
#endif
    return 2;
}

/* The chunk's sweeps on ``lanes`` lanes (4 only where elot_vi_widest() says so). */
static void elot_vi_sweeps(int lanes, const long long *ptr, const int *idx, const double *p,
                           const double *rb, const int *rrows, long long n_states, int n_actions,
                           double gamma, int sweeps, double *vold, double *vnew, double *qb)
{
#ifdef ELOT_VI_WIDE
    if (lanes == 4) {
        elot_vi_sweeps_4(ptr, idx, p, rb, rrows, n_states, n_actions, gamma, sweeps, vold, vnew, qb);
        return;
    }
#endif
    elot_vi_sweeps_2(ptr, idx, p, rb, rrows, n_states, n_actions, gamma, sweeps, vold, vnew, qb);
}

#endif
