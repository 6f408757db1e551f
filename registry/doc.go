// Package registry is the one name-to-entry registry of opasim: output
// schedulers (fabric/sched), routings (fabric/topo), allocators (fabric)
// and traffic patterns (workloads) are each a Registry of their own entry
// type. As in the Kubernetes scheduler's plug-in registry, a registry is
// built explicitly, registering a taken name is an error, and an unknown
// name is an error that lists the known ones.
//
// Imports: nothing of opasim's. No goroutines, no RNG.
package registry
