// Package tracegen writes VEF traces (package vef) of trace-shaped
// workloads: the communication of a few kinds of MPI application, with
// the causal order between their messages, for a replay to inject on a
// simulated network (seed 000 section 4.3 replays NAMD, GROMACS, HPL and
// MPIRandomAccess traces of 512 tasks; real traces are not shipped).
// Write generates a trace from Params; Counts gives the header it will
// have, every count by formula, before anything is written.
//
// # Kinds
//
// N is Params.Tasks, I Params.Iterations, B Params.Bytes, C
// Params.ComputeNS. Tasks are numbered 0 … N-1; every trace has C0, the
// world.
//
// stencil3d imitates molecular dynamics (NAMD, GROMACS): the tasks sit on
// a periodic Px×Py×Pz grid, the most cubic factorisation of N (the
// largest dimension as small as it can be, then the middle one; Px ≥ Py ≥
// Pz, as MPI_Dims_create gives; 12 is 3×2×2, 30 is 5×3×2, 512 is 8×8×8),
// task t at x = t mod Px, y = (t / Px) mod Py, z = t / (Px·Py). In each
// iteration every task sends a halo of B bytes to each distinct
// neighbour, in the order x−, x+, y−, y+, z−, z+: a dimension of size 1
// gives no neighbour (it would be the task itself) and one of size 2
// gives one (x−1 and x+1 are the same task; one message, listed as the
// + neighbour), so a task has D = Σ d(P) neighbours, d(1) = 0, d(2) = 1,
// d(P ≥ 3) = 2. A task computes for C once it has its neighbours' halos,
// and after every K-th iteration (K = AllreduceEvery) joins an 8-byte
// allreduce on C0 (op 2), as MD codes reduce energies and the virial.
// VEF gives a record one dependency, so "once it has its neighbours'
// halos" is the receipt of one designated halo: the one from its last
// neighbour in that order. A task's halos of iteration i > 0 go C after
// that receipt in iteration i-1, or right after the allreduce that ended
// iteration i-1; its allreduce part goes C after the receipt.
//
//	p2p = N·D·I, collectives = ⌊I/K⌋, parts = N·⌊I/K⌋, communicators: C0.
//
// hpl imitates HPL: a P×Q process grid, the most square factorisation of
// N with P ≤ Q (P the largest divisor of N not above √N), row-major (task
// t in row t / Q, column t mod Q). Communicators: C0, then C1 … CP the rows
// (C(1+r) lists row r by column), then C(P+1) … C(P+Q) the columns
// (C(P+1+c) lists column c by row). Panel step k (iteration k) is:
//   - the panel broadcast: on each row's communicator a broadcast (op 0,
//     G(k·P + r) for row r) of B bytes whose root is the task in column
//     k mod Q, the panel's owner;
//   - the row swaps, point-to-point along each column: the diagonal row
//     k mod P exchanges B bytes with every other row of the column, a
//     message each way per pair (pivot rows gathered to the diagonal block
//     and the rows they replace sent back); each task sends its swaps right
//     after its part of the broadcast;
//   - the update, C of computation, after which the task joins the next
//     step's broadcast. Its one dependency is the receipt of its last
//     swap message of the step (the diagonal row's last is from the last
//     other row); with P = 1 there are no swaps and it follows the task's
//     broadcast part.
//
// Step 0's broadcast parts are independent, at time 0.
//
//	p2p = 2·Q·(P-1)·I, collectives = P·I, parts = N·I, communicators: 1+P+Q.
//
// randomaccess imitates MPIRandomAccess (HPCC): in each iteration each
// task sends U = Updates small updates to tasks drawn at random among the
// others, one after another: the first as the iteration starts (time 0,
// or right after the barrier), each next one C after its previous send.
// A message carries a random number of 8-byte updates, 1 to ⌊B/8⌋, so
// its size is a multiple of 8 in [8, B] (B = 64, the default, gives
// 8–64 bytes); with B < 8 every message is B bytes. The draws (a
// destination, then a size, per message in file order) come from a PCG
// generator (math/rand/v2) seeded with Seed, so a seed gives one trace.
// Iterations are separated by a barrier on C0 (op 6) that each task
// enters right after its last send of the iteration: I-1 barriers. The
// barrier does not wait for the updates still in flight (a task does not
// know how many come to it, and a record has one dependency).
//
//	p2p = N·U·I, collectives = I-1, parts = N·(I-1), communicators: C0.
//
// alltoall imitates the all-to-all phases of spectral codes (FFTs): I
// alltoalls on C0 (op 7, recv_bytes 0: B bytes to every task), each task
// joining the next C after its part of the previous one ends.
//
//	p2p = 0, collectives = I, parts = N·I, communicators: C0.
//
// ring imitates a token shift (pipelined codes, ring allgathers written
// by hand): in iteration i every task sends B bytes to task (t+1) mod N,
// C after receiving iteration i-1's message from (t-1) mod N; iteration
// 0's messages are independent, at time 0.
//
//	p2p = N·I, collectives = 0, parts = 0, communicators: C0.
//
// The header's only_send is TRUE exactly when no record depends on a
// receipt: always for randomaccess and alltoall; for ring when I is 1;
// for hpl when I or P is 1; for stencil3d when I is 1 and no allreduce
// follows it (K > 1).
//
// # Order in the file
//
// Every independent record (dep 0) comes first, as a replay reads them
// all before it starts. Then the records go iteration by iteration, each
// iteration's after the previous one's, so a replay reading the file as
// it goes reads little ahead; the parts of a collective are written
// together. Message ids are given by formula (stencil3d's halo from task
// s to its j-th neighbour in iteration i is i·N·D + s·D + j) and the
// vef.Writer checks each against the count of messages before it.
//
// # Memory
//
// Nothing is kept per message: the generators compute every id and
// dependency from the iteration, the task and the grid, so a trace of
// any length is written in the memory of its communicators (the header),
// the vef.Writer's 64 KiB buffer and its checker, which keeps a map entry
// per collective (package vef's doc gives its bound). A 512-task
// stencil3d trace of a million halos is written with under 1 MiB of heap
// in use.
//
// Imports: problem, registry, workloads/vef. No goroutines, no global
// RNG.
package tracegen
