void report(int counted);
