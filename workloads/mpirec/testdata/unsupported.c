/*
 * unsupported: calls the recorder cannot put in a VEF trace, beside one
 * it can. Two ranks: rank 0 sends rank 1 64 bytes; then both expose an
 * RMA window, rank 0 puts 8 bytes into rank 1's between two fences; both
 * print "phase two" and run a barrier.
 */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	int rank;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	char buf[64] = {0};
	if (rank == 0)
		MPI_Send(buf, 64, MPI_CHAR, 1, 0, MPI_COMM_WORLD);
	else if (rank == 1)
		MPI_Recv(buf, 64, MPI_CHAR, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	double *base, x = 1;
	MPI_Win win;
	MPI_Win_allocate(sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
	MPI_Win_fence(0, win);
	if (rank == 0)
		MPI_Put(&x, 1, MPI_DOUBLE, 1, 0, 1, MPI_DOUBLE, win);
	MPI_Win_fence(0, win);
	MPI_Win_free(&win);
	printf("phase two\n");
	fflush(stdout);
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Finalize();
	return 0;
}
