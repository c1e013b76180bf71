/* Listed in .gitignore: fib must not check it (it would not compile). */
int main(void) { return syntax error; }
