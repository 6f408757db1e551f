package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/google/renameio/v2"
	"github.com/spf13/cobra"

	"github.com/opasim/opasim/workloads/mpirec"
)

// MaxRecordRanks bounds trace record's --np.
const MaxRecordRanks = 4096

// traceRecordFlags are the flags of `opasim trace record`.
type traceRecordFlags struct {
	np         int
	out        string
	compute    string
	scale      float64
	from, to   string
	marks      []string
	ranks      string
	keep       string
	mpirun     string
	mpicc      string
	mpirunArgs []string
	timeout    time.Duration
	cache      string
	report     string
}

func newTraceRecordCmd() *cobra.Command {
	var o traceRecordFlags
	cmd := &cobra.Command{
		Use:   "record --np N [--out FILE] -- PROGRAM [ARGS...] | record --ranks DIR [--out FILE]",
		Short: "Record a VEF trace of an MPI program: run it under mpirun with a PMPI recorder preloaded",
		Long: "Runs an unmodified MPI program under mpirun with N ranks, the recorder (a PMPI interposition library,\n" +
			"built with mpicc on first use and kept in the cache directory) preloaded, and merges what each rank\n" +
			"recorded into one VEF trace: its messages (sizes in bytes), its collectives on their communicators,\n" +
			"the causal order between them and the computation in between (--compute: the CPU time a rank spends\n" +
			"outside MPI calls by default, since a run with more ranks than cores stretches wall time). MPI calls\n" +
			"a VEF trace cannot express (one-sided, MPI-IO, neighbourhood collectives, …) are counted and listed\n" +
			"on stderr. docs/mpi-traces.md says what is recorded and how. The program's output goes to stderr.\n\n" +
			"--from and --to keep one section of the run: from the last collective of all ranks begun before the\n" +
			"program printed a line starting with --from's text (the first after it if none), to before the first\n" +
			"one begun after it printed a line starting with --to's. The\n" +
			"recorder notes the lines starting with --from, --to and --mark texts; with --keep DIR, --ranks DIR\n" +
			"merges those files again (another section, clock or scale) without running the program.",
		Example: "  opasim trace record --np 16 --out hpcc.vef.gz -- hpcc\n" +
			"  opasim trace record --np 16 --out hpl.vef.gz --from 'Begin of HPL section' --to 'End of HPL section' -- hpcc\n" +
			"  opasim trace record --np 16 --keep ranks --mark 'Begin of' --mark 'End of' --out hpcc.vef.gz -- hpcc\n" +
			"  opasim trace record --ranks ranks --from 'Begin of MPIRandomAccess section' --to 'End of MPIRandomAccess' --out ra.vef.gz",
		Args: func(cmd *cobra.Command, args []string) error {
			if o.ranks != "" {
				if len(args) > 0 {
					return badInput(fmt.Errorf("--ranks merges the ranks' files recorded before: it takes no program (got %q)", args[0]))
				}
				return nil
			}
			if len(args) == 0 {
				return badInput(errors.New("trace record needs a program to run: opasim trace record --np N [flags] -- PROGRAM [ARGS...]"))
			}
			if cmd.ArgsLenAtDash() != 0 {
				return badInput(fmt.Errorf("trace record: %q before --: put the program and its arguments after -- (opasim trace record --np N [flags] -- PROGRAM [ARGS...])", args[0]))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error { return o.run(cmd, args) },
	}
	f := cmd.Flags()
	f.IntVar(&o.np, "np", 0, fmt.Sprintf("MPI ranks to run, 1 to %d (required)", MaxRecordRanks))
	f.StringVar(&o.out, "out", "-", "write the trace to this `FILE` (.gz: gzip-compressed; -: stdout)")
	f.StringVar(&o.compute, "compute", "cpu", "clock of the computation between communications: "+strings.Join(mpirec.ClockNames, ", ")+" (none: every delay 0)")
	f.Float64Var(&o.scale, "compute-scale", 1, fmt.Sprintf("multiply the computation times by this, more than 0 and at most %g", float64(mpirec.MaxScale)))
	f.StringVar(&o.from, "from", "", "keep the section that starts where the program prints a line beginning with this `TEXT`")
	f.StringVar(&o.to, "to", "", "end the section where the program prints a line beginning with this `TEXT` (needs --from)")
	f.StringArrayVar(&o.marks, "mark", nil, "also note where the program prints a line beginning with this `TEXT`, for --ranks to cut at later (repeat the flag for more)")
	f.StringVar(&o.ranks, "ranks", "", "merge the ranks' files kept in `DIR` by an earlier --keep, instead of running a program")
	f.StringVar(&o.keep, "keep", "", "keep the ranks' files in this `DIR` (empty or new; default: a temporary directory, removed)")
	f.StringVar(&o.mpirun, "mpirun", "mpirun", "the MPI launcher (Open MPI's or MPICH's mpirun)")
	f.StringVar(&o.mpicc, "mpicc", "mpicc", "the MPI C compiler that builds the recorder")
	f.StringArrayVar(&o.mpirunArgs, "mpirun-arg", nil, "an extra argument for mpirun, before the program (repeat the flag for more)")
	f.DurationVar(&o.timeout, "timeout", time.Hour, "stop the program after this long (0: never)")
	f.StringVar(&o.cache, "cache", "", "where the built recorder is kept (default: $XDG_CACHE_HOME/opasim or ~/.cache/opasim)")
	f.StringVar(&o.report, "report", "", "also write what was recorded, as JSON, to this `FILE`")
	return cmd
}

// recordReport is --report's JSON.
type recordReport struct {
	Program       []string         `json:"program"`
	Ranks         int              `json:"ranks"`
	Compute       string           `json:"compute"`
	ComputeScale  float64          `json:"compute_scale"`
	From          string           `json:"from,omitempty"`
	To            string           `json:"to,omitempty"`
	RunSeconds    float64          `json:"run_seconds"`
	MergeSeconds  float64          `json:"merge_seconds"`
	RankFileBytes int64            `json:"rank_file_bytes"`
	TraceBytes    int64            `json:"trace_bytes"`
	TraceText     int64            `json:"trace_text_bytes"`
	Messages      int64            `json:"messages"`
	MessageBytes  int64            `json:"message_bytes"`
	Collectives   int64            `json:"collectives"`
	Parts         int64            `json:"collective_parts"`
	ByOp          map[string]int64 `json:"collectives_by_op"`
	OnReceive     int64            `json:"records_after_receive"`
	Receives      int64            `json:"receives"`
	ComputeNS     int64            `json:"compute_ns"`
	Dropped       int64            `json:"section_dropped_records"`
	Cut           int64            `json:"section_cut_dependencies"`
	Calls         map[string]int64 `json:"calls"`
	Unsupported   map[string]int64 `json:"unsupported"`
}

// check refuses bad flags, naming the flag, the value and what is allowed.
func (o *traceRecordFlags) check(cmd *cobra.Command) (mpirec.Clock, error) {
	if o.ranks != "" {
		for _, f := range []string{"np", "keep", "mark", "mpirun", "mpicc", "mpirun-arg", "timeout", "cache"} {
			if cmd.Flags().Changed(f) {
				return 0, badInput(fmt.Errorf("--%s: --ranks merges files already recorded: no program runs", f))
			}
		}
		if _, err := os.Stat(filepath.Join(o.ranks, "rank-0.vefrec")); err != nil {
			return 0, badInput(fmt.Errorf("--ranks: %s has no rank-0.vefrec: give the directory of an earlier --keep", o.ranks))
		}
	} else if !cmd.Flags().Changed("np") {
		return 0, badInput(fmt.Errorf("--np is required: the number of MPI ranks, 1 to %d", MaxRecordRanks))
	}
	if o.ranks == "" && (o.np < 1 || o.np > MaxRecordRanks) {
		return 0, badInput(fmt.Errorf("--np: %d is out of range: must be in [1, %d]", o.np, MaxRecordRanks))
	}
	clock, err := mpirec.ParseClock(o.compute)
	if err != nil {
		return 0, badInput(fmt.Errorf("--compute: %w", err))
	}
	if !(o.scale > 0 && o.scale <= mpirec.MaxScale) {
		return 0, badInput(fmt.Errorf("--compute-scale: %g is out of range: must be more than 0 and at most %g", o.scale, float64(mpirec.MaxScale)))
	}
	if o.to != "" && o.from == "" {
		return 0, badInput(errors.New("--to needs --from: a section starts at --from's text and ends at --to's"))
	}
	texts := []struct{ flag, v string }{{"--from", o.from}, {"--to", o.to}}
	for _, m := range o.marks {
		if m == "" {
			return 0, badInput(errors.New("--mark: expected some text, not an empty one"))
		}
		texts = append(texts, struct{ flag, v string }{"--mark", m})
	}
	for _, m := range texts {
		if strings.ContainsAny(m.v, "|\n") {
			return 0, badInput(fmt.Errorf("%s: %q: the text may not hold '|' or a newline", m.flag, m.v))
		}
		if m.v != "" && strings.TrimSpace(m.v) == "" {
			return 0, badInput(fmt.Errorf("%s: %q: expected some text, not only spaces", m.flag, m.v))
		}
	}
	if o.timeout < 0 {
		return 0, badInput(fmt.Errorf("--timeout: %v: must be at least 0 (0: never)", o.timeout))
	}
	if o.keep != "" {
		if entries, err := os.ReadDir(o.keep); err == nil && len(entries) > 0 {
			return 0, badInput(fmt.Errorf("--keep: %s is not empty: give a new or empty directory for the ranks' files", o.keep))
		} else if err != nil && !os.IsNotExist(err) {
			return 0, badInput(fmt.Errorf("--keep: %w", err))
		}
	}
	return clock, nil
}

// tool finds a program the recording needs, or says how to get it.
func tool(flag, name string) (string, error) {
	p, err := exec.LookPath(name)
	if err != nil {
		return "", badInput(fmt.Errorf("%s: %s not found (%v): install an MPI (Debian: apt-get install openmpi-bin libopenmpi-dev) or give %s PATH", flag, name, errors.Unwrap(err), flag))
	}
	return p, nil
}

// run runs `opasim trace record`: it merges --ranks, or runs the program
// in args under mpirun with the recorder and merges the ranks' files.
func (o *traceRecordFlags) run(cmd *cobra.Command, args []string) error {
	clock, err := o.check(cmd)
	if err != nil {
		return err
	}
	if o.out != "-" {
		if err := checkWritable("--out", o.out); err != nil {
			return err
		}
	}
	if o.ranks != "" {
		return o.merge(cmd, o.ranks, clock, nil, 0)
	}
	mpirun, mpicc, err := o.tools(args[0])
	if err != nil {
		return err
	}
	stderr := cmd.ErrOrStderr()
	ctx, stopped := onSignals(cmd.Context())
	lib, err := o.library(ctx, mpicc, stderr)
	if err != nil {
		return err
	}
	dir, cleanup, err := o.ranksDir()
	if err != nil {
		return err
	}
	defer cleanup()
	if o.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, o.timeout)
		defer cancel()
	}
	launch, err := o.command(ctx, mpirun, lib, dir, args)
	if err != nil {
		return err
	}
	launch.Stdout, launch.Stderr = stderr, stderr
	fmt.Fprintf(stderr, "trace record: %s\n", strings.Join(launch.Args, " "))
	began := time.Now()
	runErr := launch.Run()
	ran := time.Since(began)
	if sig := stopped(); sig != nil {
		fmt.Fprintf(stderr, "trace record: interrupted after %.1f s; no trace written\n", ran.Seconds())
		return sig
	}
	if runErr != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return fmt.Errorf("trace record: the program ran past --timeout %v and was stopped; no trace written", o.timeout)
		}
		return fmt.Errorf("trace record: %s failed after %.1f s: %w; no trace written", filepath.Base(mpirun), ran.Seconds(), runErr)
	}
	return o.merge(cmd, dir, clock, args, ran)
}

// tools finds mpirun and mpicc, and checks that program is one.
func (o *traceRecordFlags) tools(program string) (mpirun, mpicc string, err error) {
	if mpirun, err = tool("--mpirun", o.mpirun); err != nil {
		return "", "", err
	}
	if mpicc, err = tool("--mpicc", o.mpicc); err != nil {
		return "", "", err
	}
	if _, err := exec.LookPath(program); err != nil {
		return "", "", badInput(fmt.Errorf("PROGRAM: %s: not found or not executable (%v)", program, errors.Unwrap(err)))
	}
	return mpirun, mpicc, nil
}

// library is the recorder's library, built with mpicc into --cache (or
// the default cache directory) unless it is there already.
func (o *traceRecordFlags) library(ctx context.Context, mpicc string, stderr io.Writer) (string, error) {
	cache := o.cache
	if cache == "" {
		var err error
		if cache, err = mpirec.DefaultCacheDir(); err != nil {
			return "", badInput(fmt.Errorf("--cache: no default cache directory (%v): give one", err))
		}
	}
	return mpirec.Library(ctx, cache, mpicc, stderr)
}

// ranksDir is the absolute directory the ranks write their files to:
// --keep, or a temporary one that cleanup removes.
func (o *traceRecordFlags) ranksDir() (dir string, cleanup func(), err error) {
	cleanup = func() {}
	dir = o.keep
	if dir == "" {
		if dir, err = os.MkdirTemp("", "opasim-record-"); err != nil {
			return "", cleanup, err
		}
		tmp := dir
		cleanup = func() { os.RemoveAll(tmp) }
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", cleanup, badInput(fmt.Errorf("--keep: %w", err))
	}
	if dir, err = filepath.Abs(dir); err != nil {
		cleanup()
		return "", func() {}, err
	}
	return dir, cleanup, nil
}

// merge merges the ranks' files in dir into --out and reports.
func (o *traceRecordFlags) merge(cmd *cobra.Command, dir string, clock mpirec.Clock, args []string, ran time.Duration) error {
	stderr := cmd.ErrOrStderr()
	opt := mpirec.DefaultOptions()
	opt.Compute, opt.Scale, opt.From, opt.To = clock, o.scale, o.from, o.to
	out, err := (&traceGenFlags{out: o.out}).open(cmd)
	if err != nil {
		return err
	}
	merging := time.Now()
	rep, err := mpirec.Merge(dir, out.trace, opt)
	if err == nil {
		err = out.close()
	}
	if err != nil {
		out.abandon()
		return fmt.Errorf("trace record: merging the ranks' files in %s: %w", dir, err)
	}
	merged := time.Since(merging)
	rr := recordReport{Program: args, Ranks: rep.Ranks, Compute: clock.String(), ComputeScale: o.scale, From: o.from, To: o.to,
		RunSeconds: ran.Seconds(), MergeSeconds: merged.Seconds(), RankFileBytes: dirBytes(dir), TraceBytes: out.file.n, TraceText: out.text.n,
		Messages: rep.Messages, MessageBytes: rep.MessageBytes, Collectives: rep.Collectives, Parts: rep.Parts, ByOp: rep.ByOp,
		OnReceive: rep.OnReceive, Receives: rep.Receives, ComputeNS: rep.ComputeNS, Dropped: rep.SectionDropped, Cut: rep.CutDependencies,
		Calls: rep.Calls, Unsupported: rep.Unsupported}
	o.summary(stderr, rr)
	if o.report != "" {
		b, _ := json.MarshalIndent(rr, "", "  ")
		if err := renameio.WriteFile(o.report, append(b, '\n'), 0o644); err != nil {
			return fmt.Errorf("--report: %w", err)
		}
	}
	return nil
}

// command is the mpirun command line: the recorder preloaded into every
// rank, the ranks' directory and markers passed on, one thread a rank for
// OpenMP and OpenBLAS unless the environment says otherwise.
func (o *traceRecordFlags) command(ctx context.Context, mpirun, lib, dir string, prog []string) (*exec.Cmd, error) {
	env := [][2]string{{"LD_PRELOAD", lib}, {"VEFREC_DIR", dir}}
	var marks []string
	for _, m := range append([]string{o.from, o.to}, o.marks...) {
		if m != "" {
			marks = append(marks, m)
		}
	}
	if len(marks) > 0 {
		env = append(env, [2]string{"VEFREC_MARKS", strings.Join(marks, "|")})
	}
	for _, v := range []string{"OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS"} {
		if _, set := os.LookupEnv(v); !set {
			env = append(env, [2]string{v, "1"})
		}
	}
	version, _ := exec.CommandContext(ctx, mpirun, "--version").CombinedOutput()
	var args []string
	switch v := strings.ToLower(string(version)); {
	case strings.Contains(v, "open mpi") || strings.Contains(v, "open-mpi") || strings.Contains(v, "openrte"):
		if os.Geteuid() == 0 {
			args = append(args, "--allow-run-as-root")
		}
		args = append(args, "--oversubscribe", "-np", fmt.Sprint(o.np))
		for _, e := range env {
			args = append(args, "-x", e[0]+"="+e[1])
		}
	case strings.Contains(v, "hydra") || strings.Contains(v, "mpich"):
		args = append(args, "-np", fmt.Sprint(o.np))
		for _, e := range env {
			args = append(args, "-genv", e[0], e[1])
		}
	default:
		return nil, badInput(fmt.Errorf("--mpirun: %s --version names neither Open MPI nor MPICH (%q): the recorder knows how to pass the environment to those two", mpirun, firstLine(string(version))))
	}
	args = append(append(args, o.mpirunArgs...), prog...)
	c := exec.CommandContext(ctx, mpirun, args...)
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	c.Cancel = func() error { return syscall.Kill(-c.Process.Pid, syscall.SIGTERM) }
	c.WaitDelay = 10 * time.Second
	return c, nil
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

// dirBytes is the size of the files in dir.
func dirBytes(dir string) int64 {
	var n int64
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if info, err := e.Info(); err == nil {
			n += info.Size()
		}
	}
	return n
}

func (o *traceRecordFlags) summary(w io.Writer, r recordReport) {
	where := "stdout"
	if o.out != "-" {
		where = o.out
	}
	written := fmt.Sprintf("%d bytes written to %s", r.TraceBytes, where)
	if r.TraceBytes != r.TraceText {
		written += fmt.Sprintf(" (gzip of %d bytes)", r.TraceText)
	}
	ran := fmt.Sprintf("ran %.1f s", r.RunSeconds)
	if o.ranks != "" {
		ran = "from " + o.ranks
	}
	fmt.Fprintf(w, "trace record: %d ranks, %d messages (%d bytes), %d collectives (%d parts); %s, merged %.1f s; %s\n",
		r.Ranks, r.Messages, r.MessageBytes, r.Collectives, r.Parts, ran, r.MergeSeconds, written)
	fmt.Fprintf(w, "trace record: computation on the %s clock, scale %g: %.3f s over all ranks\n", r.Compute, r.ComputeScale, float64(r.ComputeNS)/1e9)
	if r.From != "" {
		fmt.Fprintf(w, "trace record: section %q to %q: %d records of the run left out, %d dependencies moved to the section's start\n",
			r.From, r.To, r.Dropped, r.Cut)
	}
	if len(r.Unsupported) == 0 {
		fmt.Fprintf(w, "trace record: every MPI call the program made is in the trace\n")
		return
	}
	names := make([]string, 0, len(r.Unsupported))
	for k := range r.Unsupported {
		names = append(names, k)
	}
	slices.Sort(names)
	fmt.Fprintf(w, "trace record: NOT in the trace (unsupported; calls summed over ranks):\n")
	for _, k := range names {
		fmt.Fprintf(w, "  %8d  %s\n", r.Unsupported[k], k)
	}
}
