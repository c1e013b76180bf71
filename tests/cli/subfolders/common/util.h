/* Shared by the programs of one/ and two/. */
void sync_all(void);
