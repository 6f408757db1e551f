// Package mpirec records VEF traces (package vef) from running MPI
// programs. Its C half, csrc/vefrec.c, is a PMPI interposition library
// (built with mpicc, loaded with LD_PRELOAD into an unmodified program)
// that writes one file per rank of what the rank communicated, in program
// order; Merge, the Go half, matches the ranks' files to one another and
// writes one trace. `opasim trace record` builds the library, runs the
// program under mpirun and merges.
//
// # What a trace holds
//
// Every message a rank sends (MPI_Send and its modes, MPI_Isend and its
// modes, MPI_Sendrecv, persistent sends when started) is a VEF message of
// its size in bytes (count × the datatype's size); a message to
// MPI_PROC_NULL is none. Every collective is one VEF collective, a part a
// member, on the VEF communicator of its members (world ranks, in the
// order of their ranks in the MPI communicator; MPI communicators with the
// same members share one). Ops without a VEF op of their own are written
// as the closest one, by the data they move: MPI_Scan and MPI_Exscan as
// an allreduce of their size, MPI_Reduce_scatter_block as an all-to-all of
// its block, MPI_Reduce_scatter, MPI_Alltoallv and MPI_Alltoallw as a
// vector all-to-all of their total; an allreduce of 0 bytes as a barrier.
// Nonblocking collectives are their blocking op, begun at the call.
//
// Receives are not records in VEF: a message is received when it arrives.
// They matter as dependencies: the k-th receive a rank posts on a channel
// (source, communicator, tag, as its status tells) gets the k-th message
// sent on it, which is MPI's matching order.
//
// # Causality
//
// A VEF record waits on one event of its task: a send, a receipt or the
// end of a collective part. The recorder keeps, for each rank, the last
// event the program waited for (the anchor; csrc/vefrec.c says which
// completion becomes one), and every record the rank issues depends on
// it, after the computation done since. So a receive that found its
// message already there does not become a dependency, and a Waitall on
// several receives depends on the one that completed last. What a single
// dependency cannot say is lost: a record that in the program came after
// two events (its anchor, and a message that arrived before it was
// needed) waits on the anchor only, so a replay on a much slower network
// may issue it before that message arrives.
//
// # Computation
//
// The recorder measures the time a rank spends outside MPI calls, on two
// clocks: the CPU time of its thread (Options.Compute = CPU, the default)
// and wall time (Wall). A record's delay is the computation between its
// anchor and its call, times Options.Scale; a rank's first records, before
// any anchor, are independent, at the computation since MPI_Init. CPU time
// is the default because a run with more ranks than cores, the usual way
// to record here, stretches wall time by the ranks waiting for a core;
// CPU time does not see that, nor time spent sleeping or blocked in I/O.
// None writes every delay as 0: the communication structure alone.
//
// # Order
//
// Records are written in the order of the wall clock at their calls (one
// clock for all ranks of a machine), a rank's in program order, the parts
// of a collective together in the order of their ranks, and never a
// record before the message it depends on. Message ids and collective ids
// count in that order. Same files, same trace, byte for byte.
//
// # Sections
//
// Options.From and To keep one section of a run. The recorder notes
// where the program printed a line starting with one of the prefixes it
// is given (VEFREC_MARKS, separated by '|'). Merge finds the first noted
// line starting with From (on the lowest rank that printed one) and the
// first line of that rank after it starting with To. The section starts
// at the last collective of all ranks (on MPI_COMM_WORLD or a
// communicator of the same ranks) that rank began before the From line
// (the first after it if there is none), every rank at its part in it;
// it ends before the first one that rank began after the To line (at the
// end of the run if there is none). A record whose dependency is cut off
// depends on the section's first collective instead, after the
// computation since.
//
// # The ranks' files
//
// rank-<r>.vefrec, text, one item a line, in program order; times in ns:
//
//	vefrec 1                            the format's version
//	W <rank> <ranks>                    this rank, the world's size
//	C <comm> <n> <world ranks…>         a communicator: id and members
//	S <wall> <cpu> <wcomp> <dst> <comm> <tag> <bytes>
//	                                    a message sent
//	R <wall> <src> <comm> <tag> <bytes> <post>
//	                                    a receive completed (post: the
//	                                    order in which it was posted)
//	G <wall> <cpu> <wcomp> <comm> <op> <send> <recv> <call>
//	                                    a collective part begun
//	A <s|r|g> <k> <cpu> <wcomp>         the anchor is now the k-th send,
//	                                    receive or part of this rank
//	M <wall> <cpu> <wcomp> <text>       a marker line was printed
//	N <count> <call>, U <count> <call>  calls made, unsupported calls
//	E <cpu> <wcomp>                     MPI_Finalize reached
//	X abort <code>                      MPI_Abort called
//
// wall is CLOCK_MONOTONIC at the call, cpu and wcomp the computation so
// far on each clock. Communicator 0 is MPI_COMM_WORLD and 1 MPI_COMM_SELF;
// the recorder names every other one when it is created.
package mpirec
