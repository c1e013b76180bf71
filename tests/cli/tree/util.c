/* A helper without main: linked into every program of this directory. */
#include "common.h"

int right_of(int rank, int size) { return (rank + 1) % size; }
