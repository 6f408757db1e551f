package sim

import (
	"bufio"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"

	"github.com/opasim/opasim/clock"
	"github.com/opasim/opasim/fabric"
	"github.com/opasim/opasim/strictyaml"
	"github.com/opasim/opasim/workloads/replay"
	"github.com/opasim/opasim/workloads/vef"
)

// TraceResult is what a trace replay measured (docs/traces.md).
type TraceResult struct {
	File     string `json:"file"`
	Tasks    int    `json:"tasks"`
	Finished bool   `json:"finished"` // every task ended
	// Stalled: the replay could not go on (every task left waited on
	// something that cannot happen); Blocking says on what.
	Stalled  bool     `json:"stalled"`
	Blocking []string `json:"blocking,omitempty"`
	// ExecutionCycles is the cycle the last task ended in: the
	// application's execution time (valid when Finished).
	ExecutionCycles int64          `json:"execution_cycles"`
	ExecutionNs     float64        `json:"execution_ns"`
	TaskEndCycles   []int64        `json:"task_end_cycles"` // per task; -1: it did not end
	Messages        int64          `json:"messages"`        // trace messages delivered (point to point and of collectives)
	Flits           int64          `json:"flits"`           // flits of the trace messages sent
	Records         int64          `json:"records"`         // trace records read
	Latency         LatencySummary `json:"latency"`         // of the trace messages, generation to delivery
}

// buildTrace prepares the replay of the trace cfg.Trace names: it checks
// the whole trace and places its tasks. Errors name trace.file or the key
// at fault.
func buildTrace(cfg *fabric.Config) (*replay.Replay, error) {
	tr := &cfg.Trace
	open := func() (*vef.Reader, error) { return vef.OpenLimit(tr.File, tr.MaxInflated()) }
	rd, err := open()
	if err != nil {
		return nil, fmt.Errorf("trace.file: %w%s", err, inflateHint(err))
	}
	tasks := rd.Header().Tasks
	_ = rd.Close()
	nics := cfg.NumNICs()
	mapping, err := placeTasks(cfg, tasks, nics)
	if err != nil {
		return nil, err
	}
	opt := replay.Options{NICs: nics, Mapping: mapping, SL: tr.SL, BytesPerFlit: cfg.Switch.BytesPerFlit,
		CyclesOf: nsToCycles(cfg.Switch.BytesPerFlit), Algorithms: map[vef.Op]string{}}
	for name, alg := range tr.Collectives {
		op, _ := vef.OpNamed(name) // validated
		opt.Algorithms[op] = alg
	}
	r, err := replay.New(open, opt)
	if err != nil {
		return nil, fmt.Errorf("trace.file %s: %w%s", tr.File, err, inflateHint(err))
	}
	return r, nil
}

// inflateHint names the key that raises the limit a gzip trace went past.
func inflateHint(err error) string {
	if !errors.Is(err, vef.ErrInflateLimit) {
		return ""
	}
	return fmt.Sprintf(" (trace.max_inflated_mb, in MiB, raises it up to %d)", fabric.MaxInflatedMBLimit)
}

// nsToCycles converts ns to cycles of bytesPerFlit bytes at 12.5 GB/s,
// rounded up: ⌈ns·12.5/bytesPerFlit⌉, exactly, in integers.
func nsToCycles(bytesPerFlit int) func(int64) clock.Cycle {
	den := int64(2 * bytesPerFlit)
	return func(ns int64) clock.Cycle {
		if ns > math.MaxInt64/25 {
			return clock.Never / 2
		}
		return clock.Cycle((ns*25 + den - 1) / den)
	}
}

// placeTasks is the NIC of each task as trace.mapping says: linear, ⌈tasks
// / NICs⌉ consecutive tasks a NIC (replay.Linear); random, the same blocks
// of a permutation of the tasks drawn from the run's seed; or the file's.
func placeTasks(cfg *fabric.Config, tasks, nics int) ([]int, error) {
	switch cfg.Trace.Mapping {
	case fabric.MappingRandom:
		block := replay.Linear(tasks, nics)
		m := make([]int, tasks)
		for i, task := range rand.New(rand.NewPCG(cfg.Seed, 0x7a5c)).Perm(tasks) {
			m[task] = block[i]
		}
		return m, nil
	case fabric.MappingFile:
		return readMapping(cfg.Trace.MappingFile, tasks, nics)
	}
	return replay.Linear(tasks, nics), nil
}

// maxMappingBytes bounds a mapping file: a million tasks fit.
const maxMappingBytes = 64 << 20

// readMapping reads a mapping file: the NIC of task 0, 1, … as integers
// separated by white space.
func readMapping(path string, tasks, nics int) ([]int, error) {
	f, err := strictyaml.OpenRegular(path, maxMappingBytes)
	if err != nil {
		return nil, fmt.Errorf("trace.mapping_file: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Split(bufio.ScanWords)
	var m []int
	for sc.Scan() {
		w := sc.Text()
		nic, err := strconv.Atoi(w)
		switch {
		case err != nil || nic < 0 || nic >= nics:
			return nil, fmt.Errorf("trace.mapping_file %s: task %d: NIC %q: must be an integer in [0, %d)", path, len(m), w, nics)
		case len(m) == tasks:
			return nil, fmt.Errorf("trace.mapping_file %s: more NICs than the trace's %d tasks", path, tasks)
		}
		m = append(m, nic)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("trace.mapping_file %s: %w", path, err)
	}
	if len(m) != tasks {
		return nil, fmt.Errorf("trace.mapping_file %s: %d NICs for the trace's %d tasks", path, len(m), tasks)
	}
	return m, nil
}

// traceResult measures the replay of n's trace, nil when it has none.
func traceResult(n *fabric.Network, o Outcome, cycleNs float64) *TraceResult {
	rep, ok := n.Workload.(*replay.Replay)
	if !ok {
		return nil
	}
	res := rep.Results()
	t := &TraceResult{File: n.Config.Trace.File, Tasks: res.Tasks, Finished: res.Finished, Stalled: o.Stalled, Blocking: o.StallDetail,
		TaskEndCycles: res.TaskEnds, Messages: res.Messages, Flits: res.Flits, Records: res.Records}
	if res.Finished {
		t.ExecutionCycles = int64(res.ExecutionCycle)
		t.ExecutionNs = float64(res.ExecutionCycle) * cycleNs
	}
	h := res.Latency
	t.Latency = summarize(h, int64(math.Round(h.Mean()*float64(h.TotalCount()))), h.TotalCount(), cycleNs)
	return t
}
