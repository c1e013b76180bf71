/* Needs the maths library: the build links with -lm. */
#include <math.h>
#include "num.h"

double norm2(int rank, double scale)
{
    return sqrt(scale * (rank + 1));
}
