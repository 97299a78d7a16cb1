/* cuFFT, opened on first use (kernels/cicufft.c).
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#ifdef __cplusplus
extern "C" {
#endif

/* 1 once libcufft is open (it is tried once per process), else 0 */
int ci_cufft_available (void);
/* why it could not be opened, or NULL */
const char *ci_cufft_error (void);

#ifdef __cplusplus
}
#endif
