// Command flowapps runs the dynamic flow engine's FCFS application
// workload (flow/apps) on a k-ary n-tree with d-mod-k routing and prints
// the makespan, the applications' waiting times and runtimes, the
// engine's counters and the wall time.
//
//	go run ./flow/cmd/flowapps -apps 200
//	go run ./flow/cmd/flowapps -apps 1000 -csv apps.csv
//
// Defaults are the reference workload: a 16-ary 3-tree (4,096 servers),
// applications of 64 tasks exchanging all-to-all flows of size 8192, one
// arriving every 7 time units.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/opasim/opasim/flow/apps"
	"github.com/opasim/opasim/flow/dynamic"
	"github.com/opasim/opasim/flow/graph"
	"github.com/opasim/opasim/flow/route"
)

func main() {
	k := flag.Int("k", 16, "tree arity")
	n := flag.Int("n", 3, "tree levels")
	cfg := apps.FCFSConfig{}
	flag.IntVar(&cfg.Apps, "apps", 200, "applications")
	flag.IntVar(&cfg.Tasks, "tasks", 64, "tasks per application")
	flag.Float64Var(&cfg.FlowSize, "size", 8192, "flow size (link capacity 1)")
	flag.Float64Var(&cfg.Interval, "interval", 7, "time between arrivals")
	csv := flag.String("csv", "", "write one line per application to this file")
	flag.Parse()
	if err := run(*k, *n, cfg, *csv); err != nil {
		fmt.Fprintln(os.Stderr, "flowapps:", err)
		os.Exit(1)
	}
}

func run(k, n int, cfg apps.FCFSConfig, csv string) error {
	tr, err := graph.NewTree(k, n, 1)
	if err != nil {
		return err
	}
	t0 := time.Now()
	rep, err := apps.RunFCFS(route.NewDModK(tr), cfg, dynamic.Options{})
	if err != nil {
		return err
	}
	wall := time.Since(t0)
	s := apps.Summarize(rep.Apps)
	fmt.Printf("network      %d-ary %d-tree, %d servers, d-mod-k\n", k, n, tr.NumServers())
	fmt.Printf("workload     %d applications of %d tasks, all-to-all flows of %g, one every %g\n", cfg.Apps, cfg.Tasks, cfg.FlowSize, cfg.Interval)
	fmt.Printf("flows        %d\n", rep.Flows)
	fmt.Printf("makespan     %.10g\n", rep.Makespan)
	fmt.Printf("waiting      min %.10g  mean %.10g  max %.10g\n", s.MinWait, s.MeanWait, s.MaxWait)
	fmt.Printf("runtime      min %.10g  mean %.10g  max %.10g\n", s.MinRuntime, s.MeanRuntime, s.MaxRuntime)
	fmt.Printf("unfinished   %d applications\n", s.Unfinished)
	st := rep.Stats
	fmt.Printf("engine       %d batches, %d rates recomputed, %d changed, at most %d active flows\n", st.Batches, st.Resolved, st.Changed, st.MaxActive)
	fmt.Printf("wall time    %.3f s\n", wall.Seconds())
	if csv == "" {
		return nil
	}
	f, err := os.Create(csv)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	fmt.Fprintln(w, "app,first_server,arrival,start,finish,wait,runtime")
	for i, a := range rep.Apps {
		fmt.Fprintf(w, "%d,%d,%.17g,%.17g,%.17g,%.17g,%.17g\n", i, a.First, a.Arrival, a.Start, a.Finish, a.Wait(), a.Runtime())
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
