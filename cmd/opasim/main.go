// Command opasim simulates Omni-Path-style interconnects cycle by cycle.
//
//	opasim run            the default: one 48-port switch, uniform traffic, load 0.5
//	opasim run --config my.yaml --load 0.9 --out results.json
//	opasim bench          simulator speed on the reference scenarios
//
// Exit status: 0 on success, 2 for bad input, 1 when a run fails.
package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"
)

// usageError marks bad input: exit status 2.
type usageError struct{ err error }

func (u usageError) Error() string { return u.err.Error() }
func (u usageError) Unwrap() error { return u.err }

func badInput(err error) error { return usageError{err} }

func main() {
	root := &cobra.Command{
		Use:           "opasim",
		Short:         "Cycle-level simulator of Omni-Path-style interconnects with QoS",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return badInput(err) })
	root.AddCommand(newRunCmd(), newBenchCmd(), newQoSCmd(), newTopoCmd())
	root.AddCommand(newSweepCmd(), newPlotCmd())
	if err := root.Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "opasim:", err)
		var u usageError
		if errors.As(err, &u) {
			os.Exit(2)
		}
		os.Exit(1)
	}
}
