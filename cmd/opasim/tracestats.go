package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/google/renameio/v2"
	"github.com/spf13/cobra"

	"github.com/opasim/opasim/clock"
	"github.com/opasim/opasim/workloads/collective"
	tracereplay "github.com/opasim/opasim/workloads/replay"
	"github.com/opasim/opasim/workloads/vef"
)

// Critical paths are computed as the cycle-level replay sees a trace:
// 8-byte flits, a cycle of 0.64 ns, and 166 cycles from a message's last
// flit leaving its NIC to its arrival (link latency plus a header's time
// through one switch, with the default latencies; docs/traces.md).
const (
	statsBytesPerFlit = 8
	statsCycleNS      = 0.64
	statsLatency      = 166
)

// traceStats is what trace stats measures of one trace.
type traceStats struct {
	File        string           `json:"file"`
	Tasks       int              `json:"tasks"`
	Messages    int64            `json:"messages"`
	Bytes       int64            `json:"message_bytes"`
	Collectives map[string]int64 `json:"collectives_by_op"`
	// sizes of the point-to-point messages: by count, and the size below
	// which half the bytes go
	SizeP10, SizeP50, SizeP90, SizeP99, SizeMax int64
	SizeByteMedian                              int64 `json:"size_byte_median"`
	// bytes each task sends through the network: its messages and its
	// share of its collectives, lowered as the replay does
	SentMin, SentMean, SentMax float64
	// computation of each task: the sum of its records' delays
	ComputeMeanNS, ComputeMaxNS float64
	// the critical path on an ideal network (a lower bound of the
	// replay's execution time), and how much of it is computation
	CriticalPathNS float64 `json:"critical_path_ns"`
}

func newTraceStatsCmd() *cobra.Command {
	var jsonOut string
	cmd := &cobra.Command{
		Use:   "stats TRACE...",
		Short: "Measure VEF traces: message sizes, bytes a task sends, computation, critical path",
		Long: "For each trace: its tasks, messages and bytes; the distribution of its message sizes (percentiles\n" +
			"by count, and the size below which half the bytes go); the bytes each task sends through the network\n" +
			"(its messages and its share of its collectives, lowered with the replay's default algorithms); the\n" +
			"computation of each task (the sum of its records' delays); and its critical path on an ideal network\n" +
			"(8-byte flits of 0.64 ns, 166 cycles from a message's last flit to its arrival, no contention): a\n" +
			"lower bound of its execution time in `opasim run`.",
		Example: "  opasim trace stats hpl.vef.gz ra.vef.gz --json stats.json",
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return badInput(errors.New("trace stats takes one or more trace files"))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			var all []traceStats
			for _, path := range args {
				s, err := measureTrace(path)
				if err != nil {
					return fmt.Errorf("trace stats: %s: %w", path, err)
				}
				all = append(all, s)
				printStats(cmd.OutOrStdout(), s)
			}
			if jsonOut != "" {
				b, _ := json.MarshalIndent(all, "", "  ")
				if err := renameio.WriteFile(jsonOut, append(b, '\n'), 0o644); err != nil {
					return fmt.Errorf("--json: %w", err)
				}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&jsonOut, "json", "", "also write the figures as JSON to this `FILE`")
	return cmd
}

func printStats(w io.Writer, s traceStats) {
	var ops []string
	for _, op := range vef.OpNames() {
		if n := s.Collectives[op]; n > 0 {
			ops = append(ops, fmt.Sprintf("%d %s", n, op))
		}
	}
	if len(ops) == 0 {
		ops = []string{"none"}
	}
	fmt.Fprintf(w, "%s: %d tasks, %d messages, %d bytes; collectives: %s\n", s.File, s.Tasks, s.Messages, s.Bytes, strings.Join(ops, ", "))
	fmt.Fprintf(w, "  message sizes (bytes): p10 %d, p50 %d, p90 %d, p99 %d, max %d; half the bytes in messages under %d\n",
		s.SizeP10, s.SizeP50, s.SizeP90, s.SizeP99, s.SizeMax, s.SizeByteMedian)
	fmt.Fprintf(w, "  sent a task (bytes): min %.0f, mean %.0f, max %.0f\n", s.SentMin, s.SentMean, s.SentMax)
	fmt.Fprintf(w, "  computation a task: mean %.3f ms, max %.3f ms; critical path on an ideal network %.3f ms\n",
		s.ComputeMeanNS/1e6, s.ComputeMaxNS/1e6, s.CriticalPathNS/1e6)
}

// measureTrace reads the trace at path once for its figures, then
// replays it on an ideal network for its critical path.
func measureTrace(path string) (traceStats, error) {
	rd, err := vef.Open(path)
	if err != nil {
		return traceStats{}, err
	}
	defer rd.Close()
	h := rd.Header()
	s := traceStats{File: path, Tasks: h.Tasks, Collectives: map[string]int64{}}
	sent, compute, sizes, err := tallyTrace(rd, &s)
	if err != nil {
		return s, err
	}
	s.setSizes(sizes)
	s.setTasks(sent, compute)
	cp, err := criticalPathNS(path, h.Tasks)
	if err != nil {
		return s, err
	}
	s.CriticalPathNS = cp
	return s, nil
}

// openCollective is a collective whose parts are being read: its spec,
// its tasks and how many of its parts were read.
type openCollective struct {
	spec  collective.Spec
	tasks []int
	parts int
}

// tallyTrace reads rd's records, counting the messages and collectives in
// s; it returns the bytes each task sends through the network, the
// computation of each, and the messages' sizes.
func tallyTrace(rd *vef.Reader, s *traceStats) (sent, compute, sizes []int64, err error) {
	h := rd.Header()
	sent = make([]int64, h.Tasks)
	compute = make([]int64, h.Tasks)
	colls := map[int64]*openCollective{}
	for {
		rec, err := rd.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, nil, nil, err
		}
		if rec.Kind == vef.KindMessage {
			m := rec.Message
			s.Messages++
			s.Bytes += m.Bytes
			sizes = append(sizes, m.Bytes)
			if m.Src != m.Dst {
				sent[m.Src] += m.Bytes
			}
			compute[m.Src] += m.Dep.TimeNS
			continue
		}
		tallyPart(h, rec.Part, colls, sent, compute, s)
	}
	return sent, compute, sizes, nil
}

// tallyPart counts the collective part p: its computation, and, once its
// collective's last part is read, the bytes each of its tasks sends,
// lowered as the replay does.
func tallyPart(h vef.Header, p vef.Part, colls map[int64]*openCollective, sent, compute []int64, s *traceStats) {
	compute[p.Task] += p.Dep.TimeNS
	tasks := h.Communicators[p.Comm].Tasks
	c := colls[p.GID]
	if c == nil {
		c = &openCollective{spec: collective.Spec{Op: p.Op, Size: len(tasks), SendBytes: make([]int64, len(tasks)), RecvBytes: make([]int64, len(tasks))}, tasks: tasks}
		colls[p.GID] = c
		s.Collectives[p.Op.String()]++
	}
	rank := slices.Index(tasks, p.Task)
	c.spec.SendBytes[rank], c.spec.RecvBytes[rank] = p.SendBytes, p.RecvBytes
	if (p.Op == vef.Broadcast || p.Op == vef.Scatter) && p.SendBytes != 0 || (p.Op == vef.Reduce || p.Op == vef.Gather) && p.RecvBytes != 0 {
		c.spec.Root = rank
	}
	if c.parts++; c.parts == len(tasks) {
		for r, task := range tasks {
			for _, round := range c.spec.Part(r, nil) {
				if round.Send != nil {
					sent[task] += round.Send.Bytes
				}
			}
		}
		delete(colls, p.GID)
	}
}

// setSizes sets the percentiles of the messages' sizes, and the size
// below which half the bytes go.
func (s *traceStats) setSizes(sizes []int64) {
	if len(sizes) == 0 {
		return
	}
	slices.Sort(sizes)
	at := func(q float64) int64 { return sizes[min(len(sizes)-1, int(q*float64(len(sizes))))] }
	s.SizeP10, s.SizeP50, s.SizeP90, s.SizeP99, s.SizeMax = at(0.1), at(0.5), at(0.9), at(0.99), sizes[len(sizes)-1]
	var acc int64
	for _, b := range sizes {
		if acc += b; 2*acc >= s.Bytes {
			s.SizeByteMedian = b
			break
		}
	}
}

// setTasks sets the figures of the bytes each task sends and of its
// computation.
func (s *traceStats) setTasks(sent, compute []int64) {
	s.SentMin, s.SentMax = float64(slices.Min(sent)), float64(slices.Max(sent))
	var total, ctotal int64
	for i := range sent {
		total += sent[i]
		ctotal += compute[i]
	}
	s.SentMean = float64(total) / float64(s.Tasks)
	s.ComputeMeanNS, s.ComputeMaxNS = float64(ctotal)/float64(s.Tasks), float64(slices.Max(compute))
}

// criticalPathNS replays the trace at path, of tasks tasks, on an ideal
// network: its critical path, in ns.
func criticalPathNS(path string, tasks int) (float64, error) {
	res, err := tracereplay.CriticalPath(func() (*vef.Reader, error) { return vef.Open(path) },
		tracereplay.Options{NICs: tasks, BytesPerFlit: statsBytesPerFlit,
			CyclesOf: func(ns int64) clock.Cycle { return clock.Cycle((ns*25 + 15) / 16) }}, statsLatency, 1<<50)
	if err != nil {
		return 0, err
	}
	if !res.Finished {
		return 0, errors.New("its replay on an ideal network did not finish: a record waits on something that never happens")
	}
	return float64(res.ExecutionCycle) * statsCycleNS, nil
}
