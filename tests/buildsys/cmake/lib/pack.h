#ifndef PACK_H
#define PACK_H
void pack(double *dst, const double *src, int n);
#endif
