/* Not in any Makefile: not part of the build, so not a program fib
 * checks (it would not even compile). */
int main(void) { return undefined_here; }
