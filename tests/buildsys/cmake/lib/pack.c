#include "pack.h"

void pack(double *dst, const double *src, int n) {
  for (int i = 0; i < n; i++)
    dst[i] = src[i];
}
