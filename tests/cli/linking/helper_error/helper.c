/* A helper of main.c with a type error on line 6: fib reports FIB007 on
 * this file and line. */
struct pair { int a, b; };

int next_of(int rank, int size) {
  struct pair p = rank;
  return (p.a + 1) % size;
}
