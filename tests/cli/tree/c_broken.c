/* Does not compile: the declaration on line 7 lacks its semicolon. */
#include "common.h"

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  SYNC();
  int x = right_of(0, 1)
  MPI_Finalize();
  return x;
}
