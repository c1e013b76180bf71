/* A helper with its own unit test: the main below exists only when
 * UNIT_TEST is defined, which the build does not do. This file is no
 * program, and solver.c links it. */
#include <stdio.h>

int halo_sum(int left, int right) { return left + right; }

#ifdef UNIT_TEST
int main(void) {
  printf("%d\n", halo_sum(1, 2));
  return halo_sum(1, 2) != 3;
}
#endif
