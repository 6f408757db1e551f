/*
 * pattern: the recorder's ground truth. Four ranks run, in turn:
 *
 *   1. a barrier on the world;
 *   2. a ring: rank 0 sends 1000 bytes to rank 1, which forwards 1000
 *      bytes to rank 2, then 2 to 3, then 3 back to 0; rank 0 sleeps
 *      300 ms before it starts and rank 3 100 ms before it forwards, so
 *      every rank waits for its message;
 *   3. pairwise exchanges, 2000 bytes each way, between ranks 0 and 1
 *      and between 2 and 3, with MPI_Irecv, MPI_Isend and MPI_Waitall;
 *      each rank sleeps before it sends (rank 0 300 ms, 1 200 ms, 2
 *      500 ms, 3 200 ms after its ring part), so ranks 1, 3, 0, 2 send in
 *      that order, 100 ms apart and 100 ms after the ring's last message,
 *      and only the higher rank of each pair waits for its message;
 *   4. a broadcast of 800 bytes from rank 0 on the world;
 *   5. rank 1 burns 100 ms of CPU time (the next record's computation);
 *   6. an allreduce of 8 bytes on the world;
 *   7. an all-to-all of 64 bytes per rank on the sub-communicators of
 *      the even ranks {0, 2} and of the odd ranks {1, 3} (MPI_Comm_split);
 *      the odd ranks sleep 100 ms first, so the even ranks' comes first.
 *
 * workloads/mpirec's TestPatternGroundTruth works out the VEF records by
 * hand and compares.
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static void sleep_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
	nanosleep(&ts, NULL);
}

static double cpu_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static volatile double sink;

static void burn_cpu(double s)
{
	double end = cpu_s() + s, x = 0;
	while (cpu_s() < end)
		for (int i = 0; i < 10000; i++)
			x += i * 1e-9;
	sink = x;
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	int rank, size;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (size != 4) {
		if (rank == 0)
			fprintf(stderr, "pattern: run it with 4 ranks, not %d\n", size);
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	MPI_Comm half;
	MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
	static char a[1000], b[2000], c[2000];
	double bc[100] = {0}, one = 1, sum;
	char s64[2 * 64], r64[2 * 64];
	memset(s64, rank, sizeof s64);

	/* 1 */
	MPI_Barrier(MPI_COMM_WORLD);

	/* 2: the ring */
	int next = (rank + 1) % 4, prev = (rank + 3) % 4;
	if (rank == 0) {
		sleep_ms(300);
		MPI_Send(a, 1000, MPI_CHAR, next, 1, MPI_COMM_WORLD);
		MPI_Recv(a, 1000, MPI_CHAR, prev, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	} else {
		MPI_Recv(a, 1000, MPI_CHAR, prev, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		if (rank == 3)
			sleep_ms(100);
		MPI_Send(a, 1000, MPI_CHAR, next, 1, MPI_COMM_WORLD);
	}

	/* 3: pairs (0, 1) and (2, 3) */
	int partner = rank ^ 1;
	static const long delay_ms[4] = {300, 200, 500, 200};
	MPI_Request req[2];
	MPI_Irecv(c, 2000, MPI_CHAR, partner, 2, MPI_COMM_WORLD, &req[0]);
	sleep_ms(delay_ms[rank]);
	MPI_Isend(b, 2000, MPI_CHAR, partner, 2, MPI_COMM_WORLD, &req[1]);
	MPI_Waitall(2, req, MPI_STATUSES_IGNORE);

	/* 4 */
	MPI_Bcast(bc, 100, MPI_DOUBLE, 0, MPI_COMM_WORLD);

	/* 5, 6 */
	if (rank == 1)
		burn_cpu(0.1);
	MPI_Allreduce(&one, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);

	/* 7 */
	if (rank % 2)
		sleep_ms(100);
	MPI_Alltoall(s64, 64, MPI_CHAR, r64, 64, MPI_CHAR, half);

	MPI_Comm_free(&half);
	MPI_Finalize();
	return 0;
}
