package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"time"

	"github.com/opasim/opasim/sim"
)

// childReport is what a child process of `opasim bench` prints: the
// figures of its one run, and with --project the per-window costs.
type childReport struct {
	CyclesPerSecond float64    `json:"cycles_per_second"`
	FlitsPerSecond  float64    `json:"flits_per_second"`
	WallSeconds     float64    `json:"wall_seconds"`
	Digest          string     `json:"digest"`
	Partitions      int        `json:"partitions"`
	TotalNs         int64      `json:"total_ns"`
	Windows         [][2]int64 `json:"windows,omitempty"` // per window: the groups' sum and largest, ns
}

// benchChild runs o.child once on o's one engine, at the GOMAXPROCS of its
// environment, and prints its report.
func benchChild(ctx context.Context, w io.Writer, o benchOptions) error {
	for _, sc := range scenarios() {
		if sc.name != o.child {
			continue
		}
		r, err := benchOnce(ctx, sc, o.engines[0], o)
		if err != nil {
			return err
		}
		rep := childReport{CyclesPerSecond: r.res.CyclesPerSecond, FlitsPerSecond: r.res.FlitsPerSecond,
			WallSeconds: r.res.WallSeconds, Digest: r.res.Digest, Partitions: r.res.Partitions, TotalNs: int64(r.total)}
		if r.proj != nil {
			for _, c := range r.proj.windows {
				rep.Windows = append(rep.Windows, [2]int64{int64(c.sum), int64(c.largest)})
			}
		}
		return json.NewEncoder(w).Encode(rep)
	}
	return fmt.Errorf("--child: %q is no scenario", o.child)
}

// benchProcess runs one point of a scenario as a process of its own (this
// binary) and times it from its start to its exit.
func benchProcess(ctx context.Context, sc scenario, pt benchPoint, o benchOptions) (benchRun, error) {
	exe, err := os.Executable()
	if err != nil {
		return benchRun{}, err
	}
	args := []string{"bench", "--child", sc.name, "--engines", pt.engine, "--cycles", strconv.FormatInt(o.cycles, 10)}
	if o.metrics {
		args = append(args, "--metrics")
	}
	if o.project && pt.engine == "actors" {
		args = append(args, "--project")
	}
	cmd := exec.Command(exe, args...)
	cmd.Env = append(os.Environ(), "GOMAXPROCS="+strconv.Itoa(pt.procs))
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return benchRun{}, err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err = <-done:
	case <-ctx.Done():
		_ = cmd.Process.Kill()
		<-done
		return benchRun{}, nil
	}
	process := time.Since(start)
	if ctx.Err() != nil {
		return benchRun{}, nil // interrupted: the child was too
	}
	if err != nil {
		return benchRun{}, fmt.Errorf("bench run of %q on %s at GOMAXPROCS %d: %v: %s", sc.name, pt.engine, pt.procs, err, errOut.String())
	}
	var rep childReport
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		return benchRun{}, fmt.Errorf("bench run of %q: unreadable report: %v", sc.name, err)
	}
	r := benchRun{res: &sim.Results{CyclesPerSecond: rep.CyclesPerSecond, FlitsPerSecond: rep.FlitsPerSecond,
		WallSeconds: rep.WallSeconds, Digest: rep.Digest, Partitions: rep.Partitions},
		total: time.Duration(rep.TotalNs), process: process}
	if o.project && pt.engine == "actors" {
		r.proj = &projector{}
		for _, c := range rep.Windows {
			r.proj.windows = append(r.proj.windows, windowCost{time.Duration(c[0]), time.Duration(c[1])})
		}
	}
	return r, nil
}
