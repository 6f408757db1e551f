/*
 * compute: the same computation between collectives on every rank, to
 * measure what the recorder's clocks make of it when ranks share cores.
 * Each of 20 steps multiplies and adds 20 million doubles on every rank,
 * then runs an 8-byte allreduce. docs/mpi-traces.md compares the delays
 * recorded on the CPU and wall clocks at several rank counts.
 */
#include <mpi.h>

static volatile double sink;

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	double x = 1, y;
	for (int step = 0; step < 20; step++) {
		for (long i = 0; i < 20000000; i++)
			x = x * 1.0000001 + 1e-9;
		sink = x;
		MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
	}
	MPI_Finalize();
	return 0;
}
