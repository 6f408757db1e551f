package main

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// flowProgress shows a flow command's progress on stderr: a bar on a
// terminal; elsewhere (a log, a pipe) a line when the work starts and
// one at each tenth of it, so that a long run is not silent. Its methods
// are safe for concurrent use; a nil one shows nothing.
type flowProgress struct {
	mu    sync.Mutex
	w     io.Writer
	what  string // the command, heading each line
	unit  string // what is counted
	term  bool
	bar   *progressbar.ProgressBar
	tenth int64 // the last tenth reported
}

// startProgress begins showing the progress of what (e.g. "flow static")
// on w if show, and where there is no terminal writes the line that says
// what starts and what Ctrl-C does.
func startProgress(w io.Writer, show bool, what, unit string, format string, a ...any) *flowProgress {
	if !show {
		return nil
	}
	p := &flowProgress{w: w, what: what, unit: unit}
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		p.term = true
		return p
	}
	fmt.Fprintf(w, "%s: %s (Ctrl-C stops it and writes what is done)\n", what, fmt.Sprintf(format, a...))
	return p
}

// set reports done units of total.
func (p *flowProgress) set(done, total int64) {
	if p == nil || total <= 0 {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.term {
		if p.bar == nil {
			p.bar = progressbar.NewOptions64(total, progressbar.OptionSetWriter(p.w), progressbar.OptionSetDescription(p.unit),
				progressbar.OptionShowCount(), progressbar.OptionThrottle(200*time.Millisecond), progressbar.OptionClearOnFinish())
		}
		_ = p.bar.Set64(done)
		return
	}
	if t := 10 * done / total; t > p.tenth {
		p.tenth = t
		fmt.Fprintf(p.w, "%s: %d%% (%d of %d %s)\n", p.what, 10*t, done, total, p.unit)
	}
}

// finish clears the bar.
func (p *flowProgress) finish() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.bar != nil {
		_ = p.bar.Finish()
	}
}
