package sim

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/opasim/opasim/fabric"
)

// TestPlaceTasks: linear puts ⌈tasks/NICs⌉ consecutive tasks a NIC;
// random the same number a NIC, a permutation drawn from the seed (the
// same seed, the same places); file as listed.
func TestPlaceTasks(t *testing.T) {
	cfg := fabric.Default()
	lin, _ := placeTasks(&cfg, 10, 4)
	if !slices.Equal(lin, []int{0, 0, 0, 1, 1, 1, 2, 2, 2, 3}) {
		t.Errorf("linear: %v", lin)
	}
	cfg.Trace.Mapping = fabric.MappingRandom
	r1, _ := placeTasks(&cfg, 10, 4)
	again, _ := placeTasks(&cfg, 10, 4)
	cfg.Seed = 2
	r2, _ := placeTasks(&cfg, 10, 4)
	if !slices.Equal(r1, again) || slices.Equal(r1, r2) || slices.Equal(r1, lin) {
		t.Errorf("random: seed 1 %v (again %v), seed 2 %v", r1, again, r2)
	}
	for _, m := range [][]int{r1, r2} {
		per := make([]int, 4)
		for _, nic := range m {
			per[nic]++
		}
		if !slices.Equal(per, []int{3, 3, 3, 1}) {
			t.Errorf("random %v: tasks a NIC %v, want the linear blocks' [3 3 3 1]", m, per)
		}
	}
	path := filepath.Join(t.TempDir(), "map")
	if err := os.WriteFile(path, []byte("3 3\n0\t1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg.Trace.Mapping, cfg.Trace.MappingFile = fabric.MappingFile, path
	if m, err := placeTasks(&cfg, 4, 4); err != nil || !slices.Equal(m, []int{3, 3, 0, 1}) {
		t.Errorf("file: %v, %v", m, err)
	}
	if _, err := placeTasks(&cfg, 5, 4); err == nil {
		t.Error("a file of 4 NICs for 5 tasks was accepted")
	}
}

// FuzzReadMapping: a mapping file is read or refused, never a panic; what
// is read places every task on a NIC of the network.
func FuzzReadMapping(f *testing.F) {
	f.Add("0 1 2 3")
	f.Add("3\n3\n3\n3\n")
	f.Add("0 1 2 -1")
	f.Add("0 1 2 3 4")
	f.Add("0x1 1 2 3")
	f.Fuzz(func(t *testing.T, text string) {
		path := filepath.Join(t.TempDir(), "map")
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		m, err := readMapping(path, 4, 4)
		if err != nil {
			return
		}
		if len(m) != 4 {
			t.Fatalf("%d tasks placed, want 4", len(m))
		}
		for task, nic := range m {
			if nic < 0 || nic >= 4 {
				t.Fatalf("task %d on NIC %d", task, nic)
			}
		}
	})
}
