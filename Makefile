all: ring
ring.2.c: ring.c
	mpicc.mpich -E ring.c > ring.2.c
ring: ring.2.c
	mpicc.mpich -g ring.2.c -o ring
clean:
	rm -f ring ring.2.c
