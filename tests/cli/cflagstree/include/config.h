/* Found only through fib.toml's -Iinclude. */
#define GREETING_TAG 7
