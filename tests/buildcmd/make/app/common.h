int tag_of(int rank);
