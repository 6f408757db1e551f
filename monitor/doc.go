// Package monitor watches a run while it goes on: live Prometheus metrics
// (Metrics, a sim.Observer and a prometheus.Collector, made for one
// built network), their HTTP page (ServeMetrics) and continuous profiles
// pushed to a Pyroscope server (StartProfiling).
//
// The engines call a Metrics only through the sim.Observer hooks
// (GroupDone, WindowDone); it reads the model only through
// fabric.Network.Snapshot during GroupDone, and a scrape reads only the
// copies the groups made, never the model.
//
// Imports: clock, fabric, client_golang and pyroscope-go. It is the only
// library package that imports them; the command line (cmd/opasim) also
// imports client_golang, to label a run's series (prometheus.Labels, in
// observe.go and distrib.go), and nothing else imports pyroscope-go. It
// does not import the actor engine (its tests do, to compare both
// engines' metrics).
package monitor
