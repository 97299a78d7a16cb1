/* gst-cuda-imaging: copies of a hot function for CPU features that x86-64
 * builds for any CPU may not assume (GCC picks one at load time through an
 * ifunc). Each use gives the same results either way: a popcount is a
 * popcount, fmaf () is exactly rounded as a libm call or an instruction.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#define CI_CLONES(feature) __attribute__ ((target_clones (feature, "default")))
#else
#define CI_CLONES(feature)
#endif

/* for fmaf (): without the instruction it is a libm call; flatten puts the
 * callees' fmaf () into the copy too */
#define CI_FMA_CLONES CI_CLONES ("fma") __attribute__ ((flatten))
