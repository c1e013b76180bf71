void report(double local);
