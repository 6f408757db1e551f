package sweep

// Sharding: a grid cut into N deterministic slices, each run on its own
// (a batch system's array job, a Kubernetes Indexed Job), and the merge of
// their outputs into the files an unsharded sweep writes.

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/opasim/opasim/fabric"
)

// Shard is slice Index of Count of a grid. Index is 0-based, in
// [0, Count), like a Kubernetes Indexed Job's completion index. Point k of
// the grid, in grid order (scheduler, then load, then seed), belongs to
// shard k mod Count: every point to exactly one shard, the shards' sizes
// differ by at most one, and each shard's runs are spread over the
// schedulers and loads rather than a block of the slow high loads.
type Shard struct {
	Index int `json:"index"`
	Count int `json:"count"`
}

// String is the form --shard takes: "i/N".
func (sh Shard) String() string { return fmt.Sprintf("%d/%d", sh.Index, sh.Count) }

// Owns reports whether point k (its index in grid order) is the shard's.
// The zero Shard (Count 0) is the whole grid.
func (sh Shard) Owns(k int) bool { return sh.Count == 0 || k%sh.Count == sh.Index }

// ParseShard reads "i/N" for a grid of size runs: N in [1, size] (a
// shard with no run is refused) and the 0-based i in [0, N-1].
func ParseShard(s string, size int) (Shard, error) {
	form := fmt.Sprintf("must be i/N: N shards in [1, %d] (the grid's runs), i the 0-based shard in [0, N-1]", size)
	a, b, ok := strings.Cut(strings.TrimSpace(s), "/")
	i, errI := strconv.Atoi(a)
	n, errN := strconv.Atoi(b)
	switch {
	case !ok || errI != nil || errN != nil:
		return Shard{}, fmt.Errorf("%q is not allowed: %s", s, form)
	case n < 1 || n > size:
		return Shard{}, fmt.Errorf("%q is not allowed: N = %d must be in [1, %d], the grid's runs (%s)", s, n, size, form)
	case i < 0 || i >= n:
		return Shard{}, fmt.Errorf("%q is not allowed: i = %d must be in [0, %d]: shards are numbered from 0 (%s)", s, i, n-1, form)
	}
	return Shard{Index: i, Count: n}, nil
}

// ManifestFile is the name of a shard's manifest in its directory.
const ManifestFile = "shard.json"

// manifestFormat names the manifest's layout; Merge refuses another.
const manifestFormat = "opasim sweep shard v1"

// Manifest is a shard's shard.json: the whole grid (its base config in
// full, its axes and labels) and its SHA-256, which shard this is, and the
// results files the shard owns. Merge checks the shards against each other
// with it and rebuilds the grid from it.
type Manifest struct {
	Format     string       `json:"format"`
	Shard      Shard        `json:"shard"`
	GridSHA256 string       `json:"grid_sha256"` // of the JSON form of Grid
	Grid       ManifestGrid `json:"grid"`
	GridRuns   int          `json:"grid_runs"`
	Runs       []string     `json:"runs"` // the shard's results files in runs/, in grid order
}

// ManifestGrid is a Grid as the manifest records it.
type ManifestGrid struct {
	Topology   string        `json:"topology"`
	Traffic    string        `json:"traffic"`
	Schedulers []string      `json:"schedulers"`
	Loads      []float64     `json:"loads"`
	Seeds      []uint64      `json:"seeds"`
	Base       fabric.Config `json:"base_config"`
}

func manifestGrid(g *Grid) ManifestGrid {
	return ManifestGrid{Topology: g.Topology, Traffic: g.Traffic, Schedulers: g.Schedulers, Loads: g.Loads, Seeds: g.Seeds, Base: g.Base}
}

func (m *ManifestGrid) grid() Grid {
	return Grid{Base: m.Base, Schedulers: m.Schedulers, Loads: m.Loads, Seeds: m.Seeds, Topology: m.Topology, Traffic: m.Traffic}
}

// digest is the SHA-256 of the grid's JSON form.
func (m *ManifestGrid) digest() (string, error) {
	data, err := json.Marshal(m)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:]), nil
}

func (s *Runner) sharded() bool { return s.Shard.Count > 0 }

func (s *Runner) owns(i int) bool { return s.Shard.Owns(i) }

// manifest describes the runner's shard.
func (s *Runner) manifest() (*Manifest, error) {
	m := &Manifest{Format: manifestFormat, Shard: s.Shard, Grid: manifestGrid(&s.Grid), GridRuns: len(s.Points), Runs: []string{}}
	var err error
	if m.GridSHA256, err = m.Grid.digest(); err != nil {
		return nil, err
	}
	for i := range s.Points {
		if s.owns(i) {
			m.Runs = append(m.Runs, s.Points[i].File())
		}
	}
	return m, nil
}

// writeManifest writes Dir/shard.json before the shard runs anything, so a
// merge can name the runs of a shard that was stopped part way.
func (s *Runner) writeManifest() error {
	m, err := s.manifest()
	if err != nil {
		return err
	}
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return writeFileAtomic(filepath.Join(s.Dir, ManifestFile), append(data, '\n'))
}

// finishShard reports a shard's end: how many of its runs are stored and
// how to merge; an interruption, a failed run or a failed conservation
// check is returned, as for a whole sweep.
func (s *Runner) finishShard(ctx context.Context, out io.Writer, runErr error, total int) error {
	found, failed := 0, 0
	for i, r := range s.results {
		if r != nil && s.owns(i) {
			found++
			if !r.ConservationOK {
				failed++
			}
		}
	}
	fmt.Fprintf(out, "ran %d; shard %s has %d of its %d runs in %s and its manifest in %s; "+
		"when every shard is done: opasim sweep merge --out DIR SHARD_DIR...\n",
		s.ran, s.Shard, found, total, filepath.Join(s.Dir, "runs"), filepath.Join(s.Dir, ManifestFile))
	switch {
	case runErr != nil:
		return runErr
	case ctx.Err() != nil:
		return fmt.Errorf("interrupted: %d of the %d runs of shard %s are stored; run the same command again to resume", found, total, s.Shard)
	case failed > 0:
		return fmt.Errorf("%d runs failed the conservation check (see conservation_problems in their results files)", failed)
	}
	return nil
}

// ReadManifest reads dir/shard.json and checks its format and that its
// grid_sha256 is that of its grid (a manifest edited, or written by an
// opasim whose config has other keys, fails here).
func ReadManifest(dir string) (*Manifest, error) {
	path := filepath.Join(dir, ManifestFile)
	data, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil, fmt.Errorf("%s: no %s: not the output of opasim sweep --shard, or that shard has not started", dir, ManifestFile)
	} else if err != nil {
		return nil, err
	}
	var m Manifest
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("%s: not a shard manifest: %w", path, err)
	}
	if m.Format != manifestFormat {
		return nil, fmt.Errorf("%s: format %q is not allowed: must be %q", path, m.Format, manifestFormat)
	}
	if m.Shard.Count < 1 || m.Shard.Index < 0 || m.Shard.Index >= m.Shard.Count {
		return nil, fmt.Errorf("%s: shard %s is not allowed: must be i/N with N >= 1 and i in [0, N-1]", path, m.Shard)
	}
	if d, err := m.Grid.digest(); err != nil || d != m.GridSHA256 {
		return nil, fmt.Errorf("%s: grid_sha256 %s is not the digest of its grid (%s): the file was edited, "+
			"or written by an opasim with another config layout", path, m.GridSHA256, d)
	}
	return &m, nil
}

// gridDifferences names what differs between two grids: the axes and
// labels, and the base config's keys (as dotted JSON paths).
func gridDifferences(a, b *ManifestGrid) []string {
	var diffs []string
	add := func(key string, x, y any) {
		diffs = append(diffs, fmt.Sprintf("%s: %s vs %s", key, compactJSON(x), compactJSON(y)))
	}
	if a.Topology != b.Topology {
		add("topology label", a.Topology, b.Topology)
	}
	if a.Traffic != b.Traffic {
		add("traffic label", a.Traffic, b.Traffic)
	}
	if !slices.Equal(a.Schedulers, b.Schedulers) {
		add("schedulers", a.Schedulers, b.Schedulers)
	}
	if !slices.Equal(a.Loads, b.Loads) {
		add("loads", a.Loads, b.Loads)
	}
	if !slices.Equal(a.Seeds, b.Seeds) {
		add("seeds", a.Seeds, b.Seeds)
	}
	var x, y any
	jsonForm(a.Base, &x)
	jsonForm(b.Base, &y)
	diffJSON("", x, y, func(key string, x, y any) { add("config "+key, x, y) })
	return diffs
}

func jsonForm(v any, into *any) {
	data, _ := json.Marshal(v)
	_ = json.Unmarshal(data, into)
}

func compactJSON(v any) string {
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(data)
}

// diffJSON reports each path at which two decoded JSON values differ.
func diffJSON(path string, x, y any, add func(string, any, any)) {
	xm, xok := x.(map[string]any)
	ym, yok := y.(map[string]any)
	if !xok || !yok {
		if compactJSON(x) != compactJSON(y) {
			add(path, x, y)
		}
		return
	}
	keys := make([]string, 0, len(xm)+len(ym))
	for k := range xm {
		keys = append(keys, k)
	}
	for k := range ym {
		if _, ok := xm[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		p := k
		if path != "" {
			p = path + "." + k
		}
		diffJSON(p, xm[k], ym[k], add)
	}
}
