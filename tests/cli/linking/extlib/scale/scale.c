/* The library's one member; the test archives it into libscale.a. */
int scale(int x) { return 2 * x; }
