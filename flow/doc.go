// Package flow is the root of opasim's flow-level network engine (seed 001,
// INRFlow, sections 3.1 and 4): instead of moving flits cycle by cycle it
// routes whole flows and shares link capacity between them.
//
// The engine lives in subpackages and imports none of the cycle-level
// machinery (fabric, actors, sim):
//
//   - flow/graph: a compact network graph in flat slices (CSR adjacency),
//     with k-ary n-tree and torus builders;
//   - flow/route: d-mod-k routing on trees, dimension-order routing on tori
//     and, on any graph, ECMP over the shortest paths, k shortest paths and
//     AllPath-d;
//   - flow/topology: switch-centric (mesh, XGFT, dragonfly, jellyfish,
//     graph files) and server-centric (BCube, DCell/FiConn, DPillar,
//     HCN/BCN) topologies;
//   - flow/static: the static engine, which routes every flow of a traffic
//     pattern at once and reports link loads, hop counts and seed 001's
//     throughput figures of merit;
//   - flow/maxmin: an exact max-min fair (progressive filling) solver with
//     incremental updates and NP, BA and FP priority policies;
//   - flow/dynamic: the dynamic engine, which runs flows with sizes, start
//     times and dependencies, sharing bandwidth max-min fairly (or under
//     a link-level priority policy), added as the run goes by a workload;
//   - flow/apps: workloads for it — first-come-first-served applications,
//     closed-loop uniform traffic; `opasim flow fcfs` runs the first;
//   - flow/storage: the storage subsystem — NVM devices behind PCIe, a
//     memory cache, a SAN on its own network — as resources of the max-min
//     problem, the assignment policies Local, Internal, External and SAN,
//     and several Markov-model applications run together on it;
//   - flow/internal/iheap: the indexed heap the solver and the dynamic
//     engine use.
//
// docs/flow.md describes the data structures, the algorithms, their cost
// and the measured speed.
package flow
