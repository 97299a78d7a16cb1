/* The fused bloom path's FFT stages (kernels/fftbloom_fft.cuh) against a
 * naive double-precision DFT, every radix and mixed-radix order, forward and
 * inverse. Host only: runs without a GPU.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <vector>
#include "../../kernels/fftbloom_fft.cuh"

static int failures = 0;

static double
check (int n, int dir, unsigned seed)
{
  CiFftPlan p;
  ci_fft_plan (&p, n);
  std::vector<float2> tw (n), a (n), b (n);
  ci_fft_twiddles (n, tw.data ());
  p.tw = tw.data ();
  std::vector<double> xr (n), xi (n);
  srand (seed);
  for (int i = 0; i < n; i++) {
    xr[i] = rand () / (double) RAND_MAX - 0.5;
    xi[i] = rand () / (double) RAND_MAX - 0.5;
    a[i].x = (float) xr[i];
    a[i].y = (float) xi[i];
  }
  if (dir < 0)
    ci_fft_host<-1> (&p, a.data (), b.data ());
  else
    ci_fft_host<1> (&p, a.data (), b.data ());
  double err = 0.0, ref = 0.0;
  for (int k = 0; k < n; k++) {
    double sr = 0.0, si = 0.0;
    for (int m = 0; m < n; m++) {
      double ang = dir * 2.0 * M_PI * (double) ((long long) m * k % n) / n;
      double c = cos (ang), s = sin (ang);
      sr += xr[m] * c - xi[m] * s;
      si += xr[m] * s + xi[m] * c;
    }
    err += (a[k].x - sr) * (a[k].x - sr) + (a[k].y - si) * (a[k].y - si);
    ref += sr * sr + si * si;
  }
  return sqrt (err / ref);
}

int
main (void)
{
  /* every 7-smooth size from 2 to 600 (found here by trial division, so
   * that a size the planner wrongly refuses fails), then the grid sizes the
   * bloom uses */
  std::vector<int> sizes;
  for (int n = 2; n <= 600; n++) {
    int m = n;
    for (int f = 2; f <= 7; f++)
      while (m % f == 0)
        m /= f;
    signed char r[CI_FFT_MAX_STAGES];
    if ((m == 1) != (ci_fft_factor (n, r) != 0)) {
      fprintf (stderr, "FAIL factor: %d is%s 7-smooth but %s\n", n,
          m == 1 ? "" : " not", m == 1 ? "refused" : "accepted");
      failures++;
    }
    if (m == 1)
      sizes.push_back (n);
  }
  int big[] = { 1024, 1200, 1536, 2048, 2400, 2880, 4096, 5760 };
  for (int n : big)
    sizes.push_back (n);
  double worst = 0.0;
  int cases = 0;
  for (int n : sizes)
    for (int dir = -1; dir <= 1; dir += 2) {
      double e = check (n, dir, (unsigned) (n * 7 + dir + 3));
      cases++;
      worst = e > worst ? e : worst;
      if (!(e < 2e-6)) {
        fprintf (stderr, "FAIL n=%d dir=%d: relative L2 error %.3g\n", n, dir,
            e);
        failures++;
      }
    }
  signed char r[CI_FFT_MAX_STAGES];
  if (ci_fft_factor (11, r) || ci_fft_factor (2 * 13, r)) {
    fprintf (stderr, "FAIL factor: 11 or 26 accepted\n");
    failures++;
  }
  printf ("%d transforms (%zu sizes, both directions), worst relative L2 "
      "error %.3g\n", cases, sizes.size (), worst);
  return failures ? 1 : 0;
}
