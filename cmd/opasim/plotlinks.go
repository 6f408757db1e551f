package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/opasim/opasim/linkplot"
	"github.com/opasim/opasim/sim"
)

// maxResultsBytes bounds a results file plot links reads.
const maxResultsBytes = 1 << 30

func newPlotLinksCmd() *cobra.Command {
	var out, group string
	cmd := &cobra.Command{
		Use:   "links RESULTS.json",
		Short: "Draw a run's per-link utilization as a heat map (a torus map, or link classes by switch)",
		Long: `links draws the per-link utilization of one run's results (opasim run --out):
a torus of one or two dimensions as its grid of switches, each link toward + and −
coloured by the utilization of its busiest member (--group mean: the trunk's mean);
any other network as a matrix with a row per link class (injection, a tree's
levels up and down, a torus's dimensions and directions, ejection) and a column
per switch, each cell the busiest (or mean) of that switch's links of the class. It prints
the mean and maximum utilization of every class.`,
		Example: `  opasim run --preset torus2d-4x4 --traffic paper-mix --load 0.8 --out torus.json
  opasim plot links torus.json -o torus-links.png`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 1 {
				return badInput(fmt.Errorf("plot links: want one argument, a run's results JSON (opasim run --out); got %d", len(args)))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			data, err := readResultsFile(args[0])
			if err != nil {
				return badInput(err)
			}
			var r sim.Results
			dec := json.NewDecoder(bytes.NewReader(data))
			if err := dec.Decode(&r); err != nil {
				return badInput(fmt.Errorf("%s: not a run's results: %w", args[0], err))
			}
			if r.Switches <= 0 || r.NICs <= 0 {
				return badInput(fmt.Errorf("%s: not a run's results (no switches or NICs)", args[0]))
			}
			if group != "max" && group != "mean" {
				return badInput(fmt.Errorf("--group: %q is not allowed: must be max or mean", group))
			}
			if out == "" {
				out = strings.TrimSuffix(args[0], ".json") + "-links.png"
			}
			what, err := linkplot.Write(&r, out, linkplot.Options{Max: group == "max"})
			if errors.Is(err, linkplot.ErrNoLinks) {
				return badInput(fmt.Errorf("%s: %w", args[0], err))
			}
			if err != nil {
				return badInput(err)
			}
			w := cmd.OutOrStdout()
			fmt.Fprintf(w, "links: %s: %s\n", out, what)
			for _, c := range r.Links.Classes {
				fmt.Fprintf(w, "  %-16s %5d links  mean %.3f  min %.3f  max %.3f (%s)\n", c.Class, c.Links, c.Mean, c.Min, c.Max, c.Busiest)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&group, "group", "max", "how a group of links drawn as one (a torus trunk; a switch's links of a class) is coloured: max (its busiest link) or mean")
	cmd.Flags().StringVarP(&out, "out", "o", "", "the picture to write, .png or .svg (default: RESULTS with -links.png for .json)")
	return cmd
}

// readResultsFile reads a results file: a regular file of at most
// maxResultsBytes.
func readResultsFile(path string) ([]byte, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file", path)
	}
	if fi.Size() > maxResultsBytes {
		return nil, fmt.Errorf("%s: %d bytes, more than a results file may have (%d)", path, fi.Size(), maxResultsBytes)
	}
	return os.ReadFile(path)
}
