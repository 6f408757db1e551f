package main

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"golang.org/x/term"
)

// The modes of --progress: auto (a bar on a terminal, else a log), bar, log
// and off.
const (
	progressAuto = "auto"
	progressBar  = "bar"
	progressLog  = "log"
	progressOff  = "off"
)

var progressModes = []string{progressAuto, progressBar, progressLog, progressOff}

// defaultProgressEvery is the default of --progress-every, and
// minProgressEvery its least value.
const (
	defaultProgressEvery = 10 * time.Second
	minProgressEvery     = time.Second
)

// progressFlags are --progress and --progress-every of a long command.
type progressFlags struct {
	mode  string
	every time.Duration
}

// progressValue is --progress: a mode, or a boolean as the flow commands'
// --progress was (true: auto, false: off). Bare, it is auto.
type progressValue struct{ p *progressFlags }

func (v progressValue) String() string { return v.p.mode }
func (v progressValue) Type() string   { return "mode" }
func (v progressValue) Set(s string) error {
	if slices.Contains(progressModes, s) {
		v.p.mode = s
		return nil
	}
	if b, err := strconv.ParseBool(s); err == nil {
		v.p.mode = progressOff
		if b {
			v.p.mode = progressAuto
		}
		return nil
	}
	return fmt.Errorf("must be one of %s (or true, false for auto, off)", strings.Join(progressModes, ", "))
}

// everyValue is --progress-every: a duration of at least minProgressEvery.
type everyValue struct{ p *progressFlags }

func (v everyValue) String() string { return v.p.every.String() }
func (v everyValue) Type() string   { return "duration" }
func (v everyValue) Set(s string) error {
	d, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("must be a duration of at least %v (e.g. 10s, 1m)", minProgressEvery)
	}
	if d < minProgressEvery {
		return fmt.Errorf("must be at least %v", minProgressEvery)
	}
	v.p.every = d
	return nil
}

// registerProgress binds --progress and --progress-every to fs, what
// naming what the log counts (e.g. "cycles done of the run").
func registerProgress(fs *pflag.FlagSet, counts string) *progressFlags {
	p := &progressFlags{mode: progressAuto, every: defaultProgressEvery}
	fs.Var(progressValue{p}, "progress", "progress on stderr: auto (a bar on a terminal, else a log), bar, log or off; "+
		"the log: a line as it starts, one every --progress-every with "+counts+", the rate and an ETA, and one at the end "+
		"(true and false are auto and off)")
	fs.Lookup("progress").NoOptDefVal = progressAuto
	fs.Var(everyValue{p}, "progress-every", "with --progress log (or auto off a terminal): the time between two log lines, at least 1s")
	return p
}

// progressOf is the --progress of cmd (auto if it has none).
func progressOf(cmd *cobra.Command) *progressFlags {
	if f := cmd.Flags().Lookup("progress"); f != nil {
		if v, ok := f.Value.(progressValue); ok {
			return v.p
		}
	}
	return &progressFlags{mode: progressAuto, every: defaultProgressEvery}
}

// progressArgs rewrites "--progress MODE" as "--progress=MODE" so that a
// mode may follow the flag as any other flag's value does, while a bare
// --progress (followed by a flag, or last) stays auto.
func progressArgs(args []string) []string {
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return append(out, args[i:]...)
		}
		if a == "--progress" && i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") {
			out = append(out, a+"="+args[i+1])
			i++
			continue
		}
		out = append(out, a)
	}
	return out
}

// progress shows a long command's progress on stderr: a bar (mode bar, or
// auto on a terminal), or a log (mode log, or auto elsewhere) of a line as
// the work starts, one every `every` with what is done of the total, the
// rate and an estimate of the time left, and one at the end. Its methods
// are safe for concurrent use; a nil one shows nothing. It only reads
// what it is told: it changes no result.
type progress struct {
	w     io.Writer
	what  string // the command, heading each line
	unit  string // what is counted ("" when nothing is)
	every time.Duration
	start time.Time

	done, total atomic.Int64 // total 0: not known yet; -1: no end known in advance

	mu       sync.Mutex
	bar      *progressbar.ProgressBar
	isBar    bool
	tenths   bool  // log a line at each tenth of the total too
	tenth    int64 // the last tenth logged
	detail   func() string
	stop     chan struct{}
	stopped  chan struct{}
	finished bool
}

// startProgress begins showing the progress of what (e.g. "flow static")
// on w as pf says. In log mode it writes the line that says what starts
// (format, a) and what Ctrl-C does, and logs every pf.every until finish.
// unit is what set counts; total, if known (else 0), may also come with set.
func startProgress(w io.Writer, pf *progressFlags, what, unit string, total int64, format string, a ...any) *progress {
	if pf == nil || pf.mode == progressOff {
		return nil
	}
	p := &progress{w: w, what: what, unit: unit, every: pf.every, start: time.Now()}
	if p.every < minProgressEvery {
		p.every = defaultProgressEvery
	}
	p.total.Store(total)
	switch pf.mode {
	case progressBar:
		p.isBar = true
	case progressAuto:
		f, ok := w.(*os.File)
		p.isBar = ok && term.IsTerminal(int(f.Fd()))
	}
	if p.isBar {
		if unit == "" {
			return nil // nothing to draw: the command's own lines say what it does
		}
		return p
	}
	fmt.Fprintf(w, "%s: %s (Ctrl-C stops it and writes what is done)\n", what, fmt.Sprintf(format, a...))
	p.stop, p.stopped = make(chan struct{}), make(chan struct{})
	go p.logEvery()
	return p
}

// withTenths makes the log write a line at each tenth of the total too.
func (p *progress) withTenths() *progress {
	if p != nil {
		p.mu.Lock()
		p.tenths = true
		p.mu.Unlock()
	}
	return p
}

// withDetail adds detail() to each log line and to the bar's description.
func (p *progress) withDetail(detail func() string) *progress {
	if p != nil {
		p.mu.Lock()
		p.detail = detail
		p.mu.Unlock()
	}
	return p
}

func (p *progress) logEvery() {
	defer close(p.stopped)
	t := time.NewTicker(p.every)
	defer t.Stop()
	for {
		select {
		case <-p.stop:
			return
		case <-t.C:
			p.mu.Lock()
			if !p.finished {
				fmt.Fprintln(p.w, p.line(""))
			}
			p.mu.Unlock()
		}
	}
}

// set reports done units of total (total <= 0: the total given before).
func (p *progress) set(done, total int64) {
	if p == nil {
		return
	}
	p.done.Store(done)
	if total > 0 {
		p.total.Store(total)
	}
	if !p.isBar && !p.tenths {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.finished {
		return
	}
	total = p.total.Load()
	if p.isBar {
		if p.bar == nil {
			p.bar = progressbar.NewOptions64(total, progressbar.OptionSetWriter(p.w), progressbar.OptionSetDescription(p.unit),
				progressbar.OptionShowCount(), progressbar.OptionShowIts(), progressbar.OptionSetItsString(p.unit),
				progressbar.OptionThrottle(200*time.Millisecond), progressbar.OptionClearOnFinish(), progressbar.OptionSetPredictTime(total > 0))
		}
		if p.detail != nil {
			p.bar.Describe(p.unit + ", " + p.detail())
		}
		_ = p.bar.Set64(done)
		return
	}
	if total > 0 {
		if t := 10 * done / total; t > p.tenth && done < total {
			p.tenth = t
			fmt.Fprintln(p.w, p.line(""))
		}
	}
}

// setOrFinish reports done units and, once they are the total, finishes
// (state done).
func (p *progress) setOrFinish(done int64) {
	if p == nil {
		return
	}
	p.set(done, 0)
	if total := p.total.Load(); total > 0 && done >= total {
		p.finish("done")
	}
}

// line is a log line: what is done of the total, the rate and the ETA
// (the rate over the whole of the work so far), headed by state if given.
func (p *progress) line(state string) string {
	var b strings.Builder
	b.WriteString(p.what + ": ")
	if state != "" {
		b.WriteString(state + ": ")
	}
	elapsed := time.Since(p.start)
	done, total := p.done.Load(), p.total.Load()
	if p.unit == "" {
		fmt.Fprintf(&b, "%s elapsed", roundDuration(elapsed))
		return b.String()
	}
	if total > 0 {
		fmt.Fprintf(&b, "%d of %d %s (%.1f%%)", done, total, p.unit, 100*float64(done)/float64(total))
	} else {
		fmt.Fprintf(&b, "%d %s", done, p.unit)
	}
	rate := 0.0
	if s := elapsed.Seconds(); s > 0 {
		rate = float64(done) / s
	}
	fmt.Fprintf(&b, ", %s %s/s", formatRate(rate), p.unit)
	switch {
	case state != "":
	case total > 0 && done >= total:
		b.WriteString(", ETA 0s")
	case total > 0 && rate > 0:
		b.WriteString(", ETA " + roundDuration(time.Duration(float64(total-done)/rate*float64(time.Second))).String())
	case total > 0:
		b.WriteString(", ETA unknown")
	}
	fmt.Fprintf(&b, ", %s elapsed", roundDuration(elapsed))
	if p.detail != nil {
		b.WriteString(", " + p.detail())
	}
	return b.String()
}

// formatRate writes a rate with 3 significant digits (no exponent below a
// million).
func formatRate(r float64) string {
	switch {
	case r >= 1e6:
		return strconv.FormatFloat(r, 'g', 3, 64)
	case r >= 100:
		return strconv.FormatFloat(r, 'f', 0, 64)
	default:
		return strconv.FormatFloat(r, 'f', 2, 64)
	}
}

// roundDuration rounds d to a second (to 100 ms under 10 s).
func roundDuration(d time.Duration) time.Duration {
	if d < 10*time.Second {
		return d.Round(100 * time.Millisecond)
	}
	return d.Round(time.Second)
}

// finish clears the bar, or ends the log with a last line: state is
// "done" or what stopped the work (e.g. "interrupted").
func (p *progress) finish(state string) {
	if p == nil {
		return
	}
	p.mu.Lock()
	if p.finished {
		p.mu.Unlock()
		return
	}
	p.finished = true
	if p.bar != nil {
		_ = p.bar.Clear()
	}
	if !p.isBar {
		fmt.Fprintln(p.w, p.line(state))
	}
	p.mu.Unlock()
	if p.stop != nil {
		close(p.stop)
		<-p.stopped
	}
}

// finishState is the state a log's last line gives: failed (err), interrupted
// or done.
func finishState(err error, interrupted bool) string {
	switch {
	case err != nil:
		return "failed"
	case interrupted:
		return "interrupted"
	}
	return "done"
}
