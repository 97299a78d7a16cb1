/* Mixed-radix (2 to 16, 7-smooth) Stockham FFT for the fused bloom path:
 * the butterfly maths and index rules, shared by the shared-memory kernels
 * (kernels/fftbloom.cu) and a host check against a naive DFT
 * (tests/fftbloom/test_fft_host.cu).
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Stage with radix R after stages whose radices multiply to Ns (Govindaraju
 * et al., SC'08): butterfly j of n/R reads x[j + t n/R], t < R, multiplies
 * them by w^(t k) with k = j mod Ns and w = exp(dir 2 pi i / (Ns R)), takes a
 * DFT of size R and writes result t to (j / Ns) Ns R + k + t Ns. The output
 * of the last stage is in natural order. dir = -1 is cuFFT's forward sign. */
#pragma once

#include <cuda_runtime.h>
#include <math.h>
#include "cicuda.h"

#define CI_FFT_MAX_STAGES 12

/* unroll in device code; the host compiler does not know the pragma */
#ifdef __CUDA_ARCH__
#define CI_FFT_UNROLL _Pragma ("unroll")
#else
#define CI_FFT_UNROLL
#endif

/* Kernel arguments, all scalars: a struct with an array would be copied to
 * local memory once it is indexed by the stage number. */
struct CiFftPlan
{
  int n;
  int nst;
  unsigned long long code;      /* radix of stage s in bits 5s .. 5s + 4 */
  const float2 *tw;             /* kernels: ci_fft_stage_twiddles' table;
                                 * ci_fft_host: exp(-2 pi i m / n), m < n */
  int ntw;                      /* entries in the stage table */
};

CI_HD int
ci_fft_radix (const CiFftPlan & p, int s)
{
  return (int) ((p.code >> (5 * s)) & 31);
}

/* The radix of the next stage for a remaining size n: the largest that
 * divides it (fewest stages: each is one pass through shared memory);
 * 0 when n has a prime factor > 7. constexpr: the compile-time kernels
 * unroll the same factorisation. */
constexpr int
ci_fft_pick (int n)
{
  constexpr int radices[13] = { 16, 15, 14, 12, 10, 9, 8, 7, 6, 5, 4, 3, 2 };
  for (int i = 0; i < 13; i++)
    if (n % radices[i] == 0)
      return radices[i];
  return 0;
}

/* Radix of stage s of an n-point transform (0 past the last stage). */
constexpr int
ci_fft_stage_radix (int n, int s)
{
  for (int i = 0; i < s && n > 1; i++)
    n /= ci_fft_pick (n);
  return n > 1 ? ci_fft_pick (n) : 0;
}

static inline int
ci_fft_factor (int n, signed char *r)
{
  int k = 0;
  if (n < 2)
    return 0;
  while (n > 1 && k < CI_FFT_MAX_STAGES) {
    int R = ci_fft_pick (n);
    if (!R)
      return 0;
    r[k++] = (signed char) R;
    n /= R;
  }
  return n == 1 ? k : 0;
}

/* Fills p for size n (tw is set by the caller); 0 when n does not factor. */
static inline int
ci_fft_plan (CiFftPlan * p, int n)
{
  signed char r[CI_FFT_MAX_STAGES];
  p->n = n;
  p->nst = ci_fft_factor (n, r);
  p->code = 0;
  for (int s = 0; s < p->nst; s++)
    p->code |= (unsigned long long) r[s] << (5 * s);
  return p->nst;
}

CI_HD float2
ci_c (float x, float y)
{
  float2 v;
  v.x = x;
  v.y = y;
  return v;
}

CI_HD float2
ci_cadd (float2 a, float2 b)
{
  return ci_c (a.x + b.x, a.y + b.y);
}

CI_HD float2
ci_csub (float2 a, float2 b)
{
  return ci_c (a.x - b.x, a.y - b.y);
}

CI_HD float2
ci_cmul (float2 a, float2 b)
{
  return ci_c (a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}

/* x * (dir i) */
template <int DIR>
CI_HD float2
ci_rot (float2 x)
{
  return DIR < 0 ? ci_c (x.y, -x.x) : ci_c (-x.y, x.x);
}

template <int DIR>
CI_HD void
ci_dft4 (float2 & a0, float2 & a1, float2 & a2, float2 & a3)
{
  float2 t0 = ci_cadd (a0, a2), t1 = ci_csub (a0, a2);
  float2 t2 = ci_cadd (a1, a3), t3 = ci_rot<DIR> (ci_csub (a1, a3));
  a0 = ci_cadd (t0, t2);
  a2 = ci_csub (t0, t2);
  a1 = ci_cadd (t1, t3);
  a3 = ci_csub (t1, t3);
}

/* cos and sin of 2 pi j / N (j < N), folded to constants once unrolled */
template <int N> struct CiW;
template <> struct CiW<3>
{
  CI_HD static float c (int j)
  {
    constexpr float t[3] = { 1.000000000e+00f, -5.000000000e-01f, -5.000000000e-01f };
    return t[j];
  }
  CI_HD static float s (int j)
  {
    constexpr float t[3] = { 0.000000000e+00f, 8.660254038e-01f, -8.660254038e-01f };
    return t[j];
  }
};
template <> struct CiW<5>
{
  CI_HD static float c (int j)
  {
    constexpr float t[5] = { 1.000000000e+00f, 3.090169944e-01f, -8.090169944e-01f, -8.090169944e-01f, 3.090169944e-01f };
    return t[j];
  }
  CI_HD static float s (int j)
  {
    constexpr float t[5] = { 0.000000000e+00f, 9.510565163e-01f, 5.877852523e-01f, -5.877852523e-01f, -9.510565163e-01f };
    return t[j];
  }
};
template <> struct CiW<6>
{
  CI_HD static float c (int j)
  {
    constexpr float t[6] = { 1.000000000e+00f, 5.000000000e-01f, -5.000000000e-01f, -1.000000000e+00f, -5.000000000e-01f, 5.000000000e-01f };
    return t[j];
  }
  CI_HD static float s (int j)
  {
    constexpr float t[6] = { 0.000000000e+00f, 8.660254038e-01f, 8.660254038e-01f, 1.224646799e-16f, -8.660254038e-01f, -8.660254038e-01f };
    return t[j];
  }
};
template <> struct CiW<7>
{
  CI_HD static float c (int j)
  {
    constexpr float t[7] = { 1.000000000e+00f, 6.234898019e-01f, -2.225209340e-01f, -9.009688679e-01f, -9.009688679e-01f, -2.225209340e-01f, 6.234898019e-01f };
    return t[j];
  }
  CI_HD static float s (int j)
  {
    constexpr float t[7] = { 0.000000000e+00f, 7.818314825e-01f, 9.749279122e-01f, 4.338837391e-01f, -4.338837391e-01f, -9.749279122e-01f, -7.818314825e-01f };
    return t[j];
  }
};
template <> struct CiW<9>
{
  CI_HD static float c (int j)
  {
    constexpr float t[9] = { 1.000000000e+00f, 7.660444431e-01f, 1.736481777e-01f, -5.000000000e-01f, -9.396926208e-01f, -9.396926208e-01f, -5.000000000e-01f, 1.736481777e-01f, 7.660444431e-01f };
    return t[j];
  }
  CI_HD static float s (int j)
  {
    constexpr float t[9] = { 0.000000000e+00f, 6.427876097e-01f, 9.848077530e-01f, 8.660254038e-01f, 3.420201433e-01f, -3.420201433e-01f, -8.660254038e-01f, -9.848077530e-01f, -6.427876097e-01f };
    return t[j];
  }
};
template <> struct CiW<10>
{
  CI_HD static float c (int j)
  {
    constexpr float t[10] = { 1.000000000e+00f, 8.090169944e-01f, 3.090169944e-01f, -3.090169944e-01f, -8.090169944e-01f, -1.000000000e+00f, -8.090169944e-01f, -3.090169944e-01f, 3.090169944e-01f, 8.090169944e-01f };
    return t[j];
  }
  CI_HD static float s (int j)
  {
    constexpr float t[10] = { 0.000000000e+00f, 5.877852523e-01f, 9.510565163e-01f, 9.510565163e-01f, 5.877852523e-01f, 1.224646799e-16f, -5.877852523e-01f, -9.510565163e-01f, -9.510565163e-01f, -5.877852523e-01f };
    return t[j];
  }
};
template <> struct CiW<12>
{
  CI_HD static float c (int j)
  {
    constexpr float t[12] = { 1.000000000e+00f, 8.660254038e-01f, 5.000000000e-01f, 6.123233996e-17f, -5.000000000e-01f, -8.660254038e-01f, -1.000000000e+00f, -8.660254038e-01f, -5.000000000e-01f, -1.836970199e-16f, 5.000000000e-01f, 8.660254038e-01f };
    return t[j];
  }
  CI_HD static float s (int j)
  {
    constexpr float t[12] = { 0.000000000e+00f, 5.000000000e-01f, 8.660254038e-01f, 1.000000000e+00f, 8.660254038e-01f, 5.000000000e-01f, 1.224646799e-16f, -5.000000000e-01f, -8.660254038e-01f, -1.000000000e+00f, -8.660254038e-01f, -5.000000000e-01f };
    return t[j];
  }
};
template <> struct CiW<14>
{
  CI_HD static float c (int j)
  {
    constexpr float t[14] = { 1.000000000e+00f, 9.009688679e-01f, 6.234898019e-01f, 2.225209340e-01f, -2.225209340e-01f, -6.234898019e-01f, -9.009688679e-01f, -1.000000000e+00f, -9.009688679e-01f, -6.234898019e-01f, -2.225209340e-01f, 2.225209340e-01f, 6.234898019e-01f, 9.009688679e-01f };
    return t[j];
  }
  CI_HD static float s (int j)
  {
    constexpr float t[14] = { 0.000000000e+00f, 4.338837391e-01f, 7.818314825e-01f, 9.749279122e-01f, 9.749279122e-01f, 7.818314825e-01f, 4.338837391e-01f, 1.224646799e-16f, -4.338837391e-01f, -7.818314825e-01f, -9.749279122e-01f, -9.749279122e-01f, -7.818314825e-01f, -4.338837391e-01f };
    return t[j];
  }
};
template <> struct CiW<15>
{
  CI_HD static float c (int j)
  {
    constexpr float t[15] = { 1.000000000e+00f, 9.135454576e-01f, 6.691306064e-01f, 3.090169944e-01f, -1.045284633e-01f, -5.000000000e-01f, -8.090169944e-01f, -9.781476007e-01f, -9.781476007e-01f, -8.090169944e-01f, -5.000000000e-01f, -1.045284633e-01f, 3.090169944e-01f, 6.691306064e-01f, 9.135454576e-01f };
    return t[j];
  }
  CI_HD static float s (int j)
  {
    constexpr float t[15] = { 0.000000000e+00f, 4.067366431e-01f, 7.431448255e-01f, 9.510565163e-01f, 9.945218954e-01f, 8.660254038e-01f, 5.877852523e-01f, 2.079116908e-01f, -2.079116908e-01f, -5.877852523e-01f, -8.660254038e-01f, -9.945218954e-01f, -9.510565163e-01f, -7.431448255e-01f, -4.067366431e-01f };
    return t[j];
  }
};

/* Odd R: pairs m, R - m share cos and mirror sin:
 * y_k = a_0 + sum_m (a_m + a_-m) cos(2 pi m k / R)
 *             + dir i (a_m - a_-m) sin(2 pi m k / R). */
template <int R, int DIR>
CI_HD void
ci_dft_odd (float2 (&a)[R])
{
  const int H = (R - 1) / 2;
  float2 p[H], q[H];
CI_FFT_UNROLL
  for (int m = 1; m <= H; m++) {
    p[m - 1] = ci_cadd (a[m], a[R - m]);
    q[m - 1] = ci_csub (a[m], a[R - m]);
  }
  float2 y[R];
  y[0] = a[0];
CI_FFT_UNROLL
  for (int m = 0; m < H; m++)
    y[0] = ci_cadd (y[0], p[m]);
CI_FFT_UNROLL
  for (int k = 1; k <= H; k++) {
    float2 re = a[0], im = ci_c (0.0f, 0.0f);
CI_FFT_UNROLL
    for (int m = 1; m <= H; m++) {
      float cs = CiW<R>::c ((m * k) % R), sn = CiW<R>::s ((m * k) % R);
      re.x += p[m - 1].x * cs;
      re.y += p[m - 1].y * cs;
      im.x += q[m - 1].x * sn;
      im.y += q[m - 1].y * sn;
    }
    /* dir i im */
    float2 r = ci_rot<DIR> (im);
    y[k] = ci_cadd (re, r);
    y[R - k] = ci_csub (re, r);
  }
CI_FFT_UNROLL
  for (int k = 0; k < R; k++)
    a[k] = y[k];
}

/* N = A B from DFTs of A and B (radix 16 has its own 4 x 4 below):
 * c[r][s] = DFT_A over m of a[r + B m], times w_N^(r s), then
 * X[s + A u] = DFT_B over r of c[r][s]. */
template <int R, int DIR> CI_HD void ci_dft (float2 (&a)[R]);

template <int A, int B, int DIR>
CI_HD void
ci_dft_ab (float2 (&a)[A * B])
{
  constexpr int N = A * B;
CI_FFT_UNROLL
  for (int r = 0; r < B; r++) {
    float2 t[A];
CI_FFT_UNROLL
    for (int m = 0; m < A; m++)
      t[m] = a[r + B * m];
    ci_dft<A, DIR> (t);
CI_FFT_UNROLL
    for (int s = 0; s < A; s++) {
      int j = (r * s) % N;
      a[r + B * s] = j ? ci_cmul (t[s], ci_c (CiW<N>::c (j),
              DIR * CiW<N>::s (j))) : t[s];
    }
  }
  float2 out[N];
CI_FFT_UNROLL
  for (int s = 0; s < A; s++) {
    float2 t[B];
CI_FFT_UNROLL
    for (int r = 0; r < B; r++)
      t[r] = a[r + B * s];
    ci_dft<B, DIR> (t);
CI_FFT_UNROLL
    for (int u = 0; u < B; u++)
      out[s + A * u] = t[u];
  }
CI_FFT_UNROLL
  for (int i = 0; i < N; i++)
    a[i] = out[i];
}

/* N = A B with A, B coprime, by the prime-factor (Good-Thomas) mapping:
 * input n = (B n1 + A n2) mod N, output k with k = k1 mod A, k = k2 mod B,
 * so w_N^(n k) = w_A^(n1 k1) w_B^(n2 k2) and no twiddle sits between the
 * two small DFTs (ci_dft_ab's (A - 1)(B - 1) complex products: 8 for
 * 15 = 3 x 5, 4 for 10, 6 for 12 and 14). Both maps are constants. */
#ifdef __CUDACC__
__host__ __device__
#endif
constexpr int
ci_inv_mod (int x, int m)
{
  int i = 1;
  while ((x * i) % m != 1)
    i++;
  return i;
}

template <int A, int B, int DIR>
CI_HD void
ci_dft_pfa (float2 (&a)[A * B])
{
  constexpr int N = A * B;
  /* k = (k1 EA + k2 EB) mod N (Chinese remainders) */
  constexpr int EA = B * ci_inv_mod (B % A, A) % N;
  constexpr int EB = A * ci_inv_mod (A % B, B) % N;
  float2 c[A][B];
CI_FFT_UNROLL
  for (int n2 = 0; n2 < B; n2++) {
    float2 t[A];
CI_FFT_UNROLL
    for (int n1 = 0; n1 < A; n1++)
      t[n1] = a[(B * n1 + A * n2) % N];
    ci_dft<A, DIR> (t);
CI_FFT_UNROLL
    for (int k1 = 0; k1 < A; k1++)
      c[k1][n2] = t[k1];
  }
CI_FFT_UNROLL
  for (int k1 = 0; k1 < A; k1++) {
    float2 t[B];
CI_FFT_UNROLL
    for (int n2 = 0; n2 < B; n2++)
      t[n2] = c[k1][n2];
    ci_dft<B, DIR> (t);
CI_FFT_UNROLL
    for (int k2 = 0; k2 < B; k2++)
      a[(k1 * EA + k2 * EB) % N] = t[k2];
  }
}

template <int R, int DIR>
CI_HD void
ci_dft (float2 (&a)[R])
{
  if constexpr (R == 2) {
    float2 t = a[0];
    a[0] = ci_cadd (t, a[1]);
    a[1] = ci_csub (t, a[1]);
  } else if constexpr (R == 4) {
    ci_dft4<DIR> (a[0], a[1], a[2], a[3]);
  } else if constexpr (R == 16) {
    /* 4 x 4: DFT4 over m of a[r + 4m], twiddle w16^(r s), DFT4 over r */
CI_FFT_UNROLL
    for (int r = 0; r < 4; r++)
      ci_dft4<DIR> (a[r], a[r + 4], a[r + 8], a[r + 12]);
    const float c1 = 0.923879532511286756f, s1 = 0.382683432365089772f;
    const float h = 0.707106781186547524f;
    /* w16^j = cos + DIR i sin, j = 1, 2, 3, 4, 6, 9 */
    const float2 w1 = ci_c (c1, DIR * s1), w2 = ci_c (h, DIR * h);
    const float2 w3 = ci_c (s1, DIR * c1), w6 = ci_c (-h, DIR * h);
    const float2 w9 = ci_c (-c1, -DIR * s1);
    a[5] = ci_cmul (a[5], w1);
    a[6] = ci_cmul (a[6], w2);
    a[7] = ci_cmul (a[7], w3);
    a[9] = ci_cmul (a[9], w2);
    a[10] = ci_rot<DIR> (a[10]);
    a[11] = ci_cmul (a[11], w6);
    a[13] = ci_cmul (a[13], w3);
    a[14] = ci_cmul (a[14], w6);
    a[15] = ci_cmul (a[15], w9);
CI_FFT_UNROLL
    for (int q = 0; q < 4; q++)
      ci_dft4<DIR> (a[4 * q], a[4 * q + 1], a[4 * q + 2], a[4 * q + 3]);
    /* a[4 s + u] holds y[s + 4 u]: transpose */
    float2 t;
#define CI_FFT_SWAP(i, j) t = a[i]; a[i] = a[j]; a[j] = t
    CI_FFT_SWAP (1, 4);
    CI_FFT_SWAP (2, 8);
    CI_FFT_SWAP (3, 12);
    CI_FFT_SWAP (6, 9);
    CI_FFT_SWAP (7, 13);
    CI_FFT_SWAP (11, 14);
#undef CI_FFT_SWAP
  } else if constexpr (R == 8) {
    /* even / odd halves, then w8^k on the odd half */
    float2 e0 = a[0], e1 = a[2], e2 = a[4], e3 = a[6];
    float2 o0 = a[1], o1 = a[3], o2 = a[5], o3 = a[7];
    ci_dft4<DIR> (e0, e1, e2, e3);
    ci_dft4<DIR> (o0, o1, o2, o3);
    const float h = 0.707106781186547524f;
    o1 = ci_c (h * (o1.x - DIR * o1.y), h * (o1.y + DIR * o1.x));
    o2 = ci_rot<DIR> (o2);
    o3 = ci_c (h * (-o3.x - DIR * o3.y), h * (-o3.y + DIR * o3.x));
    a[0] = ci_cadd (e0, o0);
    a[4] = ci_csub (e0, o0);
    a[1] = ci_cadd (e1, o1);
    a[5] = ci_csub (e1, o1);
    a[2] = ci_cadd (e2, o2);
    a[6] = ci_csub (e2, o2);
    a[3] = ci_cadd (e3, o3);
    a[7] = ci_csub (e3, o3);
  } else if constexpr (R == 6) {
    ci_dft_pfa<2, 3, DIR> (a);
  } else if constexpr (R == 9) {
    ci_dft_ab<3, 3, DIR> (a);
  } else if constexpr (R == 10) {
    ci_dft_pfa<2, 5, DIR> (a);
  } else if constexpr (R == 12) {
    ci_dft_pfa<4, 3, DIR> (a);
  } else if constexpr (R == 14) {
    ci_dft_pfa<2, 7, DIR> (a);
  } else if constexpr (R == 15) {
    ci_dft_pfa<3, 5, DIR> (a);
  } else {
    ci_dft_odd<R, DIR> (a);
  }
}

/* Shared-memory index of element i: one pad slot every 16 complex values,
 * so the strided writes of the first stages (stride R) hit distinct banks. */
template <bool PAD>
CI_HD int
ci_fft_pad (int i)
{
  return PAD ? i + (i >> 4) : i;
}

/* v[t] *= w^t, w = w1 (conjugated for DIR > 0): the powers as
 * w^t = w^(t/2) w^(t - t/2), a chain log2 R deep (error ~ a few ulp). */
template <int R, int DIR>
CI_HD void
ci_fft_twiddle (float2 (&v)[R], float2 w1)
{
  w1.y = DIR < 0 ? w1.y : -w1.y;
  float2 w[R];
  w[1] = w1;
CI_FFT_UNROLL
  for (int t = 2; t < R; t++)
    w[t] = ci_cmul (w[t / 2], w[t - t / 2]);
CI_FFT_UNROLL
  for (int t = 1; t < R; t++)
    v[t] = ci_cmul (v[t], w[t]);
}

/* The inputs of butterfly j from src (one signal): src[j + t nb], t < R. */
template <int R, bool PAD>
CI_HD void
ci_fft_load (const float2 * src, int nb, int j, float2 (&v)[R])
{
CI_FFT_UNROLL
  for (int t = 0; t < R; t++)
    v[t] = src[ci_fft_pad<PAD> (j + t * nb)];
}

/* One butterfly: gather from src (one signal), twiddle, DFT. nb = n / R,
 * k = j mod Ns; the twiddle of input t is tw[k unit]^t (unit = n / (Ns R)
 * with the full table, 1 with a stage's row of ci_fft_stage_twiddles). */
template <int R, int DIR, bool PAD>
CI_HD void
ci_fft_gather (const float2 * src, int nb, int j, int k, int unit,
    const float2 * tw, float2 (&v)[R])
{
  ci_fft_load<R, PAD> (src, nb, j, v);
  if (k > 0)
    ci_fft_twiddle<R, DIR> (v, tw[k * unit]);
  ci_dft<R, DIR> (v);
}

/* ... and scatter it: q = j / Ns, k = j mod Ns. */
template <int R, bool PAD>
CI_HD void
ci_fft_scatter (float2 * dst, int Ns, int q, int k, const float2 (&v)[R])
{
  const int base = q * Ns * R + k;
CI_FFT_UNROLL
  for (int t = 0; t < R; t++)
    dst[ci_fft_pad<PAD> (base + t * Ns)] = v[t];
}

/* exp(-2 pi i m / n), computed in double. */
static inline float2
ci_fft_w (int m, int n)
{
  double a = -2.0 * 3.14159265358979323846 * (double) m / (double) n;
  float2 w;
  w.x = (float) cos (a);
  w.y = (float) sin (a);
  return w;
}

/* The full table: tw[m] = exp(-2 pi i m / n), m < n. */
static inline void
ci_fft_twiddles (int n, float2 * tw)
{
  for (int m = 0; m < n; m++)
    tw[m] = ci_fft_w (m, n);
}

/* The kernels' twiddle table: stage s (after stages of radix product Ns,
 * radix R) needs w^k = exp(-2 pi i k / (Ns R)) for k < Ns only; the stages'
 * rows are stored one after the other (stage s from sum of earlier Ns).
 * Returns the length; out may be NULL to ask for it. */
static inline int
ci_fft_stage_twiddles (const CiFftPlan * p, float2 * out)
{
  int off = 0, Ns = 1;
  for (int s = 0; s < p->nst; s++) {
    int R = ci_fft_radix (*p, s);
    for (int k = 0; out && k < Ns; k++)
      out[off + k] = ci_fft_w (k, Ns * R);
    off += Ns;
    Ns *= R;
  }
  return off;
}

/* Host form of a whole transform (ping-pong buffers): what the shared-memory
 * kernels do stage by stage, used by the host check. Result in a. */
template <int DIR>
static inline void
ci_fft_host (const CiFftPlan * p, float2 * a, float2 * b)
{
  int Ns = 1;
  float2 *src = a, *dst = b;
  for (int s = 0; s < p->nst; s++) {
    int R = ci_fft_radix (*p, s), nb = p->n / R;
    for (int j = 0; j < nb; j++) {
#define CI_FFT_HOST_R(RR) case RR: { float2 v[RR]; \
        ci_fft_gather<RR, DIR, false> (src, nb, j, j % Ns, p->n / (Ns * RR), \
            p->tw, v); \
        ci_fft_scatter<RR, false> (dst, Ns, j / Ns, j % Ns, v); break; }
      switch (R) {
          CI_FFT_HOST_R (2) CI_FFT_HOST_R (3) CI_FFT_HOST_R (4)
          CI_FFT_HOST_R (5) CI_FFT_HOST_R (7) CI_FFT_HOST_R (8)
          CI_FFT_HOST_R (16) CI_FFT_HOST_R (6) CI_FFT_HOST_R (9)
          CI_FFT_HOST_R (10) CI_FFT_HOST_R (12) CI_FFT_HOST_R (14)
          CI_FFT_HOST_R (15)
      }
#undef CI_FFT_HOST_R
    }
    Ns *= R;
    float2 *t = src;
    src = dst;
    dst = t;
  }
  if (src != a)
    for (int i = 0; i < p->n; i++)
      a[i] = src[i];
}
