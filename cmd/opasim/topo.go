package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/opasim/opasim/fabric/topo"
)

func newTopoCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "topo PRESET",
		Short: "Print a topology preset's structure: switches, ports, NICs, links, diameter",
		Long:  "Presets: " + strings.Join(topo.PresetNames(), ", "),
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			t, spec, err := topo.Preset(args[0])
			if err != nil {
				return badInput(err)
			}
			fmt.Fprint(cmd.OutOrStdout(), t.Summary().String())
			fmt.Fprintf(cmd.OutOrStdout(), "routing: %s\nsource: %s\n", spec.Routing, spec.Source)
			return nil
		},
	}
}
