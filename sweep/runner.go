package sweep

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"

	"github.com/google/renameio/v2"

	"github.com/opasim/opasim/fabric"
	"github.com/opasim/opasim/fabric/sched"
	"github.com/opasim/opasim/sim"
)

// SimulateFunc runs one config to the end (or until ctx is cancelled, then
// with Results.Interrupted set). The runner calls it from several
// goroutines at once.
type SimulateFunc func(ctx context.Context, cfg fabric.Config) (*sim.Results, error)

// Runner runs the points of a grid that have no stored result, Jobs at a
// time, into Dir/runs, and aggregates them into Dir/summary.{csv,json} and
// Dir/plots.
type Runner struct {
	Grid     Grid
	Points   []Point
	Dir      string
	Jobs     int
	Simulate SimulateFunc
	Log      io.Writer   // one line per finished run, and plot warnings
	OnRun    func(Point) // called after a run is stored; a test hook
	// Started, if set, is told how many runs Run is about to make (the
	// points of its shard without a stored result) before the first.
	Started func(runs int)
	// Shard, when its Count is not 0, limits the runs to the points the
	// shard owns; Run then writes Dir/shard.json instead of the summary and
	// the plots, for Merge to combine with the other shards.
	Shard Shard

	mu          sync.Mutex
	results     []*sim.Results // by point; nil: not (yet) available
	ran         int
	interrupted bool // Run's context ended before every run was stored
}

// New checks the grid and lists its points; nothing runs yet. schedulers
// are the schedulers a config may use.
func New(g Grid, schedulers *sched.Registry, dir string, jobs int, sim SimulateFunc) (*Runner, error) {
	if jobs < 1 {
		return nil, fmt.Errorf("%d jobs are not allowed: must be at least 1", jobs)
	}
	points, err := g.Points(schedulers)
	if err != nil {
		return nil, err
	}
	return &Runner{Grid: g, Points: points, Dir: dir, Jobs: jobs, Simulate: sim, Log: io.Discard}, nil
}

// counts says where the results came from.
type counts struct {
	total, reused, stale int
}

// Run reuses the stored runs, runs the others, writes the summary and the
// plots, and reports on out. An interruption, a failed run or a failed
// conservation check is returned after the summary is written. A shard
// (s.Shard) runs only its own points and writes its manifest instead of the
// summary and the plots.
func (s *Runner) Run(ctx context.Context, out io.Writer) error {
	if sh := s.Shard; sh != (Shard{}) && (sh.Count < 1 || sh.Index < 0 || sh.Index >= sh.Count) {
		return fmt.Errorf("shard %s is not allowed: must be i/N with N >= 1 and i in [0, N-1]", sh)
	}
	if err := os.MkdirAll(filepath.Join(s.Dir, "runs"), 0o755); err != nil {
		return err
	}
	if s.sharded() {
		if err := s.writeManifest(); err != nil {
			return err
		}
	}
	todo, c := s.loadStored()
	g := &s.Grid
	if s.sharded() {
		fmt.Fprintf(out, "sweep shard %s: %d of the %d runs (%d schedulers x %d loads x %d seeds) on %s, %s traffic; reused %d of %d",
			s.Shard, c.total, len(s.Points), len(g.Schedulers), len(g.Loads), len(g.Seeds), g.Topology, g.Traffic, c.reused, c.total)
	} else {
		fmt.Fprintf(out, "sweep: %d runs (%d schedulers x %d loads x %d seeds) on %s, %s traffic; reused %d of %d",
			c.total, len(g.Schedulers), len(g.Loads), len(g.Seeds), g.Topology, g.Traffic, c.reused, c.total)
	}
	if c.stale > 0 {
		fmt.Fprintf(out, "; %d stored runs are of another config or incomplete and will be rerun", c.stale)
	}
	if len(todo) == 0 {
		fmt.Fprintln(out, "; nothing to run")
	} else {
		fmt.Fprintf(out, "; running %d with %d jobs\n", len(todo), min(s.Jobs, len(todo)))
	}
	if s.Started != nil {
		s.Started(len(todo))
	}
	runErr := s.runAll(ctx, todo)
	s.interrupted = ctx.Err() != nil
	if s.sharded() {
		return s.finishShard(ctx, out, runErr, c.total)
	}
	sum, err := s.aggregate(out, fmt.Sprintf("ran %d; ", s.ran))
	if err != nil {
		return errors.Join(runErr, err)
	}
	return s.finish(ctx, runErr, sum)
}

// aggregate writes the summary and the plots of the runs available now,
// and says so on out after prefix. Run and Merge share it, so a merged
// sweep's files are those of an unsharded one.
func (s *Runner) aggregate(out io.Writer, prefix string) (*Summary, error) {
	sum := s.summary()
	if err := WriteSummary(s.Dir, sum); err != nil {
		return nil, err
	}
	fmt.Fprintf(out, "%swrote %s and %s from %d of %d runs\n", prefix,
		filepath.Join(s.Dir, "summary.csv"), filepath.Join(s.Dir, "summary.json"), sum.RunsFound, sum.RunsExpected)
	if len(s.Grid.Seeds) == 1 {
		fmt.Fprintln(out, "one seed per point: the 95% confidence intervals are undefined (empty in summary.csv, null in summary.json)")
	}
	return sum, WritePlots(out, s.Log, s.Dir, sum)
}

// finish turns an interruption or failed conservation checks into the
// command's error, after the aggregate has been written.
func (s *Runner) finish(ctx context.Context, runErr error, sum *Summary) error {
	if runErr != nil {
		return runErr
	}
	if ctx.Err() != nil {
		return fmt.Errorf("interrupted: %d of %d runs are stored; run the same command again to resume", sum.RunsFound, sum.RunsExpected)
	}
	if sum.ConservationFailed > 0 {
		return fmt.Errorf("%d runs failed the conservation check (see conservation_problems in their results files)", sum.ConservationFailed)
	}
	return nil
}

// loadStored takes every run whose results file exists, parses, covers the
// whole run and was made from this point's config; it returns the others.
func (s *Runner) loadStored() (todo []int, c counts) {
	s.results = make([]*sim.Results, len(s.Points))
	for i := range s.Points {
		if !s.owns(i) {
			continue
		}
		c.total++
		p := &s.Points[i]
		r, found := loadRun(filepath.Join(s.Dir, "runs", p.File()), p)
		switch {
		case r != nil:
			s.results[i] = r
			c.reused++
		case found:
			c.stale++
			todo = append(todo, i)
		default:
			todo = append(todo, i)
		}
	}
	return todo, c
}

// loadRun returns the stored results of p, or nil (and whether a file was
// there) when the file is missing, unreadable, incomplete or of another
// config.
func loadRun(path string, p *Point) (*sim.Results, bool) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, false
	}
	return parseRun(data, p), true
}

// parseRun returns the results in data if they cover the whole run of p's
// config, nil otherwise.
func parseRun(data []byte, p *Point) *sim.Results {
	var r sim.Results
	if json.Unmarshal(data, &r) != nil || r.Interrupted || r.SimulatedCycles != p.Config.Cycles {
		return nil
	}
	stored, err := json.Marshal(r.Config)
	if err != nil || !bytes.Equal(stored, p.cfgJSON) {
		return nil
	}
	return &r
}

// runAll runs the points of todo on s.Jobs workers. A cancelled ctx stops
// the workers: runs in flight are abandoned (their partial results are not
// stored), finished ones stay on disk. The first run that fails stops the
// sweep and is returned.
func (s *Runner) runAll(ctx context.Context, todo []int) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	feed := make(chan int)
	go func() {
		defer close(feed)
		for _, i := range todo {
			select {
			case feed <- i:
			case <-ctx.Done():
				return
			}
		}
	}()
	var wg sync.WaitGroup
	for range min(s.Jobs, len(todo)) {
		wg.Go(func() {
			for i := range feed {
				if err := s.runOne(ctx, i, len(todo)); err != nil {
					cancel(err)
				}
			}
		})
	}
	wg.Wait()
	if err := context.Cause(ctx); err != nil && !errors.Is(err, context.Canceled) {
		return err
	}
	return nil
}

func (s *Runner) runOne(ctx context.Context, i, of int) error {
	if ctx.Err() != nil {
		return nil
	}
	p := &s.Points[i]
	r, err := s.Simulate(ctx, p.Config)
	if err != nil {
		return fmt.Errorf("%s: %w", p.File(), err)
	}
	if r.Interrupted {
		return nil
	}
	r.Links = r.Links.ClassesOnly() // a sweep keeps each run's link classes, not every link
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	if err := writeFileAtomic(filepath.Join(s.Dir, "runs", p.File()), append(data, '\n')); err != nil {
		return err
	}
	s.mu.Lock()
	s.results[i] = r
	s.ran++
	fmt.Fprintf(s.Log, "[%d/%d] %s load %s seed %d: accepted %.4f flits/cycle/NIC, mean latency %.1f ns, %.1f s\n",
		s.ran, of, p.Scheduler, FormatLoad(p.Load), p.Seed, r.AcceptedThroughput, r.Latency.MeanNs, r.WallSeconds)
	s.mu.Unlock()
	if s.OnRun != nil {
		s.OnRun(*p)
	}
	return nil
}

// writeFileAtomic writes data to a temporary file next to path and renames
// it into place, so a reader (or a resumed sweep) never sees half a file.
func writeFileAtomic(path string, data []byte) error { return renameio.WriteFile(path, data, 0o644) }
