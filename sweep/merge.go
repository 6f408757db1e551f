package sweep

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/opasim/opasim/fabric/sched"
	"github.com/opasim/opasim/sim"
)

// ErrRefused is wrapped by the error of a merge refused before anything
// was written: a directory that is not a shard, shards of different grids
// or of different shard counts, a shard missing or given twice, or a run
// missing, incomplete or of another config.
var ErrRefused = errors.New("merge refused")

type refusal struct{ err error }

func (r refusal) Error() string        { return r.err.Error() }
func (r refusal) Unwrap() error        { return r.err }
func (r refusal) Is(target error) bool { return target == ErrRefused }

func refuse(format string, a ...any) error { return refusal{fmt.Errorf(format, a...)} }

// maxListed is how many missing runs or differing keys a refusal names.
const maxListed = 10

// Merge combines the directories of every shard of one sweep (each the
// --out of an `opasim sweep --shard i/N`) into outDir: it copies their
// results files into outDir/runs and writes outDir/summary.csv,
// summary.json and plots/ with the code a whole sweep uses, so the files
// are those the same grid run unsharded writes. Everything is checked
// before anything is written, and a refusal wraps ErrRefused: each
// directory must hold a valid shard.json; every manifest must record the
// same grid (base config, axes and labels: the same grid_sha256) and the
// same N; each shard 0..N-1 must be given exactly once; and every point's
// results file must be in its shard's runs/, complete and of the point's
// config. schedulers are those a config may use; out and log are as for
// Runner.Run. Runs that failed their conservation check are reported as an
// error (not a refusal) after the files are written.
func Merge(dirs []string, outDir string, schedulers *sched.Registry, out, log io.Writer) error {
	if len(dirs) == 0 {
		return refuse("no shard directory given")
	}
	ms := make([]*Manifest, len(dirs))
	for i, d := range dirs {
		m, err := ReadManifest(d)
		if err != nil {
			return refusal{err}
		}
		ms[i] = m
	}
	if err := compatible(dirs, ms); err != nil {
		return err
	}
	n := ms[0].Shard.Count
	byIndex, err := everyShardOnce(dirs, ms, n)
	if err != nil {
		return err
	}
	r, err := New(ms[0].Grid.grid(), schedulers, outDir, 1, nil)
	if err != nil {
		return refuse("%s: the grid its manifest records is not valid: %w", dirs[0], err)
	}
	r.Log = log
	if err := checkShardRuns(r, byIndex, ms, dirs); err != nil {
		return err
	}
	if err := r.loadShards(byIndex, dirs); err != nil {
		return err
	}
	if err := r.copyRuns(byIndex, dirs); err != nil {
		return err
	}
	g := &r.Grid
	fmt.Fprintf(out, "merge: %d shards of %d runs (%d schedulers x %d loads x %d seeds) on %s, %s traffic; copied their run files to %s\n",
		n, len(r.Points), len(g.Schedulers), len(g.Loads), len(g.Seeds), g.Topology, g.Traffic, filepath.Join(outDir, "runs"))
	sum, err := r.aggregate(out, "")
	if err != nil {
		return err
	}
	if sum.ConservationFailed > 0 {
		return fmt.Errorf("%d runs failed the conservation check (see conservation_problems in their results files)", sum.ConservationFailed)
	}
	return nil
}

// compatible refuses manifests of different grids or shard counts, naming
// the two directories and what differs.
func compatible(dirs []string, ms []*Manifest) error {
	first := ms[0]
	for i, m := range ms[1:] {
		d := dirs[i+1]
		if m.GridSHA256 != first.GridSHA256 {
			return refuse("%s and %s are shards of different sweeps (grid_sha256 %.12s… vs %.12s…): %s",
				dirs[0], d, first.GridSHA256, m.GridSHA256, strings.Join(listed(gridDifferences(&first.Grid, &m.Grid)), "; "))
		}
		if m.Shard.Count != first.Shard.Count {
			return refuse("%s is shard %s and %s is shard %s: the shards of one sweep are cut with the same N",
				dirs[0], first.Shard, d, m.Shard)
		}
	}
	return nil
}

// everyShardOnce maps each shard index to the position of its directory
// in dirs, refusing an index given twice and naming the indices missing.
func everyShardOnce(dirs []string, ms []*Manifest, n int) ([]int, error) {
	byIndex := make([]int, n)
	for i := range byIndex {
		byIndex[i] = -1
	}
	for i, m := range ms {
		if prev := byIndex[m.Shard.Index]; prev >= 0 {
			return nil, refuse("shard %s is given twice: %s and %s", m.Shard, dirs[prev], dirs[i])
		}
		byIndex[m.Shard.Index] = i
	}
	var missing []string
	for i, at := range byIndex {
		if at < 0 {
			missing = append(missing, strconv.Itoa(i))
		}
	}
	if len(missing) > 0 {
		return nil, refuse("shards missing: %s of 0..%d: give the directory of every shard of the sweep (%d of %d given)",
			strings.Join(listed(missing), ", "), n-1, len(dirs), n)
	}
	return byIndex, nil
}

// checkShardRuns refuses a manifest whose list of runs is not what its
// shard owns of the grid (a manifest written by an opasim that cuts the
// grid another way).
func checkShardRuns(r *Runner, byIndex []int, ms []*Manifest, dirs []string) error {
	n := len(byIndex)
	if ms[0].GridRuns != len(r.Points) {
		return refuse("%s: the manifest counts %d runs, its grid has %d", dirs[0], ms[0].GridRuns, len(r.Points))
	}
	for idx, at := range byIndex {
		var want []string
		for k := idx; k < len(r.Points); k += n {
			want = append(want, r.Points[k].File())
		}
		if got := ms[at].Runs; !slices.Equal(got, want) {
			return refuse("%s: its manifest lists %d runs that are not those of shard %d/%d of its grid (%d runs)",
				dirs[at], len(got), idx, n, len(want))
		}
	}
	return nil
}

// loadShards reads every point's results from its shard's runs/, refusing
// when any is missing or unusable.
func (s *Runner) loadShards(byIndex []int, dirs []string) error {
	n := len(byIndex)
	s.results = make([]*sim.Results, len(s.Points))
	var problems []string
	bad := 0
	for k := range s.Points {
		p := &s.Points[k]
		d := dirs[byIndex[k%n]]
		res, found := loadRun(filepath.Join(d, "runs", p.File()), p)
		switch {
		case res != nil:
			s.results[k] = res
			continue
		case found:
			problems = append(problems, fmt.Sprintf("%s is incomplete, unreadable or of another config", filepath.Join(d, "runs", p.File())))
		default:
			problems = append(problems, fmt.Sprintf("%s is missing", filepath.Join(d, "runs", p.File())))
		}
		bad++
	}
	if bad > 0 {
		return refuse("%d of the %d runs cannot be used, so the summary would not be the sweep's: %s; "+
			"run the same opasim sweep --shard command again for each shard named, to finish it",
			bad, len(s.Points), strings.Join(listed(problems), "; "))
	}
	return nil
}

// copyRuns copies every point's results file, byte for byte, into
// s.Dir/runs, so the merged directory is laid out as an unsharded sweep's
// (and the same sweep run there unsharded reuses every run).
func (s *Runner) copyRuns(byIndex []int, dirs []string) error {
	if err := os.MkdirAll(filepath.Join(s.Dir, "runs"), 0o755); err != nil {
		return err
	}
	n := len(byIndex)
	for k := range s.Points {
		name := s.Points[k].File()
		src := filepath.Join(dirs[byIndex[k%n]], "runs", name)
		dst := filepath.Join(s.Dir, "runs", name)
		if same(src, dst) {
			continue
		}
		data, err := os.ReadFile(src)
		if err != nil {
			return err
		}
		if err := writeFileAtomic(dst, data); err != nil {
			return err
		}
	}
	return nil
}

// same reports whether two paths are one file (a merge into a shard's own
// directory).
func same(a, b string) bool {
	sa, err := os.Stat(a)
	if err != nil {
		return false
	}
	sb, err := os.Stat(b)
	return err == nil && os.SameFile(sa, sb)
}

// listed keeps the first maxListed items and says how many more there are.
func listed(items []string) []string {
	if len(items) <= maxListed {
		return items
	}
	return append(slices.Clip(items[:maxListed]), fmt.Sprintf("and %d more", len(items)-maxListed))
}
