package monitor

import (
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/grafana/pyroscope-go"
)

// ProfilingOptions say where the Pyroscope server is and how to tag the
// profiles of this run.
type ProfilingOptions struct {
	ServerURL  string            // http(s)://host:port of the Pyroscope server
	Tags       map[string]string // e.g. preset, scheduler, run_id
	UploadRate time.Duration     // one profile per type per UploadRate (default 15 s)
	Warn       io.Writer         // where the first failure is reported, once (default stderr)
}

// Profiling pushes the CPU and memory profiles of this process to a
// Pyroscope server while a run goes on.
type Profiling struct {
	p *pyroscope.Profiler
}

// uploadTimeout bounds one upload, so that a server that does not answer
// delays the end of a run by seconds at most.
const uploadTimeout = 5 * time.Second

// StartProfiling starts pushing profiles. Only a malformed URL or tag is
// an error: an unreachable server never fails the run, its first failed
// upload is reported on o.Warn and the run goes on.
func StartProfiling(o ProfilingOptions) (*Profiling, error) {
	u, err := url.Parse(o.ServerURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("%q is not allowed: must be an http:// or https:// URL with a host, e.g. http://127.0.0.1:4040", o.ServerURL)
	}
	if o.Warn == nil {
		o.Warn = os.Stderr
	}
	p, err := pyroscope.Start(pyroscope.Config{
		ApplicationName: "opasim",
		ServerAddress:   o.ServerURL,
		Tags:            o.Tags,
		UploadRate:      o.UploadRate,
		Logger:          &warnOnce{w: o.Warn, server: strings.TrimSuffix(o.ServerURL, "/")},
		HTTPClient:      &http.Client{Timeout: uploadTimeout},
		ProfileTypes: []pyroscope.ProfileType{pyroscope.ProfileCPU, pyroscope.ProfileAllocObjects,
			pyroscope.ProfileAllocSpace, pyroscope.ProfileInuseObjects, pyroscope.ProfileInuseSpace},
	})
	if err != nil {
		return nil, err
	}
	return &Profiling{p: p}, nil
}

// Stop uploads the last profiles (waiting for them, each bounded by the
// upload timeout) and stops profiling.
func (p *Profiling) Stop() {
	p.p.Flush(true)
	_ = p.p.Stop()
}

// warnOnce is the profiler's logger: it reports the first error and drops
// everything else.
type warnOnce struct {
	once   sync.Once
	w      io.Writer
	server string
}

// uploadURL is the quoted upload URL in an error, with its long query.
var uploadURL = regexp.MustCompile(`"https?://[^"]*"`)

func (l *warnOnce) Infof(string, ...any)  {}
func (l *warnOnce) Debugf(string, ...any) {}

func (l *warnOnce) Errorf(format string, args ...any) {
	l.once.Do(func() {
		msg := uploadURL.ReplaceAllString(fmt.Sprintf(format, args...), l.server+"/ingest")
		fmt.Fprintf(l.w, "opasim: warning: pyroscope: %s (the run goes on; further profiling errors are not shown)\n", msg)
	})
}
