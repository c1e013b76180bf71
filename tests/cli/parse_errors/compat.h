/* A fallback for compilers without the builtin: GCC accepts it, libclang
 * says it cannot redeclare a builtin. */
inline int __sync_fetch_and_add(int *ptr, int value)
{
    int old = *ptr;
    *ptr += value;
    return old;
}
