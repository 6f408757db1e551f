package main

import (
	"bufio"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/google/renameio/v2"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/opasim/opasim/problem"
	"github.com/opasim/opasim/workloads/tracegen"
)

// newTraceCmd groups the tools on VEF traces of MPI applications.
func newTraceCmd() *cobra.Command {
	trace := &cobra.Command{Use: "trace", Short: "Tools on VEF traces of MPI applications", Args: subcommandArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return badInput(fmt.Errorf("%s needs a subcommand: %s (see --help)", cmd.CommandPath(), strings.Join(subcommandNames(cmd), ", ")))
		}}
	trace.AddCommand(newTraceGenCmd(), newTraceCompareCmd(), newTraceSweepCmd(), newTraceRecordCmd(), newTraceStatsCmd())
	return trace
}

// traceGenFlags are the flags of `opasim trace gen`.
type traceGenFlags struct {
	p   tracegen.Params
	out string
}

func newTraceGenCmd() *cobra.Command {
	var o traceGenFlags
	var kinds strings.Builder
	for _, k := range tracegen.Kinds() {
		info, _ := tracegen.Describe(k)
		fmt.Fprintf(&kinds, "  %-13s %s (default --bytes %d)\n", k, info.Imitates, info.DefaultBytes)
	}
	cmd := &cobra.Command{
		Use:   "gen KIND",
		Short: "Write a VEF trace of a trace-shaped workload (stencil3d, hpl, randomaccess, alltoall, ring)",
		Long: "Writes the VEF trace of a kind of MPI application: its messages, collectives and the causal order\n" +
			"between them (the package doc of workloads/tracegen gives each kind's pattern and counts). Kinds:\n\n" +
			kinds.String() + "\nA FILE ending in .gz is written gzip-compressed; without --out, or with --out -, the trace goes to\n" +
			"stdout. A one-line summary goes to stderr.",
		Example: "  opasim trace gen stencil3d --tasks 512 --iterations 100 --compute-ns 20000 --out namd.vef.gz\n" +
			"  opasim trace gen randomaccess --tasks 512 --updates 64 --seed 3 --out ra.vef",
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return fmt.Errorf("trace gen takes a kind (one of: %s); got %d arguments", strings.Join(tracegen.Kinds(), ", "), len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error { return o.run(cmd, args[0]) },
	}
	f := cmd.Flags()
	f.IntVar(&o.p.Tasks, "tasks", 512, fmt.Sprintf("MPI tasks, 2 to %d", tracegen.MaxTasks))
	f.Int64Var(&o.p.Bytes, "bytes", 0, "message size in bytes, at least 0 (default: the kind's, listed above)")
	f.IntVar(&o.p.Iterations, "iterations", 10, "iterations (time steps, panel steps, rounds), at least 1")
	f.Int64Var(&o.p.ComputeNS, "compute-ns", 1000, "computation between communications, in ns, at least 0")
	f.Uint64Var(&o.p.Seed, "seed", 1, "seed of randomaccess's draws (the other kinds draw nothing)")
	f.IntVar(&o.p.AllreduceEvery, "allreduce-every", 0, fmt.Sprintf("stencil3d: an allreduce after every K-th iteration, at least 1 (default %d)", tracegen.DefaultAllreduceEvery))
	f.IntVar(&o.p.Updates, "updates", 0, fmt.Sprintf("randomaccess: updates each task sends per iteration, 1 to %d (default %d)", tracegen.MaxUpdates, tracegen.DefaultUpdates))
	f.StringVar(&o.out, "out", "-", "write the trace to this `FILE` (.gz: gzip-compressed; -: stdout)")
	return cmd
}

// run checks the params and the output path, writes the trace and
// prints its summary.
func (o *traceGenFlags) run(cmd *cobra.Command, kind string) error {
	p := o.p
	p.Kind = kind
	if info, err := tracegen.Describe(kind); err == nil && !cmd.Flags().Changed("bytes") {
		p.Bytes = info.DefaultBytes
	}
	if err := checkKindCounts(cmd.Flags(), p); err != nil {
		return err
	}
	if err := p.Check(); err != nil {
		return badInput(asFlags(err))
	}
	out, err := o.open(cmd)
	if err != nil {
		return err
	}
	where := "stdout"
	if o.out != "-" {
		where = o.out
	}
	// A stop signal ends the writing at the next 64 KiB: a trace cut short
	// is no trace, so the file is left as it was (stdout has what went).
	ctx, stopped := onSignals(cmd.Context())
	h, err := tracegen.Write(stopWriter{ctx, out.trace}, p)
	if err == nil {
		err = out.close()
	}
	if sig := stopped(); sig != nil {
		out.abandon()
		left := "left as it was"
		if o.out == "-" {
			left = "incomplete"
		}
		fmt.Fprintf(cmd.ErrOrStderr(), "trace gen %s: interrupted after %d bytes of trace; %s %s\n", kind, out.text.n, where, left)
		return sig
	}
	if err != nil {
		out.abandon()
		return fmt.Errorf("trace gen %s: %w", kind, err)
	}
	written := fmt.Sprintf("%d bytes written to %s", out.file.n, where)
	if out.gzipped {
		written += fmt.Sprintf(" (gzip of %d bytes)", out.text.n)
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "trace gen %s: %d tasks, %d messages, %d collectives (%d parts); %s\n",
		kind, h.Tasks, h.P2PMessages, h.Collectives, h.CollectiveParts, written)
	return nil
}

// checkKindCounts checks the kinds' own counts of p: they default when
// their flag is absent; given, they must be in range (0 is not a way to
// ask for the default).
func checkKindCounts(fs *pflag.FlagSet, p tracegen.Params) error {
	for _, c := range []struct {
		flag        string
		v, max, def int
		note        string
	}{
		{"updates", p.Updates, tracegen.MaxUpdates, tracegen.DefaultUpdates, ""},
		{"allreduce-every", p.AllreduceEvery, math.MaxInt, tracegen.DefaultAllreduceEvery, "; above --iterations: no allreduce"},
	} {
		if fs.Changed(c.flag) && (c.v < 1 || c.v > c.max) {
			allowed := fmt.Sprintf("must be in [1, %d]", c.max)
			if c.max == math.MaxInt {
				allowed = "must be at least 1"
			}
			return badInput(fmt.Errorf("--%s: %d is not allowed: %s%s (without the flag: %d)", c.flag, c.v, allowed, c.note, c.def))
		}
	}
	return nil
}

// asFlags names Check's problems by their flags: compute_ns is
// --compute-ns, the kind is KIND.
func asFlags(err error) error {
	var l problem.List
	if !errors.As(err, &l) {
		return err
	}
	named := make(problem.List, len(l))
	for i, e := range l {
		var p *problem.Problem
		if !errors.As(e, &p) {
			named[i] = e
			continue
		}
		where := "KIND"
		if p.Where != "kind" {
			where = "--" + strings.ReplaceAll(p.Where, "_", "-")
		}
		named[i] = &problem.Problem{Where: where, What: p.What}
	}
	return named
}

// traceOut is where a trace goes: text counts what the trace writes,
// file what reaches the file (or stdout) after any compression.
type traceOut struct {
	trace   io.Writer
	text    *counter
	file    *counter
	gzipped bool
	close   func() error // flushes, compresses and puts the file in place
	abandon func()       // leaves the path as it was, after a failure
}

// open prepares --out: stdout, or a file written beside its path and
// renamed into place once complete (gzip-compressed for a .gz name).
func (o *traceGenFlags) open(cmd *cobra.Command) (*traceOut, error) {
	out := &traceOut{abandon: func() {}}
	var sink io.Writer = cmd.OutOrStdout()
	var pending *renameio.PendingFile
	if o.out != "-" {
		if err := checkWritable("--out", o.out); err != nil {
			return nil, err
		}
		var err error
		if pending, err = renameio.NewPendingFile(o.out, renameio.WithPermissions(0o644)); err != nil {
			return nil, badInput(fmt.Errorf("--out: %w", err))
		}
		sink = pending
		out.abandon = func() { pending.Cleanup() }
	}
	out.file = &counter{w: sink}
	buf := bufio.NewWriterSize(out.file, 256<<10)
	var gz *gzip.Writer
	var text io.Writer = buf
	if out.gzipped = o.out != "-" && strings.HasSuffix(o.out, ".gz"); out.gzipped {
		gz = gzip.NewWriter(buf)
		text = gz
	}
	out.text = &counter{w: text}
	out.trace = out.text
	out.close = func() error {
		if gz != nil {
			if err := gz.Close(); err != nil {
				return err
			}
		}
		if err := buf.Flush(); err != nil {
			return err
		}
		if pending != nil {
			return pending.CloseAtomicallyReplace()
		}
		return nil
	}
	return out, nil
}

// stopWriter writes to w until ctx ends, then fails.
type stopWriter struct {
	ctx context.Context
	w   io.Writer
}

func (s stopWriter) Write(b []byte) (int, error) {
	if err := s.ctx.Err(); err != nil {
		return 0, err
	}
	return s.w.Write(b)
}

// counter counts the bytes written through it.
type counter struct {
	w io.Writer
	n int64
}

func (c *counter) Write(b []byte) (int, error) {
	n, err := c.w.Write(b)
	c.n += int64(n)
	return n, err
}
