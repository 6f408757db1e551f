package configdoc

import (
	"slices"
	"testing"
)

type inner struct {
	Depth int     `yaml:"depth"`
	Rate  float64 `yaml:"rate"`
}

type entry struct {
	Name string `yaml:"name"`
	IDs  []int  `yaml:"ids"`
}

type toy struct {
	Seed    uint64            `yaml:"seed"`
	Mode    string            `yaml:"mode"`
	Path    string            `yaml:"path,omitempty"`
	On      bool              `yaml:"on"`
	Inner   inner             `yaml:"inner"`
	List    []entry           `yaml:"list"`
	Empty   []entry           `yaml:"empty"`
	Limit   *int64            `yaml:"limit"`
	Algos   map[string]string `yaml:"algos"`
	Grid    [][]int           `yaml:"grid"`
	Skipped int               `yaml:"-"`
	hidden  int
}

func def() toy {
	return toy{Seed: 7, Mode: "fast", On: true, Inner: inner{Depth: 3, Rate: 0.25},
		List:  []entry{{Name: "a", IDs: []int{1, 2}}, {Name: "b|c"}},
		Algos: map[string]string{"z": "last", "a": "first"}}
}

// TestRender: the page of the toy config, worked out by hand.
func TestRender(t *testing.T) {
	want := "# Keys\n\nEvery key.\n\n" +
		"| key | kind | default |\n|---|---|---|\n" +
		"| `seed` | integer | 7 |\n" +
		"| `mode` | string | fast |\n" +
		"| `path` | string | \"\" |\n" +
		"| `on` | boolean | true |\n" +
		"| `inner.depth` | integer | 3 |\n" +
		"| `inner.rate` | number | 0.25 |\n" +
		"| `list` | list of maps | 2 entries (below) |\n" +
		"| `list[].name` | string | per entry |\n" +
		"| `list[].ids` | list of integers | per entry |\n" +
		"| `empty` | list of maps | none |\n" +
		"| `empty[].name` | string | per entry |\n" +
		"| `empty[].ids` | list of integers | per entry |\n" +
		"| `limit` | integer | absent |\n" +
		"| `algos` | map of string to string | {a: first, z: last} |\n" +
		"| `grid` | list of lists of integers | [] |\n" +
		"\nThe default entries of `list`:\n\n" +
		"| `name` | `ids` |\n|---|---|\n" +
		"| a | [1, 2] |\n" +
		"| b\\|c | [] |"
	if got := string(Render(def(), "Keys", "Every key.")); got != want {
		t.Errorf("got:\n%s\n\nwant:\n%s", got, want)
	}
}

// TestKeys: the paths, in field order, without the skipped or unexported
// fields.
func TestKeys(t *testing.T) {
	var paths []string
	for _, k := range Keys(def()) {
		paths = append(paths, k.Path)
	}
	want := []string{"seed", "mode", "path", "on", "inner.depth", "inner.rate", "list", "list[].name", "list[].ids",
		"empty", "empty[].name", "empty[].ids", "limit", "algos", "grid"}
	if !slices.Equal(paths, want) {
		t.Errorf("paths %v, want %v", paths, want)
	}
}
