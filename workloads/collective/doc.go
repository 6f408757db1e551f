// Package collective lowers the collective operations of a VEF trace
// (broadcast, reduce, allreduce, gather, scatter, allgather, barrier,
// alltoall; the op table of VEF.md) to point-to-point messages in rounds,
// with the algorithms MPI libraries use: binomial trees, recursive
// doubling, rings, pairwise exchange and the dissemination barrier (R.
// Thakur, R. Rabenseifner, W. Gropp, "Optimization of Collective
// Communication Operations in MPICH", International Journal of High
// Performance Computing Applications 19(1), 2005, for all but the barrier;
// D. Hensgen, R. Finkel, U. Manber, "Two Algorithms for Barrier
// Synchronization", International Journal of Parallel Programming 17(1),
// 1988, for the dissemination barrier). Two choices are this package's:
// when P is not a power of two, recursive doubling folds in the ranks
// above the largest power of two (MPICH pairs the first ranks instead; the
// rounds are as many), and every message of the ring allreduce carries
// ⌈X/P⌉ bytes.
//
// A Spec is one collective as the trace gives it: the op, an algorithm
// name ("" for the op's default, Algorithms lists the others), the
// communicator's size, the root, and each rank's send_bytes and
// recv_bytes. Check says whether it can be lowered; Rounds is the number
// of rounds; Part is one rank's share: for each round it takes part in, at
// most one Transfer it sends and at most one it receives. Ranks are
// positions in the communicator, 0 .. Size-1.
//
// # How a replay runs the rounds
//
// A rank runs its rounds in order. In a round it sends its message (if it
// has one) and waits for its receive (if it has one); its next round
// starts when both are done, and its part of the collective ends with its
// last round. There is no barrier between rounds: a rank that takes no
// part in a round simply skips it. So what a rank sends in a round is what
// it held at the start of that round: its own data and what it received
// in earlier rounds. Every algorithm here is laid out so that this is
// enough: in a broadcast or scatter a rank receives before it forwards; in
// a reduce or gather it sends once, after all its receives; in an
// exchange round (recursive doubling, rings, dissemination, pairwise)
// the message sent is the one the rank held before the round's receive.
//
// A message of 0 bytes (a barrier's, or any collective of size 0) is
// still sent: it synchronizes, and the replay sends it as at least one
// flit. So a collective of more than one rank always has rounds; Rounds
// is 0 only for a communicator of one rank.
//
// Transfer.Index numbers the messages of one collective, Round*Size +
// From: a rank sends at most one message a round, so the numbers are
// unique and below Rounds()*Size, and a replay can match a receive to its
// send by collective and index without a table.
//
// # Algorithms
//
// P is the size, v = (rank-Root+P) mod P a rank relative to the root,
// ⌈log2 P⌉ written L.
//
//   - binomial broadcast and scatter: in round k (0 .. L-1), ranks v < 2^k
//     send to v+2^k when that is below P. A rank v > 0 receives once, in
//     round k when 2^k is v's highest bit, and forwards in the rounds
//     after. A scatter message carries the blocks of the receiver's
//     subtree (ranks v + n·2^(k+1) below P, n = 0, 1, …), a broadcast
//     message the whole X.
//   - binomial reduce and gather: in round j (0 .. L-1), ranks v with v
//     mod 2^(j+1) = 2^j send to v-2^j. A rank receives from v+2^j in the
//     rounds j below its lowest set bit and then sends once, in the round
//     j of that bit. A gather message carries the blocks of the sender's
//     subtree (ranks v .. v+2^j-1 below P), a reduce message X.
//   - flat: the root talks to the ranks in turn, relative rank k+1 in
//     round k; P-1 rounds.
//   - recursive doubling (allreduce): with p' the largest power of two
//     at most P, the ranks p' .. P-1 first send their data to rank-p'
//     (round 0), the ranks below p' then exchange with rank XOR 2^m in
//     log2 p' rounds, and finally send the result back to rank+p'. When
//     P is a power of two the two fold rounds are left out: log2 P rounds,
//     else log2 p' + 2. Every message carries X.
//   - ring allreduce: a reduce-scatter then an allgather around the ring,
//     each rank sending to rank+1 and receiving from rank-1 in each of
//     2(P-1) rounds, every message a chunk of ⌈X/P⌉ bytes.
//   - reduce_broadcast (allreduce): a binomial reduce to rank 0 (rounds
//     0 .. L-1) then a binomial broadcast from it (rounds L .. 2L-1).
//   - ring allgather: in round k (0 .. P-2) rank i sends to i+1 the block
//     of rank (i-k) mod P and receives from i-1; P-1 rounds.
//   - dissemination barrier: in round k (0 .. L-1) rank i sends to
//     (i+2^k) mod P and receives from (i-2^k) mod P; 0-byte messages.
//   - pairwise alltoall: in round k-1 (k = 1 .. P-1) rank i sends to
//     (i+k) mod P and receives from (i-k) mod P; P-1 rounds.
//
// # Sizes
//
// As in VEF.md's op table: a broadcast sends X = SendBytes[Root], a
// reduce X = RecvBytes[Root], an allreduce X = SendBytes[0]; a gather's
// and an allgather's blocks are the SendBytes, a scatter's the
// RecvBytes; an alltoall rank sends SendBytes[i] to each peer, or
// ⌈SendBytes[i]/P⌉ when its RecvBytes[i] is 1 (vector all-to-all). Sums
// of blocks stop at the largest int64.
//
// # Cost
//
// Part computes one rank's share alone, in time linear in that rank's
// rounds or in P (a gather or scatter root sums every block once), and
// allocates its transfers once; no call builds the whole collective. So
// P ranks asking for their parts cost at most O(P) each, never O(P²).
//
// Imports: the standard library and workloads/vef only. No goroutines, no
// global state.
package collective
