// Command opasim simulates Omni-Path-style interconnects cycle by cycle.
//
//	opasim run            the default: one 48-port switch, uniform traffic, load 0.5
//	opasim run --config my.yaml --load 0.9 --out results.json
//	opasim bench          simulator speed on the reference scenarios
//	opasim topo PRESET    a topology preset's structure (--channel-load: its link loads)
//	opasim qos dtable     the DTable configuration tool
//	opasim sweep          schedulers × loads × seeds, summaries and plots (--shard i/N: one shard)
//	opasim sweep merge    the shards of a sweep into its summaries and plots
//	opasim plot DIR       redraw a sweep's plots (plot links RESULT.json: a run's link utilization)
//	opasim trace gen KIND a VEF trace of a trace-shaped workload (stencil3d, hpl, …)
//	opasim flow static    the flow-level engine: link loads and throughput (flow dynamic: completion times)
//	opasim run --distributed N, opasim member --join ADDR: one run across processes
//
// It is the wiring only: it reads flags, builds a config, runs it with
// package sim on the engine the config names (sim.Sequential or
// actors.Engine) and prints; the model, the run layer, the live metrics
// and the sweeps are in packages fabric, sim, monitor and sweep.
//
// Exit status: 0 on success, 2 for bad input, 1 when a run fails, 128 + the
// signal's number when a signal stopped a run (after it wrote its results).
package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"
)

func main() {
	root := newRootCmd()
	root.SetArgs(progressArgs(os.Args[1:])) // --progress MODE as --progress=MODE
	err := root.Execute()
	if err != nil {
		if _, ok := err.(signalled); !ok {
			fmt.Fprintln(os.Stderr, "opasim:", err)
		}
	}
	os.Exit(exitStatus(err))
}

func newRootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:           "opasim",
		Short:         "Cycle-level simulator of Omni-Path-style interconnects with QoS",
		SilenceUsage:  true,
		SilenceErrors: true,
		Args:          subcommandArgs,
		RunE:          func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
		// Every command: no two output flags, or an output and an input
		// flag, name the same file.
		PersistentPreRunE: distinctPaths,
	}
	// A subcommand's own persistent hook, should one be added, runs after
	// the root's rather than instead of it.
	cobra.EnableTraverseRunHooks = true
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return badInput(err) })
	root.AddCommand(newRunCmd(), newBenchCmd(), newQoSCmd(), newTopoCmd())
	root.AddCommand(newSweepCmd(), newPlotCmd())
	root.AddCommand(newTraceCmd(), newStressCmd(), newFlowCmd(), newMemberCmd())
	strictCompletion(root)
	argsAreInput(root)
	return root
}

// strictCompletion adds cobra's completion command now (Execute would
// add it later) and makes it a group like the others: an unknown shell, or
// none, is bad input rather than its help and exit status 0.
func strictCompletion(root *cobra.Command) {
	root.InitDefaultCompletionCmd()
	for _, c := range root.Commands() {
		if c.Name() == "completion" {
			c.Args = subcommandArgs
			c.RunE = func(cmd *cobra.Command, _ []string) error {
				return badInput(fmt.Errorf("%s needs a shell: %s (see --help)", cmd.CommandPath(), strings.Join(subcommandNames(cmd), ", ")))
			}
		}
	}
}

// argsAreInput makes every command's argument check report bad input.
func argsAreInput(c *cobra.Command) {
	if check := c.Args; check != nil {
		c.Args = func(cmd *cobra.Command, args []string) error {
			if err := check(cmd, args); err != nil {
				return badInput(err)
			}
			return nil
		}
	}
	for _, sub := range c.Commands() {
		argsAreInput(sub)
	}
}

// subcommandArgs is the argument check of a command that only groups
// subcommands: an argument that names none of them is bad input.
func subcommandArgs(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	return fmt.Errorf("unknown command %q for %q: must be one of: %s", args[0], cmd.CommandPath(), strings.Join(subcommandNames(cmd), ", "))
}

// subcommandNames lists the subcommands a user can give cmd.
func subcommandNames(cmd *cobra.Command) []string {
	var names []string
	for _, sub := range cmd.Commands() {
		if sub.IsAvailableCommand() {
			names = append(names, sub.Name())
		}
	}
	return names
}

// noArgs refuses positional arguments as bad input.
func noArgs(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		return badInput(fmt.Errorf("%s takes no arguments, only flags; got %q (see --help)", cmd.Name(), args))
	}
	return nil
}
