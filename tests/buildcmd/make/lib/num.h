/* The library both programs link (lib/libnum.a). */
double norm2(int rank, double scale);
void exchange(int rank, double value);
