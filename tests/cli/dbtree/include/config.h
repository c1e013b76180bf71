/* Found only through the compile database's (or fib.toml's) -Iinclude. */
#define GREETING_TAG 7
