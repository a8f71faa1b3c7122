/* ref_iir_blur.h: plain-C reference of apps/iir_blur.pipe.
 * I and out are dense [3][R][C] float arrays, last index contiguous. */
#ifndef REF_IIR_BLUR_H
#define REF_IIR_BLUR_H

void ref_iir_blur(int R, int C, float a, const float *I, float *out);

#endif
