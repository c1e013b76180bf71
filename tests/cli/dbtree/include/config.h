/* Found only through the compile database's -Iinclude. */
#define GREETING_TAG 7
